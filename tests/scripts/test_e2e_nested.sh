#!/bin/sh
# WireGuard inside WireGuard: an outer pair over the veth underlay, and an
# inner pair (10.98.0.x, fd98::x, MTU 1340 = 1420 - 80) whose endpoints are
# the outer tunnel's addresses. Inner side 1 initiates over the outer IPv4
# addresses, then inner side 2 over the outer IPv6 addresses; pings inside
# (IPv4, IPv6, a full-MTU packet with DF), the inner endpoints are outer
# tunnel addresses, and the outer counters grow with the inner traffic.
# Run all zinctun, then wireguard-go as outer side 1 and inner side 2.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
[ -x "$WGGO" ] || fail "wireguard-go not installed"

in4() { echo "10.98.0.$1"; }
in6() { echo "fd98::$1"; }

# nested OUTER1 OUTER2 INNER1 INNER2
nested() {
	connect_pair "$1" "$2"
	J1=$(ifname i) J2=$(ifname j)
	genkeys j1
	genkeys j2
	start_daemon "$3" "$N1" "$J1"
	start_daemon "$4" "$N2" "$J2"
	for s in 1 2; do
		eval ns=\$N$s ifn=\$J$s
		ip netns exec "$ns" wg set "$ifn" private-key "$T/j$s.key" || fail "inner key $s"
		ip -n "$ns" link set "$ifn" mtu 1340
		ip -n "$ns" addr add "$(in4 $s)/24" dev "$ifn"
		ip -n "$ns" addr add "$(in6 $s)/64" dev "$ifn" nodad
		ip -n "$ns" link set "$ifn" up
	done
	Q1=$(listen_port "$N1" "$J1") Q2=$(listen_port "$N2" "$J2")
	label="outer $1-$2, inner $3-$4"

	log "$label: inner side 1 initiates to $(tun4 2):$Q2"
	add_peer "$N1" "$J1" j2 "$(in4 2)/32,$(in6 2)/128" "$(tun4 2):$Q2"
	add_peer "$N2" "$J2" j1 "$(in4 1)/32,$(in6 1)/128"
	ping_ok "$N1" "$(in4 2)" || { cat "$T/ping.out"; fail "$label: inner ping v4"; }
	ping_ok "$N1" "$(in6 2)" || { cat "$T/ping.out"; fail "$label: inner ping v6"; }
	check_peer_stats "$N2" "$J2" j1 "$(tun4 1):$Q1"
	check_peer_stats "$N1" "$J1" j2 "$(tun4 2):$Q2"

	# inner traffic rides the outer tunnel: outer tx grows by at least the
	# inner packets (1000-byte pings, 20 of them)
	set -- $(wg_field "$N1" "$I1" transfer k2)
	before=$2
	ip netns exec "$N1" ping -c 20 -i 0.05 -s 1000 -W 2 "$(in4 2)" >"$T/ping.out" 2>&1 ||
		{ cat "$T/ping.out"; fail "$label: 20 inner pings"; }
	set -- $(wg_field "$N1" "$I1" transfer k2)
	[ $(($2 - before)) -ge $((20 * 1000)) ] || fail "$label: outer tx grew by $(($2 - before)) only"
	ok "$label: outer tx +$(($2 - before)) bytes for 20 x 1000-byte inner pings"

	# a full inner MTU packet with DF: 1340 - 28 bytes of ICMP payload
	ip netns exec "$N1" ping -c 2 -i 0.2 -W 2 -M do -s 1312 "$(in4 2)" >"$T/ping.out" 2>&1 ||
		{ cat "$T/ping.out"; fail "$label: full-MTU inner ping"; }
	ok "$label: 1340-byte inner packets with DF"

	log "$label: inner side 2 initiates to [$(tun6 1)]:$Q1"
	ip netns exec "$N1" wg set "$J1" peer "$(pub j2)" remove
	ip netns exec "$N2" wg set "$J2" peer "$(pub j1)" remove
	add_peer "$N1" "$J1" j2 "$(in4 2)/32,$(in6 2)/128"
	add_peer "$N2" "$J2" j1 "$(in4 1)/32,$(in6 1)/128" "[$(tun6 1)]:$Q1"
	ping_ok "$N2" "$(in6 1)" || { cat "$T/ping.out"; fail "$label: inner ping v6 over outer v6"; }
	ping_ok "$N2" "$(in4 1)" || { cat "$T/ping.out"; fail "$label: inner ping v4 over outer v6"; }
	check_peer_stats "$N1" "$J1" j2 "[$(tun6 2)]:$Q2"
	check_peer_stats "$N2" "$J2" j1 "[$(tun6 1)]:$Q1"
	ok "$label"
}

(fresh_env z; nested zinctun zinctun zinctun zinctun) || exit 1
(fresh_env g; nested wireguard-go zinctun zinctun wireguard-go) || exit 1
echo PASS
