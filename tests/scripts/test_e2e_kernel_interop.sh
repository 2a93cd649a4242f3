#!/bin/sh
# sanitize: skip  (zinctun's code paths here are those the wireguard-go and boringtun interop tests run under ASan, the ECN code in test_e2e_ecn; the guest's boot and emulated traffic cost ~40 s a run)
# tsan: skip  (likewise: the same daemon threads as test_e2e_interop under TSan)
# zinctun <-> the Linux kernel's WireGuard module (Debian 12's kernel in a
# qemu guest: lib_kvm.sh). zinctun initiates over an IPv4 underlay, then
# (peers removed and re-added: a fresh handshake) the kernel initiates over
# IPv6; each time ping IPv4 and IPv6 inside, both ways, and wg show on both
# sides, whose transfer counters mirror each other; then a short iperf3 each way, whose bytes both sides' transfer
# counters must show: the sender's tx and the receiver's rx grow by at least
# what iperf3 delivered, and the receiver decrypts no more than was sent.
# ECN and DSCP against the module (issue 26), both ways, IPv4 and IPv6
# inside, IPv4 underlay: each side's outer ECN bits from an inner ECT(0),
# ECT(1), CE, not-ECT packet (CE as ECT(0), the inner DSCP never outside),
# as the other side delivers them, and with an outer CE set on the tap
# (iptables TOS): CE inside for an ECT packet, not-ECT unchanged. Handshake
# messages from both sides (each initiating once) AF41, data DSCP 0.
# SKIP (77) when qemu or the kernel image is not to be had.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
. "$(dirname "$0")/lib_kvm.sh"

kvm_need
KVM_BINS="iperf3 tcpdump ping"
PROBE=$TESTS_DIR/../tools/tosprobe.py
kvm_pair
# the underlay, both ways, until the iperf3 runs: "DS SPORT DPORT TYPE LEN"
: >"$T/cap"
ip netns exec "$N1" python3 "$PROBE" capture "$KVM_TAP" "$T/cap" "$T/stop" &
PIDS="$PIDS $!"
wait_in "$T/cap" ready || fail "capture did not start"
G=$KVM_GUEST_PORT
ALLOWED_G="$(tun4 2)/32,$(tun6 2)/128" ALLOWED_Z="$(tun4 1)/32,$(tun6 1)/128"

# transfer_of: "zinctun-rx zinctun-tx kernel-rx kernel-tx" for the one peer
transfer_of() {
	echo "$(wg_field "$N1" "$I1" transfer k2) $(kvm_wg_field transfer k1)"
}

# mirrored LABEL: with nothing in flight and nothing lost, each side's rx is
# the other's tx: both count the same bytes (whole WireGuard messages,
# handshakes included)
mirrored() {
	set -- "$1" $(transfer_of)
	[ "$2" = "$5" ] && [ "$3" = "$4" ] ||
		fail "transfer counters ($1): zinctun rx $2 tx $3, kernel rx $4 tx $5"
	ok "transfer counters mirrored ($1): zinctun rx $2 = kernel tx, zinctun tx $3 = kernel rx"
}

# pings NS-side first (zinctun initiates) or guest first
ping_both() {
	local a
	for a in "$(tun4 "$1")" "$(tun6 "$1")"; do
		ping_ok "$N1" "$a" || { cat "$T/ping.out"; fail "ping $a from zinctun ($2)"; }
	done
	for a in "$(tun4 "$3")" "$(tun6 "$3")"; do
		kvm_run "ping -c 3 -i 0.2 -W 2 $a" >"$T/ping.out" ||
			{ cat "$T/ping.out"; fail "ping $a from the kernel ($2)"; }
	done
	ok "ping v4 and v6 inside, both ways ($2)"
}

log "zinctun -> kernel over IPv4 underlay"
add_peer "$N1" "$I1" k2 "$ALLOWED_G" "$(ul4 2):$G"
kvm_run "wg set wg0 peer $(pub k1) allowed-ips $ALLOWED_Z" || fail "guest: wg set peer"
ping_both 2 "zinctun initiates" 1
check_peer_stats "$N1" "$I1" k2 "$(ul4 2):$G"
kvm_check_stats k1 "$(ul4 1):$P1"
mirrored "zinctun initiates"

log "ECN both ways against the module (IPv4 underlay)"
# ds_of: "LEN DS" (total length, DS field in hex) of each packet in tcpdump -nv output
ds_of() {
	awk 'function out(l, d) { printf "%d %s\n", l, (length(d) < 2 ? "0" d : d) }
	/^[0-9:.]+ IP \(tos / { match($0, /tos 0x[0-9a-f]+/); d = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /length [0-9]+\)/); out(substr($0, RSTART + 7, RLENGTH - 8), d) }
	/^[0-9:.]+ IP6 \(/ { d = "0"; if (match($0, /class 0x[0-9a-f]+/)) d = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /payload length: [0-9]+/); out(substr($0, RSTART + 16, RLENGTH - 16) + 40, d) }'
}
# expect WHAT FILE LEN:DS...: the packets of each LEN in FILE ("LEN DS" lines)
# have that DS, and there are some
expect() {
	local what=$1 f=$2 c got
	shift 2
	for c; do
		got=$(awk -v l="${c%:*}" '$1 == l { print $2 }' "$f" | sort -u | tr '\n' ' ')
		[ "$got" = "${c#*:} " ] || { cat "$f"; fail "$what: length ${c%:*} with DS '$got', expected ${c#*:}"; }
	done
}
# outer_since LINE SPORT FILE: "LEN DS" of the captured data messages from
# SPORT after line LINE of the capture, into FILE once there are N (4th arg)
outer_since() {
	for _ in $(seq 1 50); do # the capture may lag on a busy machine
		tail -n +"$(($1 + 1))" "$T/cap" | awk -v p="$2" '$2 == p && $4 == 4 { print $5, $1 }' >"$3"
		[ "$(wc -l <"$3")" -ge "$4" ] && return
		sleep 0.1
	done
}
# to_guest ADDR TOS...: a UDP datagram per TOS from zinctun's side to the
# guest (the i-th TOS's 16 * i bytes longer); the guest's tcpdump on wg0
# sees them: "LEN DS" in $T/inner, their data messages in $T/outer
to_guest() {
	local addr=$1 n from
	shift
	n=$# from=$(wc -l <"$T/cap")
	kvm_run "tcpdump -Z root -i wg0 -nv -c $n udp port 9 >/tmp/inner 2>&1 & $(guest_wait listening)" ||
		fail "guest: tcpdump did not start"
	ip netns exec "$N1" python3 "$PROBE" send "$addr" 9 "$(printf '0x%s\n' "$@" | paste -sd,)" 1
	kvm_run "$(guest_wait 'packets captured'); cat /tmp/inner" | ds_of >"$T/inner"
	outer_since "$from" "$P1" "$T/outer" "$n"
}
# guest_wait TEXT: a guest command line waiting (5 s at most) for TEXT in /tmp/inner
guest_wait() {
	echo "for i in \$(seq 50); do grep -q '$1' /tmp/inner && break; sleep 0.1; done; grep -q '$1' /tmp/inner"
}
# from_guest ADDR TOS...: a ping per TOS from the guest (ping -Q, the i-th
# 16 bytes longer); zinctun's TUN delivers them: "LEN DS" in $T/inner,
# their data messages in $T/outer
from_guest() {
	local addr=$1 n from tos s=56 cmd=
	shift
	n=$# from=$(wc -l <"$T/cap")
	: >"$T/td"
	ip netns exec "$N1" tcpdump -i "$I1" -l -nv -c "$n" 'icmp[0] == 8 or icmp6[0] == 128' \
		>"$T/td" 2>&1 &
	PIDS="$PIDS $!"
	wait_in "$T/td" listening || fail "tcpdump on $I1 did not start"
	for tos; do
		cmd="${cmd:+$cmd && }ping -Q 0x$tos -s $s -c 1 -W 2 $addr"
		s=$((s + 16))
	done
	kvm_run "$cmd" >"$T/ping.out" || { cat "$T/ping.out"; fail "guest: pings with -Q to $addr"; }
	wait_in "$T/td" "packets captured" 50
	ds_of <"$T/td" >"$T/inner"
	outer_since "$from" "$G" "$T/outer" "$n"
}
# tap_ce CHAIN SPORT [none]: iptables on the tap sets CE on the datagrams
# from SPORT (none: removes it)
tap_ce() {
	local rule="$1 -p udp --sport $2 -j TOS --set-tos 0x03/0x03"
	case $1 in POSTROUTING) rule="$rule -o $KVM_TAP" ;; *) rule="$rule -i $KVM_TAP" ;; esac
	ip netns exec "$N1" iptables -t mangle -F "$1"
	[ "${3:-}" = none ] || ip netns exec "$N1" iptables -t mangle -A $rule
}

# zinctun encapsulates (outer ECN from the inner packet, DSCP never), the
# module decapsulates (outer ECT(0): the inner packet unchanged)
to_guest "$(tun4 2)" 02 01 03 00 ba b8
expect "zinctun's outer DS (inner IPv4 TOS 02 01 03 00 ba b8)" "$T/outer" \
	176:02 192:01 208:02 224:00 240:02 256:00
expect "the module's inner IPv4 DS" "$T/inner" 130:02 146:01 162:03 178:00 194:ba 210:b8
to_guest "$(tun6 2)" 02 01 03 00 ba
expect "zinctun's outer DS (inner IPv6 class 02 01 03 00 ba)" "$T/outer" \
	192:02 208:01 224:02 240:00 256:02
expect "the module's inner IPv6 DS" "$T/inner" 150:02 166:01 182:03 198:00 214:ba
ok "zinctun -> module: outer ECN from the inner packet (CE as ECT(0)), inner packet unchanged"
# the module encapsulates, zinctun decapsulates: the same rules
from_guest "$(tun4 1)" 02 01 03 00 ba b8
expect "the module's outer DS (inner IPv4 TOS 02 01 03 00 ba b8)" "$T/outer" \
	128:02 144:01 160:02 176:00 192:02 208:00
expect "zinctun's inner IPv4 DS" "$T/inner" 84:02 100:01 116:03 132:00 148:ba 164:b8
from_guest "$(tun6 1)" 02 01 03 00
expect "the module's outer DS (inner IPv6 class 02 01 03 00)" "$T/outer" \
	144:02 160:01 176:02 192:00
expect "zinctun's inner IPv6 DS" "$T/inner" 104:02 120:01 136:03 152:00
ok "module -> zinctun: the module's outer ECN as zinctun's, zinctun delivers the inner packet unchanged"

# without the TOS target (xt_DSCP) the outer-CE checks are left out, saying so
if ip netns exec "$N1" iptables -t mangle -A POSTROUTING -o "$KVM_TAP" -j TOS --set-tos 0/0 2>/dev/null; then
	tap_ce POSTROUTING "$P1"
	to_guest "$(tun4 2)" 02 01 03 00 ba
	expect "outer CE to the module, its inner IPv4 DS" "$T/inner" 130:03 146:03 162:03 178:00 194:bb
	to_guest "$(tun6 2)" 02 00
	expect "outer CE to the module, its inner IPv6 DS" "$T/inner" 150:03 166:00
	tap_ce POSTROUTING "$P1" none
	tap_ce PREROUTING "$G"
	from_guest "$(tun4 1)" 02 01 03 00 ba
	expect "outer CE to zinctun, its inner IPv4 DS" "$T/inner" 84:03 100:03 116:03 132:00 148:bb
	from_guest "$(tun6 1)" 02 00
	expect "outer CE to zinctun, its inner IPv6 DS" "$T/inner" 104:03 120:00
	tap_ce PREROUTING "$G" none
	ok "an outer CE on the tap: CE inside for ECT packets, not-ECT unchanged (both ways)"
else
	echo "skip: no iptables TOS target (xt_DSCP) here: the outer-CE checks not run"
fi

log "kernel -> zinctun over IPv6 underlay"
ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" remove
add_peer "$N1" "$I1" k2 "$ALLOWED_G"
kvm_run "wg set wg0 peer $(pub k1) remove && wg set wg0 peer $(pub k1) allowed-ips $ALLOWED_Z \
	endpoint [$(ul6 1)]:$P1" || fail "guest: wg set peer (IPv6 endpoint)"
for a in "$(tun4 1)" "$(tun6 1)"; do
	kvm_run "ping -c 3 -i 0.2 -W 2 $a" >"$T/ping.out" ||
		{ cat "$T/ping.out"; fail "ping $a from the kernel (kernel initiates)"; }
done
ping_both 2 "kernel initiates" 1
check_peer_stats "$N1" "$I1" k2 "[$(ul6 2)]:$G"
kvm_check_stats k1 "[$(ul6 1)]:$P1"
mirrored "kernel initiates"
ip netns exec "$N1" wg show "$I1"
kvm_run "wg show wg0"
touch "$T/stop"
# handshakes: each side sent both kinds (each initiated once)
for p in "$P1" "$G"; do
	for t in 1 2; do
		got=$(awk -v p="$p" -v t="$t" '$2 == p && $4 == t { print $1 }' "$T/cap" | sort -u | tr '\n' ' ')
		[ "$got" = "88 " ] || fail "handshake messages of type $t from port $p: DS '$got', expected AF41 (88)"
	done
done
got=$(awk '$4 == 4 && $1 !~ /^0[0-3]$/' "$T/cap" | head -n 3)
[ -z "$got" ] || fail "data messages with a DSCP: $got"
ok "handshake messages AF41 from zinctun and the module, data messages DSCP 0"


# iperf_counted to|from: iperf3 from zinctun's side to the guest (from:
# -R, back); the bytes the receiver got are in the sender's tx and the
# receiver's rx (fields of transfer_of: 0 zinctun rx, 1 tx, 2 kernel rx, 3 tx)
iperf_counted() {
	local b a got rate sent rcvd label="zinctun -> kernel" flag=
	[ "$1" = from ] && label="kernel -> zinctun" flag=-R
	b=($(transfer_of))
	ip netns exec "$N1" timeout 30 iperf3 -c "$(tun4 2)" -t 2 -J $flag >"$T/iperf.json" 2>&1 ||
		{ cat "$T/iperf.json"; fail "iperf3 $label"; }
	set -- $(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["end"]["sum_received"]
print(r["bytes"], int(r["bits_per_second"] / 1e6))' "$T/iperf.json") || fail "iperf3 $label: no result"
	got=$1 rate=$2
	a=($(transfer_of))
	if [ -z "$flag" ]; then
		sent=$((a[1] - b[1])) rcvd=$((a[2] - b[2]))
	else
		sent=$((a[3] - b[3])) rcvd=$((a[0] - b[0]))
	fi
	[ "$got" -gt 0 ] && [ "$sent" -ge "$got" ] && [ "$rcvd" -ge "$got" ] && [ "$rcvd" -le "$sent" ] ||
		fail "iperf3 $label: $got bytes delivered, sender's tx +$sent, receiver's rx +$rcvd"
	ok "iperf3 $label: $rate Mbit/s, $got bytes delivered; sender's tx +$sent, receiver's rx +$rcvd"
}

kvm_run "iperf3 -s -D -B $(tun4 2)" || fail "guest: iperf3 -s"
iperf_counted to
iperf_counted from
echo PASS
