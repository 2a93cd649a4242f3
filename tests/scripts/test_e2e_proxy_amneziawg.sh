#!/bin/sh
# The rootless mode with AmneziaWG (issue 30): zinctun-proxy, its
# [Interface] carrying Jc ... I1 as the wireproxy forks spell them, fetches
# with curl through its SOCKS5 a page from a server behind amneziawg-go
# v0.2.16 configured alike. SKIP (77) without Go or the peer.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"
need_peer amneziawg-go || { echo "amneziawg-go not available: $PEER_SKIP"; exit 77; }
resolve_proxy
chmod 755 "$T"
ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname p)
genkeys peer
genkeys proxy
start_daemon amneziawg-go "$N1" "$I1"
conf_iface "$N1" "$I1" peer 1
P1=$(listen_port "$N1" "$I1")
SOCKDIR=/var/run/amneziawg "$TESTS_DIR/../../contrib/zinctun-awg" "$I1" jc=3 jmin=40 jmax=70 \
	s1=23 s2=41 s3=7 s4=9 h1=123456 h2=223456 h3=323456 h4=423456-433456 \
	"i1=<b 0xc0ffee><r 16>" || fail "amneziawg-go parameters"
add_peer "$N1" "$I1" proxy "$(tun4 2)/32"
mkdir -p "$T/www"
echo "hello through the tunnel" >"$T/www/small"
spawn_in "$N1" web python3 -m http.server "$WEB_PORT" --bind "$(tun4 1)" --directory "$T/www"
wait_tcp "$N1" "$WEB_PORT" || fail "web server did not start"
cat >"$CONF" <<EOC
[Interface]
PrivateKey = $(cat "$T/proxy.key")
Address = $(tun4 2)/32
MTU = 1400
Jc = 3
Jmin = 40
Jmax = 70
S1 = 23
S2 = 41
S3 = 7
S4 = 9
H1 = 123456
H2 = 223456
H3 = 323456
H4 = 423456-433456
I1 = <b 0xc0ffee><r 16>

[Peer]
PublicKey = $(pub peer)
Endpoint = $(ul4 1):$P1
AllowedIPs = $(tun4 0)/24

[Socks5]
BindAddress = 127.0.0.1:$SOCKS_PORT
EOC
chgrp "$UNPRIV" "$CONF" && chmod 640 "$CONF"
start_proxy "$CONF"
wait_tunnel
ok "curl through SOCKS5 to a server behind amneziawg-go: $(pcurl -x "socks5h://127.0.0.1:$SOCKS_PORT" "http://$(tun4 1):$WEB_PORT/small")"
set -- $(wg_field "$N1" "$I1" transfer proxy)
[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] || fail "amneziawg-go transfer rx=${1:-} tx=${2:-}"
echo PASS
