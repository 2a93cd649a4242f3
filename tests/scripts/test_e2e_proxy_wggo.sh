#!/bin/sh
# test_e2e_proxy.sh's scenario with Debian's wireguard-go as the TUN peer.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy_func.sh"
PEER_IMPL=wireguard-go proxy_functional
