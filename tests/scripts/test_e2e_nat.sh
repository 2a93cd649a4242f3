#!/bin/sh
# Persistent keepalive keeps a NAT mapping alive. Topology:
#   client (10.202.1.2) -- router (MASQUERADE, conntrack UDP timeouts 3 s)
#   -- server (10.200.0.2)
# The server has no endpoint for the client and no route to the client's
# network: it can only answer through the mapping the router keeps. After
# idling longer than the conntrack timeout, the server pings the client:
# with persistent-keepalive 1 on the client this works (the mapping is still
# in the router's table, keepalives seen on the wire: 32-byte type-4 UDP
# payloads, counted with tcpdump); without keepalive (the control) the
# mapping is gone and the server's ping is lost.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
command -v iptables >/dev/null || fail "iptables missing"
command -v tcpdump >/dev/null || fail "tcpdump missing"
command -v conntrack >/dev/null || fail "conntrack missing"

CT_TIMEOUT=3 # seconds, both udp_timeout and udp_timeout_stream
IDLE=5       # idle time before the server pings: > CT_TIMEOUT, < 10 s (passive keepalive)

C=$(ns_name c) R=$(ns_name r) S=$(ns_name s)
IC=$(ifname c) IS=$(ifname s)
for ns in $C $R $S; do
	ip netns add "$ns" || fail "ip netns add $ns"
	NSES="$NSES $ns"
	ip -n "$ns" link set lo up
done
# client <-> router (LAN), router <-> server (WAN)
ip link add "zt${ID}x1" type veth peer name "zt${ID}y1" || fail veth
ip link set "zt${ID}x1" netns "$C"
ip link set "zt${ID}y1" netns "$R"
ip link add "zt${ID}x2" type veth peer name "zt${ID}y2" || fail veth
ip link set "zt${ID}x2" netns "$S"
ip link set "zt${ID}y2" netns "$R"
ip -n "$C" link set "zt${ID}x1" name eth0
ip -n "$R" link set "zt${ID}y1" name lan
ip -n "$R" link set "zt${ID}y2" name wan
ip -n "$S" link set "zt${ID}x2" name eth0
ip -n "$C" addr add 10.202.1.2/24 dev eth0
ip -n "$R" addr add 10.202.1.1/24 dev lan
ip -n "$R" addr add 10.200.0.1/24 dev wan
ip -n "$S" addr add 10.200.0.2/24 dev eth0
for l in "$C eth0" "$R lan" "$R wan" "$S eth0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$C" route add default via 10.202.1.1
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$R" iptables -t nat -A POSTROUTING -o wan -j MASQUERADE || fail "MASQUERADE"
ip netns exec "$R" sysctl -qw net.netfilter.nf_conntrack_udp_timeout=$CT_TIMEOUT \
	net.netfilter.nf_conntrack_udp_timeout_stream=$CT_TIMEOUT || fail "conntrack timeouts"
ip netns exec "$S" ping -c 1 -W 1 10.202.1.2 >/dev/null 2>&1 && fail "server routes to the LAN"
ip netns exec "$C" ping -c 1 -W 2 10.200.0.2 >/dev/null 2>&1 || fail "client cannot reach server"

genkeys kc
genkeys ks
start_daemon "${IMPL_CLIENT:-zinctun}" "$C" "$IC"
start_daemon "${IMPL_SERVER:-zinctun}" "$S" "$IS"
ip netns exec "$C" wg set "$IC" private-key "$T/kc.key" || fail "client key"
ip netns exec "$S" wg set "$IS" private-key "$T/ks.key" listen-port 51820 || fail "server key"
ip -n "$C" addr add "$(tun4 1)/24" dev "$IC"
ip -n "$S" addr add "$(tun4 2)/24" dev "$IS"
ip -n "$C" link set "$IC" up
ip -n "$S" link set "$IS" up

# UDP entries for the server's port in the router's conntrack table
ct_entries() {
	ip netns exec "$R" conntrack -L -p udp --orig-port-dst 51820 2>/dev/null | grep -c 51820
}

# keepalives as seen by the server: UDP from the router, 8 + 32 bytes, type 4
capture_start() {
	ip netns exec "$S" tcpdump -i eth0 -n -U -w "$T/$1.pcap" \
		"udp and src host 10.200.0.1 and udp[4:2] = 40 and udp[8] = 4" >"$T/tcpdump-$1.err" 2>&1 &
	TCPDUMP=$!
	PIDS="$PIDS $TCPDUMP"
	for _ in $(seq 1 50); do
		grep -q "listening on" "$T/tcpdump-$1.err" && return
		sleep 0.1
	done
	fail "tcpdump did not start: $(cat "$T/tcpdump-$1.err")"
}
capture_stop() { # prints the number of captured keepalives
	kill -INT "$TCPDUMP"
	wait "$TCPDUMP" 2>/dev/null
	tcpdump -n -r "$T/$1.pcap" 2>/dev/null | wc -l
}

# run KEEPALIVE: fresh peers on both sides, the client's ping creates the
# mapping, idle, then the server pings. Sets SERVER_PING (0 = reached),
# KEEPALIVES (count on the wire while idle) and CT (entries after idling).
run() {
	ka=$1
	ip netns exec "$C" wg set "$IC" peer "$(pub ks)" remove
	ip netns exec "$S" wg set "$IS" peer "$(pub kc)" remove
	# a fresh client port, so a fresh mapping in the router
	ip netns exec "$C" wg set "$IC" listen-port $((40000 + ka)) || fail "client port"
	add_peer "$S" "$IS" kc "$(tun4 1)/32"
	add_peer "$C" "$IC" ks "$(tun4 2)/32" "10.200.0.2:51820" persistent-keepalive "$ka"
	ping_ok "$C" "$(tun4 2)" 2 || { cat "$T/ping.out"; fail "client -> server (keepalive $ka)"; }
	ep=$(wg_field "$S" "$IS" endpoints kc)
	case $ep in
	10.200.0.1:*) ;;
	*) fail "server sees endpoint '$ep', expected the router's address" ;;
	esac
	[ "$(ct_entries)" -ge 1 ] || fail "no conntrack entry for the mapping"
	capture_start "ka$ka"
	sleep "$IDLE"
	CT=$(ct_entries)
	KEEPALIVES=$(capture_stop "ka$ka")
	ip netns exec "$S" ping -c 2 -i 0.3 -W 1 "$(tun4 1)" >"$T/ping.out" 2>&1
	SERVER_PING=$?
	log "keepalive $ka: endpoint $ep, ${IDLE}s idle: $KEEPALIVES keepalives on the wire," \
		"$CT conntrack entries, server ping status $SERVER_PING"
}

run 1
[ "$KEEPALIVES" -ge $((IDLE - 2)) ] || fail "expected >= $((IDLE - 2)) keepalives in ${IDLE}s, saw $KEEPALIVES"
[ "$CT" -ge 1 ] || fail "mapping expired despite keepalives"
[ "$SERVER_PING" = 0 ] || { cat "$T/ping.out"; fail "server cannot reach the client with keepalive"; }
ok "persistent keepalive 1: $KEEPALIVES keepalives in ${IDLE}s kept the mapping, server reached the client"

run 0
[ "$KEEPALIVES" = 0 ] || fail "keepalives without persistent keepalive: $KEEPALIVES"
[ "$CT" = 0 ] || fail "mapping still present after ${IDLE}s without traffic (timeout ${CT_TIMEOUT}s)"
[ "$SERVER_PING" != 0 ] || fail "control: server reached the client although the mapping expired"
ok "control without keepalive: mapping expired after ${CT_TIMEOUT}s, server ping lost"
echo PASS
