#!/bin/sh
# A routing loop is refused, as in the Linux selftest's "onion routing
# works, even when it loops" (tools/testing/selftests/wireguard/netns.sh):
# side 1 reaches a third interface (side 2's I3) through its tunnel to side
# 2 (onion routing: it works), then that peer's endpoint is moved into its
# own allowed IPs and I3 deleted, so every datagram to it is routed back
# into side 1's own interface. Without the guard each one came back, was
# sealed again, 32 bytes larger, and past the MTU as two fragments that
# both looped (hundreds of MB a second). Now: the inner transmit (what the
# kernel hands to side 1's TUN) grows by less than 100 KB in 2 s of a ping
# flood, the drop counter (SIGUSR1 stats line, metrics) and one log line
# show it, and traffic through a correct route still works.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
MAX_GROWTH=100000
MPORT=9587

ENV1="ZINCTUN_METRICS=$(ul4 1):$MPORT"
connect_pair zinctun zinctun
I3=$(ifname c)
genkeys k3
start_daemon zinctun "$N2" "$I3"
ip netns exec "$N2" wg set "$I3" private-key "$T/k3.key" listen-port 0 || fail "wg set $I3"
ip -n "$N2" addr add 10.98.0.2/24 dev "$I3"
ip -n "$N2" link set "$I3" up
P3=$(listen_port "$N2" "$I3")
add_peer "$N2" "$I3" k1 10.98.0.1/32
ip -n "$N1" addr add 10.98.0.1/24 dev "$I1"

# onion routing: k3's endpoint lies in k2's allowed IPs, not its own
add_peer "$N1" "$I1" k3 10.98.0.2/32 "$(tun4 2):$P3"
ping_ok "$N1" 10.98.0.2 2 || { cat "$T/ping.out"; fail "onion routing (through the tunnel to side 2)"; }
ok "onion routing through another peer works"

# the loop: k3's endpoint inside k3's own allowed IPs, its interface gone
ip netns exec "$N1" wg set "$I1" peer "$(pub k3)" endpoint "10.98.0.2:$P3"
pid3=$(eval echo "\$PID_$I3")
kill "$pid3"
wait_gone "$pid3" || fail "$I3 did not stop"

tx_tun() { ip netns exec "$N1" cat "/sys/class/net/$I1/statistics/tx_bytes"; }
tx_wg() { set -- $(wg_field "$N1" "$I1" transfer k3); echo "${2:-0}"; }
tun0=$(tx_tun) wg0=$(tx_wg)
ip netns exec "$N1" ping -f -c 10 -W 1 10.98.0.2 >"$T/flood.out" 2>&1 &&
	fail "a ping through the loop was answered"
sleep 2
tun1=$(tx_tun) wg1=$(tx_wg)
log "inner transmit +$((tun1 - tun0)) bytes, sent to k3 +$((wg1 - wg0)) bytes in ~2 s"
[ $((tun1 - tun0)) -lt $MAX_GROWTH ] || fail "inner transmit grew by $((tun1 - tun0)) bytes (a loop)"
[ $((wg1 - wg0)) -lt $MAX_GROWTH ] || fail "sent $((wg1 - wg0)) bytes to the looping peer"

kill -USR1 "$(eval echo "\$PID_$I1")"
wait_in "$T/$I1.log" "routing_loop=" || fail "no stats line"
n=$(grep -o 'routing_loop=[0-9]*' "$T/$I1.log" | tail -1 | cut -d= -f2)
[ "${n:-0}" -gt 0 ] || fail "routing_loop=$n in the stats line"
lines=$(grep -c "Routing loop" "$T/$I1.log")
[ "$lines" = 1 ] || fail "$lines 'Routing loop' log lines, expected 1"
grep "Routing loop" "$T/$I1.log" | grep -q "$(pub k3 | cut -c1-4)" || fail "the log line names another peer"
sel="zinctun_packets_dropped_total{interface=\"$I1\",reason=\"routing_loop\"}"
m=$(ip netns exec "$N1" python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "http://$(ul4 1):$MPORT/metrics" |
	awk -v s="$sel" '$1 == s { print $2 }')
[ "${m:-0}" -gt 0 ] || fail "metrics: '$sel' is '${m:-}'"
ok "refused: routing_loop=$n, one log line: $(grep -o 'Routing loop.*' "$T/$I1.log" | cut -c1-80)..."

ping_ok "$N1" "$(tun4 2)" 3 || { cat "$T/ping.out"; fail "ping through the correct route"; }
ok "traffic through the correct route still flows"
echo PASS
