#!/bin/sh
# sanitize: skip  (zinctun's code paths here are those the wireguard-go and boringtun interop tests run under ASan; the guest's boot and emulated traffic cost ~20 s a run)
# tsan: skip  (likewise: the same daemon threads as test_e2e_interop under TSan)
# zinctun <-> the Linux kernel's WireGuard module (Debian 12's kernel in a
# qemu guest: lib_kvm.sh). zinctun initiates over an IPv4 underlay, then
# (peers removed and re-added: a fresh handshake) the kernel initiates over
# IPv6; each time ping IPv4 and IPv6 inside, both ways, and wg show on both
# sides, whose transfer counters mirror each other; then a short iperf3 each way, whose bytes both sides' transfer
# counters must show: the sender's tx and the receiver's rx grow by at least
# what iperf3 delivered, and the receiver decrypts no more than was sent.
# SKIP (77) when qemu or the kernel image is not to be had.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
. "$(dirname "$0")/lib_kvm.sh"

kvm_need
KVM_BINS=iperf3
kvm_pair
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
