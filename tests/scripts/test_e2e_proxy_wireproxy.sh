#!/bin/sh
# zinctun-proxy for wireproxy's users (issue 27), against a TUN-mode zinctun
# peer: started with wireproxy's command line (-i ADDR -c FILE, as its unit's
# ExecStart), the health endpoint's /metrics (the get, keys REDACTED) and
# /readyz (200 while the peer answers CheckAlive's pings, 503 once it stops),
# --metrics' Prometheus text, [STDIOTunnel] carrying 1 MB both ways through
# a second proxy's stdin and stdout (ssh's ProxyCommand way), the HTTP
# proxy's 502 (refused, DNS) and 504 (no answer in 20 s) with a body and an
# info line saying why, and the log at info: the handshake once, one UDP
# bind, no raw socket, SIGUSR1's peer in short base64.
# PROXY=wireproxy runs the same against wireproxy v1.0.9 (bodies, log lines
# and --metrics are zinctun's own: skipped there).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"

INFO_PORT=9080 PROM_PORT=9586 HOLE=$(tun4 77)	# in the peer's AllowedIPs, nobody there

resolve_proxy
BIG_MB=1 # no download here
peer_setup
write_conf "$CONF"
# the peer's tunnel addresses pinged every second
sed -i "/^DNS = /a CheckAlive = $(tun4 1), $(tun6 1)\nCheckAliveInterval = 1" "$CONF"
BASE_CMD=$PROXY_CMD
proxy_with -i "127.0.0.1:$INFO_PORT"
[ "$PROXY_IMPL" = zinctun ] && proxy_with --metrics "$PROM_PORT"
start_proxy "$CONF"
wait_tunnel
# the 504 takes the connect deadline (20 s): under way meanwhile. wireproxy
# v1.0.9 answers no failed connection (the client waits): not checked there
FAILURES=1
quirk "HTTP 502 and 504" && FAILURES=
[ -n "$FAILURES" ] && {
	http_get 504 "http://$HOLE:$WEB_PORT/" -x "http://127.0.0.1:$HTTP_PORT"
	echo "$CODE" >"$T/504.code"
} &
P504=$!

# -- -i: /metrics is the configuration socket's get, its secrets redacted
http_get metrics "http://127.0.0.1:$INFO_PORT/metrics"
[ "$CODE" = 200 ] || fail "-i /metrics: status $CODE"
grep -qx "private_key=REDACTED" "$T/metrics.body" &&
	grep -qx "public_key=$(hexkey peer pub)" "$T/metrics.body" &&
	grep -q "^last_handshake_time_sec=[1-9]" "$T/metrics.body" ||
	fail "-i /metrics: $(head -c 600 "$T/metrics.body")"
grep -q "$(hexkey proxy key)" "$T/metrics.body" && fail "-i /metrics shows the private key"
ok "-i /metrics: the get, private_key=REDACTED, the peer and its handshake"
http_get other "http://127.0.0.1:$INFO_PORT/other"
[ "$CODE" = 404 ] || fail "-i /other: status $CODE"

# -- /readyz: 200 while both addresses answer, 503 once they stop
readyz() { # WANT: within 10 s
	for _ in $(seq 1 50); do
		http_get readyz "http://127.0.0.1:$INFO_PORT/readyz"
		[ "$CODE" = "$1" ] && return 0
		sleep 0.2
	done
	fail "/readyz: status $CODE, expected $1: $(cat "$T/readyz.body")"
}
readyz 200
grep -qE "^\{\"$(tun4 1)\":[1-9][0-9]+,\"$(tun6 1)\":[1-9][0-9]+\}$" "$T/readyz.body" ||
	fail "/readyz body: $(cat "$T/readyz.body")"
ok "/readyz 200 while the peer answers: $(cat "$T/readyz.body")"
ip netns exec "$N1" sysctl -qw net.ipv4.icmp_echo_ignore_all=1 net.ipv6.icmp.echo_ignore_all=1 ||
	fail "cannot silence the peer's pings"
t0=$(date +%s)
readyz 503
ok "/readyz 503 $(($(date +%s) - t0)) s after the peer stopped answering: $(cat "$T/readyz.body")"

# -- --metrics: the daemon's Prometheus text
if ! quirk "--metrics"; then
	http_get prom "http://127.0.0.1:$PROM_PORT/metrics"
	[ "$CODE" = 200 ] && grep -q "^wireguard_sent_bytes_total{.*public_key=\"$(pub peer)\"" \
		"$T/prom.body" || fail "--metrics: status $CODE: $(head -c 400 "$T/prom.body")"
	ok "--metrics serves the daemon's metrics in proxy mode"
fi

stdio_check() {
	genkeys stdio
	add_peer "$N1" "$I1" stdio "$(tun4 3)/32"
	cat >"$T/stdio.conf" <<-EOT
		[Interface]
		PrivateKey = $(cat "$T/stdio.key")
		Address = $(tun4 3)/32
		[Peer]
		PublicKey = $(pub peer)
		Endpoint = $(ul4 1):$P1
		AllowedIPs = $(tun4 0)/24
		[STDIOTunnel]
		Target = $(tun4 1):$ECHO_PORT
	EOT
	chgrp "$UNPRIV" "$T/stdio.conf" && chmod 640 "$T/stdio.conf"
	PROXY_CMD=$BASE_CMD
	proxy_with
	# shellcheck disable=SC2086 # PROXY_CMD: the command's words
	out=$(ip netns exec "$N2" python3 "$PROXY_TOOL" stdio-echo 1000000 env -u XDG_RUNTIME_DIR \
		setpriv --reuid="$UNPRIV" --regid="$UNPRIV" --clear-groups --inh-caps=-all \
		--bounding-set=-all $PROXY_CMD "$T/stdio.conf" 2>"$T/stdio.log") ||
		fail "[STDIOTunnel]: $(tail -n 5 "$T/stdio.log")"
	ok "[STDIOTunnel]: $out"
}

# -- [STDIOTunnel]: a second proxy, its stdin and stdout to the echo server
# (wireproxy v1.0.9 reopens /dev/stdout, which its own landlock rules hide:
# "Failed to open /dev/stdout")
quirk "[STDIOTunnel]" || stdio_check

# -- the HTTP proxy's failures: status, a body and an info line saying why
http_failure() { # NAME URL STATUS WHY (504: fetched in the background)
	if [ "$1" = 504 ]; then
		wait "$P504"
		CODE=$(cat "$T/504.code")
	else
		http_get "$1" "$2" -x "http://127.0.0.1:$HTTP_PORT"
	fi
	[ "$CODE" = "$3" ] || fail "$1: status $CODE, expected $3 ($(cat "$T/$1.err"))"
	hp=${2#http://}
	hp=${hp%/}
	grep -qxF "$hp: $4" "$T/$1.body" || fail "$1: body '$(cat "$T/$1.body")'"
	wait_in "$T/proxy.log" "[http] $3 for $hp: $4" 20 || fail "$1: no info line"
	grep -F "[http] $3 for $hp" "$T/proxy.log" | grep -q "^INFO: " || fail "$1: not at info"
	ok "$1: $3, '$(cat "$T/$1.body")', logged at info"
}
if [ -n "$FAILURES" ]; then
	http_failure refused "http://$(tun4 1):1/" 502 "connection refused"
	http_failure nxdomain "http://nx.test:$WEB_PORT/" 502 "name not resolved (DNS)"
	http_failure 504 "http://$HOLE:$WEB_PORT/" 504 "connection timed out"
fi

# -- the log at info
if ! quirk "zinctun's log lines"; then
	kill -USR1 "$PROXY_PID"
	p=$(pub peer)
	wait_in "$T/proxy.log" "peer(${p:0:4}…${p:39:4}) endpoint " ||
		fail "SIGUSR1: no peer line in short base64: $(grep -i "endpoint" "$T/proxy.log")"
	n=$(grep -c "^INFO: .*Handshake completed" "$T/proxy.log")
	[ "$n" = 1 ] || fail "'Handshake completed' at info $n times"
	n=$(grep -c "UDP bind has been updated" "$T/proxy.log")
	[ "$n" = 1 ] || fail "'UDP bind has been updated' $n times"
	grep -q "raw socket" "$T/proxy.log" && fail "a raw socket mentioned: $(grep "raw socket" "$T/proxy.log")"
	ok "log: the handshake once at info, one UDP bind, no raw socket, SIGUSR1 in short base64"
fi
kill -0 "$PROXY_PID" 2>/dev/null || fail "the proxy died"
echo PASS
