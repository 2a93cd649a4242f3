#!/bin/sh
# tsan: skip  (the same threads and hand-offs as with offloads on; make check and check-sanitize run it)
# The ping, iperf3, MTU and interop end-to-end tests again with every
# zinctun offload switched off (plain TUN, no UDP GSO, no GRO), so the
# fallback paths stay correct. OFFLOADS_OFF picks a subset, e.g.
#   OFFLOADS_OFF="ZINCTUN_NO_GSO" tests/scripts/test_e2e_offloads_off.sh
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
dir=$(dirname "$0")
for v in ${OFFLOADS_OFF:-ZINCTUN_NO_TUN_OFFLOAD ZINCTUN_NO_GSO ZINCTUN_NO_GRO}; do
	export "$v=1"
done
# the daemon must report the offloads as off
BUILD=${BUILD:-build}
log=$(mktemp /tmp/zt-offoff.XXXXXX)
ns=ztoff$$
ip netns add $ns || exit 1
ip netns exec $ns env LOG_LEVEL=info "$(realpath -m "$BUILD/zinctun")" -f ztoff$$ >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do grep -q "offloads:" "$log" && break; sleep 0.1; done
kill $pid 2>/dev/null
wait $pid 2>/dev/null
ip netns del $ns
line=$(grep "offloads:" "$log")
rm -f "$log" /var/run/wireguard/ztoff$$.sock
echo "daemon: $line"
case " ${OFFLOADS_OFF:-ZINCTUN_NO_TUN_OFFLOAD ZINCTUN_NO_GSO ZINCTUN_NO_GRO} " in
*" ZINCTUN_NO_GSO "*) echo "$line" | grep -q "UDP GSO off" || { echo "FAIL: GSO not off"; exit 1; } ;;
esac
case " ${OFFLOADS_OFF:-ZINCTUN_NO_TUN_OFFLOAD ZINCTUN_NO_GSO ZINCTUN_NO_GRO} " in
*" ZINCTUN_NO_TUN_OFFLOAD "*) echo "$line" | grep -q "vnet header off" || { echo "FAIL: TUN offload not off"; exit 1; } ;;
esac
for t in ping iperf mtu interop; do
	echo "== test_e2e_$t with ${OFFLOADS_OFF:-all offloads off}"
	bash "$dir/test_e2e_$t.sh" || { echo "FAIL: test_e2e_$t with offloads off"; exit 1; }
done
echo PASS
