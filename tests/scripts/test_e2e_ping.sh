#!/bin/sh
# zinctun <-> zinctun: each side initiating, IPv4/IPv6 inside, IPv4/IPv6
# underlay, wg show endpoint / latest handshake / transfer on both sides.
# IMPL1/IMPL2 override the implementations (wireguard-go to debug the script).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
pair_test "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
echo PASS
