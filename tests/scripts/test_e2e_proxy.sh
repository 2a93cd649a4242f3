#!/bin/sh
# zinctun-proxy (issue 17), rootless, against a TUN-mode zinctun peer:
# SOCKS5 (hostname, IPv4, IPv6), HTTP proxy (GET, CONNECT), credentials,
# [TCPClientTunnel] (100 MB, iperf3 both ways), [TCPServerTunnel],
# [UDPProxyTunnel] and SOCKS5 UDP ASSOCIATE (DNS). lib_proxy_func.sh.
# PROXY=wireproxy runs the same against wireproxy (validates the test).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy_func.sh"
PEER_IMPL=zinctun proxy_functional
