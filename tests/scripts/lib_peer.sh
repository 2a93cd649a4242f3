# Interop with a peer that scripts/install-peers builds (sourced by
# test_e2e_peer_*.sh, not a test). peer_interop IMPL: zinctun initiates,
# then IMPL initiates (IPv4, then IPv6 underlay: pair_test), ping IPv4 and
# IPv6 inside, wg show on both sides, a short iperf3 each way. When the peer
# cannot be built here the test says why and exits 77 (run-tests: SKIP).
. "$(dirname "$0")/lib_netns.sh"
SKIPPED=77

# show_both: wg show of both interfaces, for the log
show_both() {
	ip netns exec "$N1" wg show "$I1" || fail "wg show $I1"
	ip netns exec "$N2" wg show "$I2" || fail "wg show $I2"
}

# scenario IMPL1 IMPL2: IMPL1 is side 1 (initiates first)
scenario() {
	pair_test "$1" "$2"
	show_both
	iperf "$N2" "$N1" "$(tun4 2)" "TCP $1 -> $2"
	iperf "$N2" "$N1" "$(tun4 2)" "TCP $2 -> $1" -R
}

peer_interop() {
	peer=$1
	need_peer "$peer" || { echo "$peer not available: $PEER_SKIP"; exit $SKIPPED; }
	log "$peer: $PEER_BIN ($PEER_VERSION)"
	(fresh_env x; scenario zinctun "$peer") || exit 1
	(fresh_env y; scenario "$peer" zinctun) || exit 1
	echo PASS
}
