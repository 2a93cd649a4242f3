#!/bin/sh
# The engine alone (tests/tools/engine_echo, no daemon) against wireguard-go
# over loopback in a private namespace: the engine initiates (pings through
# the tunnel), then wireguard-go initiates (its kernel pings the engine).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
[ -x "$WGGO" ] || fail "wireguard-go not installed"
ECHO=$(realpath -m "$BUILD/tools/engine_echo")
[ -x "$ECHO" ] || fail "missing $ECHO"

run_case() { # who-initiates
	ns=$(ns_name "$1")
	ip netns add "$ns" || fail "netns"
	NSES="$NSES $ns"
	ip -n "$ns" link set lo up
	ifn=$(ifname "g$1")
	genkeys go$1
	genkeys en$1
	start_daemon wireguard-go "$ns" "$ifn"
	ip netns exec "$ns" wg set "$ifn" private-key "$T/go$1.key" listen-port 51820 \
		peer "$(pub en$1)" allowed-ips 10.77.0.2/32 endpoint 127.0.0.1:51821 || fail "wg set"
	ip -n "$ns" addr add 10.77.0.1/24 dev "$ifn"
	ip -n "$ns" link set "$ifn" up
	if [ "$1" = 1 ]; then
		ip netns exec "$ns" "$ECHO" 51821 "$(cat "$T/en$1.key")" "$(pub go$1)" 51820 \
			10.77.0.2 10.77.0.1 --ping --timeout 15 >"$T/echo$1.log" 2>&1 ||
			fail "engine initiates: no echo reply ($(cat "$T/echo$1.log"))"
		ok "engine initiated, wireguard-go answered the ping"
	else
		ip netns exec "$ns" "$ECHO" 51821 "$(cat "$T/en$1.key")" "$(pub go$1)" 51820 \
			10.77.0.2 10.77.0.1 --answer 3 --timeout 15 >"$T/echo$1.log" 2>&1 &
		epid=$!
		PIDS="$PIDS $epid"
		sleep 0.3
		ip netns exec "$ns" ping -c 3 -i 0.3 -W 3 10.77.0.2 >"$T/ping.out" 2>&1 ||
			{ cat "$T/ping.out"; fail "wireguard-go initiates: ping failed"; }
		wait "$epid" || fail "engine_echo: $(cat "$T/echo$1.log")"
		ok "wireguard-go initiated, the engine answered 3 pings"
	fi
	ip netns exec "$ns" wg show "$ifn" transfer
}
run_case 1
run_case 2
echo PASS
