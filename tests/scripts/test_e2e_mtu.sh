#!/bin/sh
# Jumbo frames: tunnel MTU 9000 over a 9200-byte underlay; full-size
# packets with DF in both families and both directions, then TCP with iperf3.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

connect_pair "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
ip -n "$N1" link set br0 mtu 9200
ip -n "$N1" link set "zt${ID}v2" mtu 9200
ip -n "$N2" link set eth0 mtu 9200
ip -n "$N1" link set "$I1" mtu 9000
ip -n "$N2" link set "$I2" mtu 9000
sleep 0.3
# 9000-byte IPv4 packets (8972 + 8 + 20) and IPv6 packets (8952 + 8 + 40)
ip netns exec "$N1" ping -c 3 -i 0.2 -W 2 -M do -s 8972 "$(tun4 2)" >"$T/p4" 2>&1 ||
	{ cat "$T/p4"; fail "9000-byte IPv4 ping 1->2"; }
ip netns exec "$N2" ping -c 3 -i 0.2 -W 2 -M do -s 8972 "$(tun4 1)" >"$T/p4" 2>&1 ||
	{ cat "$T/p4"; fail "9000-byte IPv4 ping 2->1"; }
ip netns exec "$N1" ping -c 3 -i 0.2 -W 2 -M do -s 8952 "$(tun6 2)" >"$T/p6" 2>&1 ||
	{ cat "$T/p6"; fail "9000-byte IPv6 ping 1->2"; }
grep -q "8980 bytes from" "$T/p4" || fail "IPv4 reply size: $(cat "$T/p4")"
ok "9000-byte packets in both families"
# one byte more does not fit the tunnel
ip netns exec "$N1" ping -c 1 -W 1 -M do -s 8973 "$(tun4 2)" >/dev/null 2>&1 && fail "9001-byte packet passed"
iperf "$N2" "$N1" "$(tun4 2)" "TCP at MTU 9000"
iperf "$N2" "$N1" "$(tun4 2)" "TCP at MTU 9000, reverse" -R
echo PASS
