#!/bin/sh
# A routing loop between two interfaces (two daemons) is bounded, as in the
# Linux selftest's routing-loop part (tools/testing/selftests/wireguard/
# netns.sh: two interfaces in one namespace, each one's peer endpoint routed
# through the other, tx bytes of wg1 over a ping flood). Here side 1 has I1
# (peer k2) and L1 (peer j2), both with a session to side 2; then I1's
# endpoint is moved into L1's allowed IPs and L1's into I1's, so each
# daemon seals the other's datagrams, 60 bytes larger at every pass and,
# once past the MTU, as two fragments that both looped (hundreds of MB a
# second). Now: I1's inner transmit and the bytes it sends grow by less
# than 100 KB in 2 s of a ping flood, the drop counter (SIGUSR1 stats
# line) and one log line show it, and traffic through correct routes works.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
MAX_GROWTH=100000

connect_pair zinctun zinctun
L1=$(ifname l) L2=$(ifname m)
genkeys j1
genkeys j2
start_daemon zinctun "$N1" "$L1"
start_daemon zinctun "$N2" "$L2"
for s in 1 2; do
	eval ns=\$N$s ifn=\$L$s
	ip netns exec "$ns" wg set "$ifn" private-key "$T/j$s.key" || fail "wg set $ifn"
	ip -n "$ns" addr add "10.98.0.$s/24" dev "$ifn"
	ip -n "$ns" addr add "fd98::$s/64" dev "$ifn" nodad
	ip -n "$ns" link set "$ifn" up
done
Q2=$(listen_port "$N2" "$L2")
add_peer "$N1" "$L1" j2 10.98.0.2/32,fd98::2/128 "$(ul4 2):$Q2"
add_peer "$N2" "$L2" j1 10.98.0.1/32,fd98::1/128
ping_ok "$N1" 10.98.0.2 2 || { cat "$T/ping.out"; fail "ping through $L1"; }
ok "both tunnels up"

tx_tun() { ip netns exec "$N1" cat "/sys/class/net/$I1/statistics/tx_bytes"; }
tx_wg() { set -- $(wg_field "$N1" "$I1" transfer k2); echo "${2:-0}"; }
# refused: the sum of both sides' routing_loop counters (SIGUSR1 lines)
refused() {
	n=0
	for ifn in "$I1" "$L1"; do
		: >"$T/$ifn.log"
		kill -USR1 "$(eval echo "\$PID_$ifn")"
		wait_in "$T/$ifn.log" "routing_loop=" || fail "$ifn: no stats line"
		c=$(grep -o 'routing_loop=[0-9]*' "$T/$ifn.log" | tail -1 | cut -d= -f2)
		n=$((n + ${c:-0}))
	done
	echo "$n"
}

# loop EP_I1 EP_L1 DST: each interface's endpoint routed through the other,
# a ping flood to DST through I1
loop() {
	ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" endpoint "$1"
	ip netns exec "$N1" wg set "$L1" peer "$(pub j2)" endpoint "$2"
	tun0=$(tx_tun) wg0=$(tx_wg)
	ip netns exec "$N1" ping -f -c 10 -W 1 "$3" >"$T/flood.out" 2>&1 &&
		fail "a ping through the loop was answered"
	sleep 2
	tun1=$(tx_tun) wg1=$(tx_wg)
	log "$3: $I1's inner transmit +$((tun1 - tun0)) bytes, sent +$((wg1 - wg0)) bytes in ~2 s"
	[ $((tun1 - tun0)) -lt $MAX_GROWTH ] || fail "inner transmit grew by $((tun1 - tun0)) bytes (a loop)"
	[ $((wg1 - wg0)) -lt $MAX_GROWTH ] || fail "sent $((wg1 - wg0)) bytes into the loop"
}

loop "10.98.0.2:$P2" "$(tun4 2):$Q2" "$(tun4 2)"
lines=$(cat "$T/$I1.log" "$T/$L1.log" | grep -c "Routing loop")
[ "$lines" -ge 1 ] && [ "$lines" -le 2 ] || fail "$lines 'Routing loop' log lines, expected 1 or 2"
ok "logged: $(grep -ho 'Routing loop.*' "$T/$I1.log" "$T/$L1.log" | head -1 | cut -c1-90)..."
n=$(refused)
[ "$n" -gt 0 ] || fail "routing_loop=0 in both stats lines"
ok "IPv4 loop refused: routing_loop=$n"
loop "[fd98::2]:$P2" "[$(tun6 2)]:$Q2" "$(tun6 2)"
n6=$(refused)
[ "$n6" -gt "$n" ] || fail "routing_loop=$n6 after the IPv6 loop, $n before"
ok "IPv6 loop refused: routing_loop=$n6"

# correct routes again
ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" endpoint "$(ul4 2):$P2"
ip netns exec "$N1" wg set "$L1" peer "$(pub j2)" endpoint "$(ul4 2):$Q2"
ping_ok "$N1" "$(tun4 2)" 3 || { cat "$T/ping.out"; fail "ping through $I1"; }
ping_ok "$N1" "$(tun6 2)" 2 || { cat "$T/ping.out"; fail "ping6 through $I1"; }
ping_ok "$N1" 10.98.0.2 3 || { cat "$T/ping.out"; fail "ping through $L1"; }
ok "traffic through correct routes still flows"
echo PASS
