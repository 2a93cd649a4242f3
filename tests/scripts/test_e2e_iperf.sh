#!/bin/sh
# Bulk traffic: iperf3 TCP and UDP in both directions through zinctun <->
# zinctun, then TCP both ways between zinctun and wireguard-go.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
(
	fresh_env s
	# the worker count decides the policy (datapath.c): side 1 with two
	# workers fans out opens and hands super-packets to the batch's
	# fan-out, side 2 with one opens inline and seals super-packets as it
	# segments them, so this test (and its TSan run) covers all four paths
	ENV1=ZINCTUN_WORKERS=2 ENV2=ZINCTUN_WORKERS=1
	connect_pair "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
	if [ "${IMPL1:-zinctun}" = zinctun ]; then
		grep -q "2 crypto worker threads (receive side too, super-packets sealed by the batch)" "$T/$I1.log" ||
			{ cat "$T/$I1.log"; fail "side 1: not fan-out on both sides"; }
	fi
	if [ "${IMPL2:-zinctun}" = zinctun ]; then
		grep -q "1 crypto worker thread (receive side inline, super-packets sealed as segmented)" "$T/$I2.log" ||
			{ cat "$T/$I2.log"; fail "side 2: inline opens or fused sealing not on"; }
	fi
	iperf "$N2" "$N1" "$(tun4 2)" "TCP 1->2"
	iperf "$N2" "$N1" "$(tun4 2)" "TCP 2->1" -R
	iperf "$N2" "$N1" "$(tun4 2)" "UDP 1->2" -u -b 200M
	iperf "$N2" "$N1" "$(tun4 2)" "UDP 2->1" -u -b 200M -R
	iperf "$N2" "$N1" "$(tun6 2)" "TCP over IPv6 inside"
) || exit 1
(
	fresh_env g
	connect_pair zinctun "${IMPL3:-wireguard-go}"
	iperf "$N2" "$N1" "$(tun4 2)" "TCP zinctun->wireguard-go"
	iperf "$N2" "$N1" "$(tun4 2)" "TCP wireguard-go->zinctun" -R
) || exit 1
echo PASS
