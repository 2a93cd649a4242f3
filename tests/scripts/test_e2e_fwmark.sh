#!/bin/sh
# fwmark (SO_MARK) with a full tunnel routed the way wg-quick does it for
# AllowedIPs = 0.0.0.0/0 (policy rules on the mark; wg-quick's firewall
# part needs iptables/nft, absent here). The peer's endpoint is reachable
# only through the default route, so the handshake gets out only if the
# daemon marks its UDP packets; then everything else flows in the tunnel.
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
P2=$(listen_port "$N2" "$I2")
# side 2's endpoint address is off-link for side 1: only the default route
ip -n "$N2" addr add 10.201.0.2/32 dev eth0
ip -n "$N1" route add default via "$(ul4 2)"
add_peer "$N2" "$I2" k1 "$(tun4 1)/32,$(tun6 1)/128"
add_peer "$N1" "$I1" k2 "0.0.0.0/0,::/0" "10.201.0.2:$P2"
ip netns exec "$N1" wg set "$I1" fwmark 51820 || fail "fwmark"
[ "$(ip netns exec "$N1" wg show "$I1" fwmark)" = 0xca6c ] || fail "fwmark not reported"
for f in -4 -6; do
	ip -n "$N1" $f route add default dev "$I1" table 51820
	ip -n "$N1" $f rule add not fwmark 51820 table 51820
	ip -n "$N1" $f rule add table main suppress_prefixlength 0
done
ip netns exec "$N1" sysctl -qw net.ipv4.conf.all.src_valid_mark=1
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "full tunnel ping v4"; }
ping_ok "$N1" "$(tun6 2)" || { cat "$T/ping.out"; fail "full tunnel ping v6"; }
check_peer_stats "$N1" "$I1" k2 "10.201.0.2:$P2"
ok "handshake escapes the full tunnel through the fwmark"
# the mark survives a listen port change (new sockets get it too)
ip netns exec "$N1" wg set "$I1" listen-port 0 || fail "rebind"
P1=$(listen_port "$N1" "$I1")
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "full tunnel after rebind"; }
[ "$(wg_field "$N2" "$I2" endpoints k1)" = "$(ul4 1):$P1" ] || fail "side 2 did not see the new port"
ok "fwmark kept across a rebind"
echo PASS
