#!/bin/sh
# zinctun-proxy (issue 17) under load, against a TUN-mode zinctun peer:
# 200 SOCKS5 connections open at once all served; 17,000 connections one
# after another through a forward all served (more than lwIP's 16384
# ports: those it closed first wait 2 minutes in TIME_WAIT); clients that open
# connections and never read do not stall another client's 100 MB
# download; once idle, the proxy uses no CPU (not measured on a
# ThreadSanitizer build: the test then exits 77 after the load checks).
# lib_proxy.sh; PROXY=wireproxy runs the same against wireproxy (validates
# the test).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"
MANY=200
IN_A_ROW=17000		# > 16384 ephemeral ports, within TIME_WAIT's 2 minutes
STALLERS=20
STALL_SECS=60	# the other client's download must finish within this
IDLE_SECS=3
IDLE_MAX_TICKS=1	# clock ticks (10 ms) of CPU allowed in IDLE_SECS

resolve_proxy
peer_setup
write_conf "$CONF"
start_proxy "$CONF"
wait_tunnel

log "$MANY SOCKS5 connections at once"
ip netns exec "$N2" timeout 120 python3 "$PROXY_TOOL" socks-many 127.0.0.1 "$SOCKS_PORT" \
	"$(tun4 1)" "$ECHO_PORT" "$MANY" >"$T/many.out" 2>&1 || { cat "$T/many.out"; fail "$MANY connections"; }
ok "$(cat "$T/many.out")"

log "$IN_A_ROW connections one after another through a forward"
ip netns exec "$N2" timeout 600 python3 "$PROXY_TOOL" fwd-count 127.0.0.1 "$FWD_ECHO_PORT" \
	"$IN_A_ROW" >"$T/row.out" 2>&1 || { cat "$T/row.out"; fail "$IN_A_ROW connections in a row"; }
ok "$(cat "$T/row.out")"

log "$STALLERS connections that never read, then a download beside them"
spawn_in "$N2" stall python3 "$PROXY_TOOL" stall 127.0.0.1 "$SOCKS_PORT" "$(tun4 1)" "$WEB_PORT" /big "$STALLERS"
STALL_PID=$LAST_PID
wait_in "$T/stall.log" ready 300 || fail "the stalled clients did not connect"
sleep 2	# their buffers fill
kill -0 "$STALL_PID" 2>/dev/null || fail "the stalled client exited"
STALL_RSS_MAX_KB=$((512 * 1024))	# far below what they sent: bounded buffering
started=$(date +%s)
fetch_big "download beside $STALLERS stalled connections" --max-time "$STALL_SECS" \
	-x "socks5h://127.0.0.1:$SOCKS_PORT" "http://$WEB_NAME:$WEB_PORT/big"
out=$(pcurl -x "http://127.0.0.1:$HTTP_PORT" "http://$(tun4 1):$WEB_PORT/small") &&
	[ "$out" = "hello through the tunnel" ] || fail "HTTP proxy beside the stalled connections"
ok "other clients served beside the stalled ones (download in $(($(date +%s) - started)) s)"
rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PROXY_PID/status")
[ "$rss" -le $STALL_RSS_MAX_KB ] || fail "proxy RSS $rss kB beside the stalled connections"
ok "proxy RSS beside the stalled connections: $rss kB"
kill "$STALL_PID"
wait "$STALL_PID" 2>/dev/null

log "idle CPU"
if [ "${SANITIZE:-}" = thread ]; then
	# as in test_e2e_idle: ThreadSanitizer's own thread wakes up periodically
	echo "load checks passed; idle CPU not measured on a ThreadSanitizer build (its own thread wakes up)"
	exit 77
fi
sleep 2	# the closed connections' last packets
a=$(proxy_ticks)
sleep "$IDLE_SECS"
b=$(proxy_ticks)
[ $((b - a)) -le $IDLE_MAX_TICKS ] || fail "idle proxy used $((b - a)) ticks of CPU in $IDLE_SECS s"
ok "idle proxy: $((b - a)) ticks of CPU in $IDLE_SECS s"
kill -0 "$PROXY_PID" 2>/dev/null || fail "the proxy died"
echo PASS
