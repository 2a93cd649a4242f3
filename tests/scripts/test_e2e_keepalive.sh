#!/bin/sh
# Persistent keepalive on the wire: with no traffic, side 2's received
# bytes from side 1 stay put; with persistent-keepalive 1 on side 1 they
# grow by 32-byte keepalives (counted through wg show transfer, as tcpdump
# may be missing). Turning it off stops them again.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

connect_pair "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
rx() { set -- $(wg_field "$N2" "$I2" transfer k1); echo "$1"; }
# let the passive keepalive after the ping (10 s) not disturb: measure
# a quiet window right away, shorter than KEEPALIVE_TIMEOUT
sleep 0.5
a=$(rx); sleep 2; b=$(rx)
[ "$a" = "$b" ] || fail "bytes arrived without traffic or keepalive ($a -> $b)"
ok "quiet without keepalive ($a bytes)"

ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" persistent-keepalive 1 || fail "set keepalive"
[ "$(ip netns exec "$N1" wg show "$I1" persistent-keepalive | awk '{print $2}')" = 1 ] ||
	fail "keepalive not reported"
a=$(rx); sleep 3.5; b=$(rx)
d=$((b - a))
[ "$d" -ge 96 ] || fail "expected >= 3 keepalives in 3.5 s, got $d bytes"
[ $((d % 32)) -eq 0 ] || fail "received $d bytes: not whole 32-byte keepalives"
ok "persistent keepalive: $((d / 32)) keepalives in 3.5 s"

ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" persistent-keepalive 0 || fail "keepalive off"
sleep 1.2
a=$(rx); sleep 2.5; b=$(rx)
# a passive keepalive may still answer side 2's traffic: at most one
[ $((b - a)) -le 32 ] || fail "keepalives continue after turning it off ($((b - a)) bytes)"
ok "keepalive off"
echo PASS
