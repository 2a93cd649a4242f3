#!/bin/sh
# zinctun-proxy safe to expose (issue 24), with the descriptor limit at
# 1024 (prlimit): SOCKS5 and HTTP CONNECT (and a plain HTTP request) to
# loopback, to the tunnel's own addresses and to a name that resolves to
# 127.0.0.1 are refused with the protocol's error (SOCKS5 reply 2, HTTP
# 403), where lwIP would loop them to a [TCPServerTunnel]'s Target; a
# socket that sends to a UDP ASSOCIATE relay before its client gets
# nothing and the client its answers; 2,000 idle clients do not keep an
# authenticated one out for more than 1 s, and are closed at the request
# deadline (10 s). GUARD_CHECKS="reach udp idle" picks checks.
# lib_proxy.sh; PROXY=... runs another proxy binary.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"
FD_LIMIT=1024
IDLE=2000
DEADLINE_S=10	# PROXY_REQUEST_DEADLINE_MS
CHECKS=${GUARD_CHECKS:-reach udp idle}

command -v prlimit >/dev/null || { echo "prlimit (util-linux) not installed"; exit 77; }
ulimit -n $((IDLE + 1024)) 2>/dev/null || { echo "cannot raise this shell's descriptor limit"; exit 77; }
resolve_proxy
quirk "the hardening of issue 24" && exit 77
peer_setup
write_conf "$CONF"
PROXY_PRE="prlimit --nofile=$FD_LIMIT:$FD_LIMIT --" start_proxy "$CONF"
wait_tunnel
client() { ip netns exec "$N2" python3 "$PROXY_TOOL" --user "$PROXY_USER" --pass "$PROXY_PASS" "$@"; }

check_reach() {
	for dst in 127.0.0.1 ::1 127.1.2.3 0.0.0.0 :: ::ffff:127.0.0.1 "$(tun4 2)" "$(tun6 2)" "$LOOP_NAME"; do
		rep=$(client socks-reply 127.0.0.1 "$SOCKS_AUTH_PORT" "$dst" "$SERVER_TUN_PORT") ||
			fail "SOCKS5 CONNECT to $dst:$SERVER_TUN_PORT: no reply"
		[ "$rep" = 2 ] || fail "SOCKS5 CONNECT to $dst:$SERVER_TUN_PORT: reply $rep, expected 2"
		case $dst in *:*) url="http://[$dst]:$SERVER_TUN_PORT/file" ;; *) url="http://$dst:$SERVER_TUN_PORT/file" ;; esac
		auth="http://$PROXY_USER:$PROXY_PASS@127.0.0.1:$HTTP_AUTH_PORT"
		code=$(pcurl -o /dev/null -w '%{http_connect}' -p -x "$auth" "$url" 2>/dev/null)
		[ "$code" = 403 ] || fail "HTTP CONNECT to $dst:$SERVER_TUN_PORT: status $code, expected 403"
		out=$(pcurl -w ' %{http_code}' -x "$auth" "$url" 2>/dev/null)
		hp=${url#http://}
		[ "$out" = "${hp%/file}: destination refused by the proxy
 403" ] || fail "HTTP GET of $url: '$out', expected 403 and its body"
	done
	out=$(client socks-reply 127.0.0.1 "$SOCKS_AUTH_PORT" "$(tun4 1)" "$WEB_PORT")
	[ "$out" = 0 ] || fail "SOCKS5 CONNECT to the peer: reply $out"
	ok "loopback, 0.0.0.0, the tunnel's addresses and $LOOP_NAME refused (SOCKS5 2, HTTP 403); the peer served"
}

check_udp() {
	out=$(client udp-hijack 127.0.0.1 "$SOCKS_AUTH_PORT" "$(tun4 1)" "$WEB_NAME" 2>&1) || fail "UDP ASSOCIATE: $out"
	ok "$out"
}

check_idle() {
	out=$(client idle-flood 127.0.0.1 "$SOCKS_AUTH_PORT" "$HTTP_AUTH_PORT" "$IDLE" \
		"$(tun4 1)" "$ECHO_PORT" "$DEADLINE_S" 2>&1) || fail "idle clients: $out"
	ok "$out"
	out=$(pcurl -x "socks5h://$PROXY_USER:$PROXY_PASS@127.0.0.1:$SOCKS_AUTH_PORT" \
		"http://$(tun4 1):$WEB_PORT/small") && [ "$out" = "hello through the tunnel" ] ||
		fail "SOCKS5 after the idle clients"
	ok "served after the idle clients"
}

for c in $CHECKS; do "check_$c"; done
kill -0 "$PROXY_PID" 2>/dev/null || fail "the proxy died"
echo PASS
