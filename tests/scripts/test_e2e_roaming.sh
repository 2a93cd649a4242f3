#!/bin/sh
# Roaming and sticky source addresses. Side 2 changes its underlay address
# (IPv4, then over to IPv6): side 1, which has no configured endpoint,
# follows the latest authenticated source and can reach side 2 there.
# Side 1 is reached on a secondary address: its answers must come from that
# address (IP_PKTINFO), or side 2 would roam its endpoint to the primary.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname a) I2=$(ifname b)
genkeys k1
genkeys k2
start_daemon "${IMPL1:-zinctun}" "$N1" "$I1"
start_daemon "${IMPL2:-zinctun}" "$N2" "$I2"
conf_iface "$N1" "$I1" k1 1
conf_iface "$N2" "$I2" k2 2
P1=$(listen_port "$N1" "$I1") P2=$(listen_port "$N2" "$I2")
# a secondary address on side 1 (IPv4 and IPv6) that side 2 uses
ip -n "$N1" addr add 10.200.0.11/24 dev br0
ip -n "$N1" addr add fd00:200::11/64 dev br0 nodad
add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128"
add_peer "$N2" "$I2" k1 "$(tun4 1)/32,$(tun6 1)/128" "10.200.0.11:$P1"

ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "initial ping"; }
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping back"; }
[ "$(wg_field "$N1" "$I1" endpoints k2)" = "$(ul4 2):$P2" ] || fail "side 1 learned endpoint"
[ "$(wg_field "$N2" "$I2" endpoints k1)" = "10.200.0.11:$P1" ] ||
	fail "sticky source (IPv4): side 2 sees $(wg_field "$N2" "$I2" endpoints k1)"
ok "IPv4 answers come from the secondary address"

# side 2 moves to a new IPv4 address
ip -n "$N2" addr del "$(ul4 2)/24" dev eth0
ip -n "$N2" addr add 10.200.0.102/24 dev eth0
ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "ping after moving"; }
[ "$(wg_field "$N1" "$I1" endpoints k2)" = "10.200.0.102:$P2" ] ||
	fail "no roaming: side 1 has $(wg_field "$N1" "$I1" endpoints k2)"
ping_ok "$N1" "$(tun6 2)" || { cat "$T/ping.out"; fail "side 1 reaches the new address"; }
ok "roamed to 10.200.0.102"

# side 2 switches to IPv6 (the secondary IPv6 address of side 1)
ip netns exec "$N2" wg set "$I2" peer "$(pub k1)" endpoint "[fd00:200::11]:$P1"
ping_ok "$N2" "$(tun6 1)" || { cat "$T/ping.out"; fail "ping over IPv6"; }
[ "$(wg_field "$N1" "$I1" endpoints k2)" = "[$(ul6 2)]:$P2" ] ||
	fail "no roaming to IPv6: side 1 has $(wg_field "$N1" "$I1" endpoints k2)"
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "side 1 reaches side 2 over IPv6"; }
[ "$(wg_field "$N2" "$I2" endpoints k1)" = "[fd00:200::11]:$P1" ] ||
	fail "sticky source (IPv6): side 2 sees $(wg_field "$N2" "$I2" endpoints k1)"
ok "roamed to IPv6, IPv6 answers from the secondary address"

# the sticky source disappears: side 1 must fall back to a valid source
ip netns exec "$N1" sysctl -qw net.ipv4.conf.br0.promote_secondaries=1
ip -n "$N1" addr del 10.200.0.11/24 dev br0
ip netns exec "$N2" wg set "$I2" peer "$(pub k1)" endpoint "$(ul4 1):$P1"
ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "ping to the primary address"; }
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "answers after the source went away"; }
ok "source address removed: still reachable"
echo PASS
