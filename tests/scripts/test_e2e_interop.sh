#!/bin/sh
# zinctun <-> wireguard-go, both role assignments: each implementation
# initiates over an IPv4 and over an IPv6 underlay; ping IPv4 and IPv6
# inside; wg show endpoint / latest handshake / transfer on both sides.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
[ -x "$WGGO" ] || fail "wireguard-go not installed"
(fresh_env x; pair_test zinctun wireguard-go) || exit 1
(fresh_env y; pair_test wireguard-go zinctun) || exit 1
echo PASS
