#!/bin/sh
# Cryptokey routing with two peers: hub 1 routes by allowed IPs to peers 2
# and 3 (and forwards between them); a destination with no peer gets ICMP
# unreachable from the daemon; a peer sending from a source address it is
# not allowed to use is dropped; counters move only on the right peer.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 3
N1=$(ns_name 1) N2=$(ns_name 2) N3=$(ns_name 3)
I1=$(ifname a) I2=$(ifname b) I3=$(ifname c)
for i in 1 2 3; do genkeys k$i; done
start_daemon "${IMPL1:-zinctun}" "$N1" "$I1"
start_daemon "${IMPL2:-zinctun}" "$N2" "$I2"
start_daemon "${IMPL3:-zinctun}" "$N3" "$I3"
conf_iface "$N1" "$I1" k1 1
conf_iface "$N2" "$I2" k2 2
conf_iface "$N3" "$I3" k3 3
P1=$(listen_port "$N1" "$I1")
# spokes route the whole tunnel range (and 10.98/16) to the hub
ip -n "$N2" route add 10.98.0.0/16 dev "$I2"
ip -n "$N3" route add 10.98.0.0/16 dev "$I3"
ip -n "$N1" route add 10.98.0.0/16 dev "$I1"
add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128,10.98.2.0/24"
add_peer "$N1" "$I1" k3 "$(tun4 3)/32,$(tun6 3)/128,10.98.3.0/24"
add_peer "$N2" "$I2" k1 "10.99.0.0/24,fd99::/64,10.98.0.0/16" "$(ul4 1):$P1"
add_peer "$N3" "$I3" k1 "10.99.0.0/24,fd99::/64,10.98.0.0/16" "$(ul4 1):$P1"
ip netns exec "$N1" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$N1" sysctl -qw net.ipv6.conf.all.forwarding=1

ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "2 -> hub"; }
ping_ok "$N3" "$(tun6 1)" || { cat "$T/ping.out"; fail "3 -> hub"; }
set -- $(wg_field "$N1" "$I1" transfer k3)
rx3=$1 tx3=$2
ping_ok "$N1" "$(tun4 2)" 5 || { cat "$T/ping.out"; fail "hub -> 2"; }
set -- $(wg_field "$N1" "$I1" transfer k3)
[ "$1" = "$rx3" ] && [ "$2" = "$tx3" ] || fail "traffic to peer 2 counted on peer 3"
ping_ok "$N1" "$(tun6 3)" || { cat "$T/ping.out"; fail "hub -> 3"; }
ok "hub reaches both peers by allowed IPs; counters per peer"

ping_ok "$N2" "$(tun4 3)" || { cat "$T/ping.out"; fail "2 -> 3 through the hub"; }
ping_ok "$N3" "$(tun6 2)" || { cat "$T/ping.out"; fail "3 -> 2 through the hub (IPv6)"; }
ok "spoke to spoke through the hub"

# no peer for 10.99.0.9 / fd99::9 on the hub: ICMP unreachable from the
# daemon, sent from the interface's own address as the kernel's errors are
# (not from the unreachable address, as if that host had answered)
ip netns exec "$N1" ping -c 1 -W 2 "$(tun4 9)" >"$T/unr" 2>&1
grep -q "^From $(tun4 1) .*Destination Host Unreachable" "$T/unr" ||
	fail "no ICMP unreachable from $(tun4 1): $(cat "$T/unr")"
ip netns exec "$N1" ping -c 1 -W 2 "$(tun6 9)" >"$T/unr6" 2>&1
grep -qi "^From $(tun6 1) .*unreachable" "$T/unr6" ||
	fail "no ICMPv6 unreachable from $(tun6 1): $(cat "$T/unr6")"
ok "ICMP and ICMPv6 unreachable for a destination without a peer, from $(tun4 1) and $(tun6 1)"
# forwarded: spoke 2's packet for a hub route no peer covers; the error
# goes back to it through the tunnel, from the hub's address
ip netns exec "$N2" ping -c 1 -W 3 10.98.9.9 >"$T/unr" 2>&1
grep -q "^From $(tun4 1) .*Destination Host Unreachable" "$T/unr" ||
	fail "forwarded: no ICMP unreachable from $(tun4 1): $(cat "$T/unr")"
ok "forwarded packet: ICMP unreachable from the hub's $(tun4 1) through the tunnel"
# address changes are followed: the primary IPv4 address replaced (the
# route to 10.98/16 stays), a global IPv6 address preferred over the
# link-local one left alone
ip -n "$N1" addr add 10.97.0.1/24 dev "$I1"
ip -n "$N1" addr del "$(tun4 1)/24" dev "$I1"
ip -n "$N1" addr del "$(tun6 1)/64" dev "$I1"
ip -n "$N1" addr add fe80::1/64 dev "$I1" nodad
for _ in 1 2 3 4 5; do
	ip netns exec "$N1" ping -c 1 -W 2 10.98.9.9 >"$T/unr" 2>&1
	grep -q "^From 10.97.0.1 " "$T/unr" && break
	sleep 0.2
done
grep -q "^From 10.97.0.1 .*Destination Host Unreachable" "$T/unr" ||
	fail "ICMP unreachable not from the new address 10.97.0.1: $(cat "$T/unr")"
ip -n "$N1" -6 route add fd98::/64 dev "$I1"
ip netns exec "$N1" ping -c 1 -W 2 fd98::9 >"$T/unr6" 2>&1
grep -qi "^From fe80::1.* unreachable" "$T/unr6" ||
	fail "ICMPv6 unreachable not from the link-local address: $(cat "$T/unr6")"
ip -n "$N1" addr add "$(tun4 1)/24" dev "$I1"
ip -n "$N1" addr add "$(tun6 1)/64" dev "$I1" nodad
ok "after address changes: from 10.97.0.1, then from fe80::1 with no global address"
genkeys k4
add_peer "$N1" "$I1" k4 "$(tun4 4)/32"
ip netns exec "$N1" ping -c 1 -W 2 "$(tun4 4)" >"$T/unr" 2>&1
grep -q "Destination Host Unreachable" "$T/unr" || fail "no ICMP for a peer without endpoint: $(cat "$T/unr")"
ok "ICMP unreachable for a peer without an endpoint"

# spoofing: peer 2 sends from 10.98.3.5, which belongs to peer 3
ip -n "$N2" addr add 10.98.3.5/32 dev "$I2"
ip -n "$N3" addr add 10.98.3.5/32 dev "$I3"
ip -n "$N2" addr add 10.98.2.5/32 dev "$I2"
ip netns exec "$N2" ping -c 2 -i 0.2 -W 1 -I 10.98.3.5 "$(tun4 1)" >/dev/null 2>&1 &&
	fail "hub accepted a packet from peer 2 with peer 3's source"
ip netns exec "$N2" ping -c 2 -i 0.2 -W 1 -I 10.98.2.5 "$(tun4 1)" >"$T/p" 2>&1 ||
	fail "peer 2 with its own 10.98.2.5: $(cat "$T/p")"
ip netns exec "$N3" ping -c 2 -i 0.2 -W 1 -I 10.98.3.5 "$(tun4 1)" >"$T/p" 2>&1 ||
	fail "peer 3 with its own 10.98.3.5: $(cat "$T/p")"
ok "source addresses checked against the sending peer's allowed IPs"

# moving a prefix moves the route
ip netns exec "$N1" wg set "$I1" peer "$(pub k3)" allowed-ips "$(tun4 3)/32,$(tun6 3)/128,10.98.3.0/24,$(tun4 2)/32"
ping_ok "$N1" "$(tun4 2)" 2 && fail "10.99.0.2 still routed to peer 2 after moving it to peer 3"
ok "allowed IP moved to another peer reroutes"
echo PASS
