#!/bin/sh
# ECN and DSCP as the Linux module does them (wg/ecn.c, WG_HANDSHAKE_DS),
# zinctun <-> zinctun, seen on the underlay (a capture on the receiver's
# eth0) and by the inner applications (IP_RECVTOS / IPV6_RECVTCLASS):
# - handshake initiations and responses leave with DSCP AF41 (0x88), data
#   with DSCP 0;
# - a data datagram's outer ECN bits are the inner packet's (CE as ECT(0)),
#   the inner DSCP never leaks;
# - an outer CE set on the underlay (iptables TOS in the receiver's
#   PREROUTING) arrives as CE on an ECT inner packet, an outer ECT(1) turns
#   an ECT(0) one ECT(1), a not-ECT inner packet arrives unchanged; IPv4 and
#   IPv6 inside, IPv4 and IPv6 underlay.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
PROBE=$TESTS_DIR/../tools/tosprobe.py
PORT=7009

ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname a) I2=$(ifname b)
for ipt in iptables ip6tables; do
	ip netns exec "$N2" "$ipt" -t mangle -A PREROUTING -p udp -j TOS --set-tos 0x03/0x03 2>/dev/null &&
		ip netns exec "$N2" "$ipt" -t mangle -F PREROUTING ||
		{ echo "SKIP: no $ipt TOS target (xt_DSCP) to mark the underlay"; exit 77; }
done
genkeys k1
genkeys k2
start_daemon zinctun "$N1" "$I1"
start_daemon zinctun "$N2" "$I2"
conf_iface "$N1" "$I1" k1 1
conf_iface "$N2" "$I2" k2 2
P2=$(listen_port "$N2" "$I2")
: >"$T/cap"
ip netns exec "$N2" python3 "$PROBE" capture eth0 "$T/cap" "$T/stop" &
PIDS="$PIDS $!"
wait_in "$T/cap" ready || fail "capture did not start"
add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128" "$(ul4 2):$P2"
add_peer "$N2" "$I2" k1 "$(tun4 1)/32,$(tun6 1)/128"
ping_ok "$N1" "$(tun4 2)" 2 || { cat "$T/ping.out"; fail "ping"; }

# DS fields (sorted, unique) of captured messages of TYPE [to the port]
cap_ds() {
	awk -v t="$1" -v p="${2:-}" '$4 == t && (p == "" || $3 == p) { print $1 }' "$T/cap" |
		sort -u | tr '\n' ' '
}
for _ in $(seq 1 50); do # the capture may lag on a busy machine
	[ -n "$(cap_ds 2)" ] && [ -n "$(cap_ds 4)" ] && break
	sleep 0.1
done
[ "$(cap_ds 1)" = "88 " ] || fail "initiations sent with DS '$(cap_ds 1)', expected AF41 (88)"
[ "$(cap_ds 2)" = "88 " ] || fail "responses sent with DS '$(cap_ds 2)', expected AF41 (88)"
[ "$(cap_ds 4)" = "00 " ] || fail "ping data sent with DS '$(cap_ds 4)', expected 00"
ok "handshake messages AF41, data DSCP 0"

# outer_ds ADDR LEN TOS...: sends two datagrams with each TOS to ADDR and
# prints "TOS:DS" for each, DS the outer DS fields (unique) of the data
# messages that carried them (the first LEN payload bytes, each next TOS's
# 16 more)
outer_ds() {
	addr=$1 len=$2
	shift 2
	from=$(($(wc -l <"$T/cap") + 1))
	ip netns exec "$N1" python3 "$PROBE" send "$addr" 9 "$(printf '0x%s\n' "$@" | paste -sd,)" 2
	for _ in $(seq 1 50); do # the capture may lag on a busy machine
		tail -n +"$from" "$T/cap" | awk -v p="$P2" '$3 == p && $4 == 4 { print $5, $1 }' >"$T/ds"
		[ "$(wc -l <"$T/ds")" -ge $((2 * $#)) ] && break
		sleep 0.1
	done
	for tos; do
		printf '%s:%s ' "$tos" "$(awk -v l="$len" '$1 == l { print $2 }' "$T/ds" | sort -u | tr '\n' ' ')"
		len=$((len + 16))
	done
}
# inner TOS -> outer DS: ECN bits kept (CE as ECT(0)), DSCP dropped
want="02:02  01:01  03:02  00:00  ba:02  b8:00  "
got=$(outer_ds "$(tun4 2)" 176 02 01 03 00 ba b8)
[ "$got" = "$want" ] || fail "inner TOS:outer DS '$got', expected '$want'"
got=$(outer_ds "$(tun6 2)" 192 02 01 03 00 ba b8)
[ "$got" = "$want" ] || fail "inner traffic class:outer DS '$got', expected '$want'"
ok "outer ECN bits from the inner packet (IPv4, IPv6 inside)"

# inner_marks IPT ADDR SETTOS CASES...: with the receiver's underlay
# marking the outer header (iptables TOS --set-tos SETTOS), each SENT:WANT
# is sent from side 1 and must arrive at side 2's application as WANT
inner_marks() {
	ipt=$1 addr=$2 set=$3
	shift 3
	ip netns exec "$N2" "$ipt" -t mangle -F PREROUTING
	ip netns exec "$N2" "$ipt" -t mangle -A PREROUTING -i eth0 -p udp --dport "$P2" \
		-j TOS --set-tos "$set" || fail "$ipt TOS target"
	: >"$T/recv" # here, not in the background job: it must not see the last "ready"
	ip netns exec "$N2" python3 "$PROBE" recv "$addr" "$PORT" $# 10 >>"$T/recv" &
	rpid=$!
	PIDS="$PIDS $rpid"
	wait_in "$T/recv" ready || fail "receiver did not start"
	ip netns exec "$N1" python3 "$PROBE" send "$addr" "$PORT" \
		"$(printf '0x%s\n' "$@" | cut -d: -f1 | paste -sd,)" 1
	wait "$rpid"
	want=$(printf '%s\n' "$@" | tr ':' ' ')
	got=$(grep -v ready "$T/recv")
	[ "$got" = "$want" ] || fail "outer $set ($ipt, to $addr): got
$got
expected
$want"
}
for addr in "$(tun4 2)" "$(tun6 2)"; do
	inner_marks iptables "$addr" 0x03/0x03 02:03 01:03 03:03 00:00 ba:bb b8:b8
	inner_marks iptables "$addr" 0x01/0x03 02:01 01:01 03:03 00:00 ba:b9
	inner_marks iptables "$addr" 0x02/0x03 02:02 01:01 00:00
done
ok "outer CE / ECT(1) mark ECT inner packets, not-ECT ones pass unchanged (IPv4 underlay)"

ip netns exec "$N2" iptables -t mangle -F PREROUTING
ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" endpoint "[$(ul6 2)]:$P2"
ping_ok "$N1" "$(tun6 2)" 2 || { cat "$T/ping.out"; fail "ping over the IPv6 underlay"; }
for addr in "$(tun4 2)" "$(tun6 2)"; do
	inner_marks ip6tables "$addr" 0x03/0x03 02:03 00:00 ba:bb
	inner_marks ip6tables "$addr" 0x01/0x03 02:01 00:00
done
got=$(outer_ds "$(tun4 2)" 176 02 03 00)
[ "$got" = "02:02  03:02  00:00  " ] || fail "IPv6 underlay: inner TOS:outer DS '$got'"
got=$(outer_ds "$(tun6 2)" 192 02 03 00)
[ "$got" = "02:02  03:02  00:00  " ] || fail "IPv6 underlay: inner traffic class:outer DS '$got'"
ok "the same over the IPv6 underlay"
touch "$T/stop"
echo PASS
