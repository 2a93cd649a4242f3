#!/bin/sh
# Outer datagrams larger than the path MTU (issue: UDP GSO refused with
# EMSGSIZE dropped every batch). Two zinctun pairs share one routed underlay
# A -- R -- B: pair "g" with GSO (the default), pair "n" with
# ZINCTUN_NO_GSO=1 as the yardstick. Four paths:
#   local1400   both links MTU 1400 under tunnel MTU 1420 (the MTU is local)
#   learned1400 A-R 1500, R-B 1400: A learns the path MTU from R's ICMP
#   ipv6-1480   IPv6 underlay, R-B 1480 (ICMPv6 Packet Too Big)
#   jumbo9000   tunnel MTU 9000 over 1500
# Each: TCP both ways through pair g at a rate of the same order as pair n
# (>= 1/10 of it: a functional check, the broken path ran at ~1/20000), and
# 1400-byte UDP datagrams delivered through pair g.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

SECS=2
[ -n "${SANITIZE:-}" ] && SECS=3

# topo FAMILY MTU_AR MTU_RB: namespaces A, R, B; A and B reach each other
# through R. Sets UL_A / UL_B (underlay addresses of A and B for FAMILY).
topo() {
	fam=$1 mtu_ar=$2 mtu_rb=$3
	A=$(ns_name a) R=$(ns_name r) B=$(ns_name b)
	for n in $A $R $B; do
		ip netns add "$n" || fail "ip netns add $n"
		NSES="$NSES $n"
		ip -n "$n" link set lo up
	done
	ip -n "$R" link add ar type veth peer name eth0 netns "$A" || fail "veth A-R"
	ip -n "$R" link add rb type veth peer name eth0 netns "$B" || fail "veth R-B"
	ip -n "$R" link set ar mtu "$mtu_ar" up
	ip -n "$A" link set eth0 mtu "$mtu_ar" up
	ip -n "$R" link set rb mtu "$mtu_rb" up
	ip -n "$B" link set eth0 mtu "$mtu_rb" up
	ip -n "$R" addr add 10.201.1.1/24 dev ar
	ip -n "$R" addr add 10.201.2.1/24 dev rb
	ip -n "$R" addr add fd00:201:1::1/64 dev ar nodad
	ip -n "$R" addr add fd00:201:2::1/64 dev rb nodad
	ip -n "$A" addr add 10.201.1.2/24 dev eth0
	ip -n "$B" addr add 10.201.2.2/24 dev eth0
	ip -n "$A" addr add fd00:201:1::2/64 dev eth0 nodad
	ip -n "$B" addr add fd00:201:2::2/64 dev eth0 nodad
	ip -n "$A" route add default via 10.201.1.1
	ip -n "$B" route add default via 10.201.2.1
	ip -n "$A" -6 route add default via fd00:201:1::1
	ip -n "$B" -6 route add default via fd00:201:2::1
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	if [ "$fam" = 6 ]; then
		UL_A="[fd00:201:1::2]" UL_B="[fd00:201:2::2]"
	else
		UL_A=10.201.1.2 UL_B=10.201.2.2
	fi
}

# tunnel PAIR NET TUNMTU [daemon env]: zinctun in A and B joined over the
# underlay, tunnel addresses 10.NET.0.1 (A) and 10.NET.0.2 (B)
tunnel() {
	pair=$1 net=$2 tmtu=$3
	shift 3
	ia=$(ifname "${pair}a") ib=$(ifname "${pair}b")
	genkeys "${pair}a"
	genkeys "${pair}b"
	start_daemon zinctun "$A" "$ia" "$@"
	start_daemon zinctun "$B" "$ib" "$@"
	for side in a b; do
		ns=$A ifn=$ia idx=1
		[ $side = b ] && ns=$B ifn=$ib idx=2
		ip netns exec "$ns" wg set "$ifn" private-key "$T/${pair}$side.key" ||
			fail "wg set $ifn private-key"
		ip -n "$ns" addr add "10.$net.0.$idx/24" dev "$ifn"
		ip -n "$ns" link set "$ifn" mtu "$tmtu" up
	done
	pb=$(listen_port "$B" "$ib")
	ip netns exec "$A" wg set "$ia" peer "$(pub "${pair}b")" allowed-ips "10.$net.0.2/32" \
		endpoint "$UL_B:$pb" || fail "wg set $ia peer"
	ip netns exec "$B" wg set "$ib" peer "$(pub "${pair}a")" allowed-ips "10.$net.0.1/32" ||
		fail "wg set $ib peer"
	ping_ok "$A" "10.$net.0.2" 2 || { cat "$T/ping.out"; fail "$pair: first ping"; }
}

mbits() { grep -oE "[0-9.]+ Mbits/sec" <<<"$1" | head -1 | cut -d' ' -f1; }

# tcp_rate SERVER_NS CLIENT_NS ADDR LABEL: prints the receiver's Mbit/s
tcp_rate() {
	iperf "$1" "$2" "$3" "$4" -t "$SECS" >"$T/rate.out" || { cat "$T/rate.out"; exit 1; }
	cat "$T/rate.out" >&2
	mbits "$(cat "$T/rate.out")"
}

same_order() { # GSO NOGSO LABEL
	python3 -c "import sys; sys.exit(0 if float('$1') >= float('$2') / 10 else 1)" ||
		fail "$3: $1 Mbit/s with GSO, $2 Mbit/s without: not the same order"
	ok "$3: $1 Mbit/s with GSO, $2 without"
}

scenario() { # NAME FAMILY MTU_AR MTU_RB TUNMTU
	name=$1
	SEQ=$((${SEQ:-0} + 1))
	log "== $name"
	(
		fresh_env "$SEQ"
		topo "$2" "$3" "$4"
		tunnel g 98 "$5"
		tunnel n 97 "$5" ZINCTUN_NO_GSO=1
		g_ab=$(tcp_rate "$B" "$A" 10.98.0.2 "$name g A->B")
		n_ab=$(tcp_rate "$B" "$A" 10.97.0.2 "$name n A->B")
		g_ba=$(tcp_rate "$A" "$B" 10.98.0.1 "$name g B->A")
		n_ba=$(tcp_rate "$A" "$B" 10.97.0.1 "$name n B->A")
		same_order "$g_ab" "$n_ab" "$name TCP A->B"
		same_order "$g_ba" "$n_ba" "$name TCP B->A"
		# 1400-byte datagrams at a rate any path here carries
		iperf "$B" "$A" 10.98.0.2 "$name UDP 1400 B A->B" -u -l 1400 -b 20M -t 1
		loss=$(grep -oE "\(([0-9.]+)%\)" "$T/iperf.log" | tail -1 | tr -d '()%')
		python3 -c "import sys; sys.exit(0 if float('${loss:-100}') <= 30 else 1)" ||
			{ cat "$T/iperf.log"; fail "$name: UDP 1400 B lost ${loss}%"; }
		grep -q "GSO of .* refused" "$T/$(ifname ga).log" ||
			fail "$name: A logged no GSO refusal"
		[ "$(grep -c "GSO of .* refused" "$T/$(ifname ga).log")" = 1 ] ||
			fail "$name: GSO refusal logged more than once"
	) || exit 1
}

scenario local1400 4 1400 1400 1420
scenario learned1400 4 1500 1400 1420
scenario ipv6-1480 6 1500 1480 1420
scenario jumbo9000 4 1500 1500 9000
echo PASS
