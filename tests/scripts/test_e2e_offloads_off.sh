#!/bin/sh
# tsan: skip  (the same threads and hand-offs as with offloads on; make check and check-sanitize run it)
# Each offload switch turns off its own offload and no other (the daemon's
# "offloads:" line says which are on); then the ping, iperf3, MTU and
# interop end-to-end tests again with every zinctun offload switched off
# (plain TUN, no UDP GSO, no GRO), so the fallback paths stay correct.
# OFFLOADS_OFF picks a subset for the second part, e.g.
#   OFFLOADS_OFF="ZINCTUN_NO_GSO" tests/scripts/test_e2e_offloads_off.sh
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
dir=$(dirname "$0")
BUILD=${BUILD:-build}
ALL="ZINCTUN_NO_TUN_OFFLOAD ZINCTUN_NO_GSO ZINCTUN_NO_UDP_GRO ZINCTUN_NO_TUN_GRO"
OFF=${OFFLOADS_OFF:-$ALL}
log=$(mktemp /tmp/zt-offoff.XXXXXX)
ns=ztoff$$
trap 'ip netns del $ns 2>/dev/null; rm -f "$log" /var/run/wireguard/ztoff$$.sock' EXIT
ip netns add $ns || exit 1

# offloads VAR...: the daemon's "offloads:" line with VAR=1 for each VAR
offloads() {
	local env="" v pid
	for v in "$@"; do env="$env $v=1"; done
	: >"$log"
	# shellcheck disable=SC2086
	ip netns exec $ns env LOG_LEVEL=info $env "$(realpath -m "$BUILD/zinctun")" -f ztoff$$ >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 1 50); do grep -q "offloads:" "$log" && break; sleep 0.1; done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	grep "offloads:" "$log" || { echo "FAIL: no offloads line with$env: $(cat "$log")" >&2; exit 1; }
}

# want LINE WORDS...: each of "tun GRO on", "UDP GRO off", ... is in LINE
want() {
	local line=$1 w
	shift
	for w in "$@"; do
		case "$line" in *"$w"*) ;; *) echo "FAIL: '$w' expected: $line"; exit 1 ;; esac
	done
}

line=$(offloads) || exit 1
echo "defaults: $line"
case "$line" in
*"vnet header on"*)
	want "$line" "tun GRO on" "UDP GSO on"
	# the two GRO switches are apart: each leaves the other offload on
	line=$(offloads ZINCTUN_NO_TUN_GRO) || exit 1
	want "$line" "tun GRO off" "UDP GRO on" "vnet header on"
	line=$(offloads ZINCTUN_NO_UDP_GRO) || exit 1
	want "$line" "tun GRO on" "UDP GRO off"
	echo "ok: ZINCTUN_NO_TUN_GRO and ZINCTUN_NO_UDP_GRO each turn off their own"
	;;
*) echo "no TUN vnet header here: the TUN GRO switch is not told apart" ;;
esac

line=$(offloads $OFF) || exit 1
echo "daemon: $line"
for v in $OFF; do
	case $v in
	ZINCTUN_NO_GSO) want "$line" "UDP GSO off" ;;
	ZINCTUN_NO_UDP_GRO) want "$line" "UDP GRO off" ;;
	ZINCTUN_NO_TUN_GRO) want "$line" "tun GRO off" ;;
	ZINCTUN_NO_TUN_OFFLOAD) want "$line" "vnet header off" ;;
	esac
	export "$v=1"
done
for t in ping iperf mtu interop; do
	echo "== test_e2e_$t with ${OFFLOADS_OFF:-all offloads off}"
	bash "$dir/test_e2e_$t.sh" || { echo "FAIL: test_e2e_$t with offloads off"; exit 1; }
done
echo PASS
