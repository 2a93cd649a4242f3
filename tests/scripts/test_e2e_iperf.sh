#!/bin/sh
# Bulk traffic: iperf3 TCP and UDP in both directions through zinctun <->
# zinctun, then TCP both ways between zinctun and wireguard-go.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
(
	fresh_env s
	connect_pair "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
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
