#!/bin/sh
# Live reconfiguration and recovery: a private key change stops the old
# sessions from sending but not from receiving (no packet of the peer lost)
# until the peer learns the new public key; a listen port change is followed by the peer;
# a restarted daemon (same configuration) is reconnected by a new handshake.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

connect_pair "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
ping_ok "$N2" "$(tun4 1)" 2 || fail "ping 2 -> 1"

# -- private key change on side 1 while side 2 pings it at 20/s: as in the
# Linux module the old session stops sending but keeps receiving, so no
# packet from side 2 is lost while it learns the new key (3 s later); side
# 1's replies wait for the new handshake and ping counts them late.
ip netns exec "$N2" ping -i 0.05 -c 120 -W 10 "$(tun4 1)" >"$T/keyping.out" 2>&1 &
KPING=$!
PIDS="$PIDS $KPING"
sleep 1
genkeys k1new
ip netns exec "$N1" wg set "$I1" private-key "$T/k1new.key" || fail "set new key"
[ "$(ip netns exec "$N1" wg show "$I1" public-key)" = "$(pub k1new)" ] || fail "new public key"
ip netns exec "$N1" ping -c 1 -W 2 "$(tun4 2)" >/dev/null 2>&1 &&
	fail "the old session still sends after the key change"
ok "old session stopped sending after the key change"
sleep 1
# the new peer first (its allowed IPs move to it), then the old one goes:
# in between side 2 would have no route and answer its own pings with
# "unreachable"
add_peer "$N2" "$I2" k1new "$(tun4 1)/32,$(tun6 1)/128" "$(ul4 1):$P1"
ip netns exec "$N2" wg set "$I2" peer "$(pub k1)" remove
wait "$KPING"
grep -q " 120 received" "$T/keyping.out" ||
	{ cat "$T/keyping.out"; fail "packets lost across the private key change"; }
ok "120 of 120 pings across the private key change"
ping_ok "$N2" "$(tun6 1)" || { cat "$T/ping.out"; fail "ping with the new key"; }
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping back with the new key"; }
ok "handshake with the new key"

# -- listen port change on side 2: side 1 still reaches it once told,
# and side 2's new port is learned by roaming when side 2 speaks first
NEWP=$(( $(listen_port "$N2" "$I2") % 20000 + 30000 ))
ip netns exec "$N2" wg set "$I2" listen-port "$NEWP" || fail "listen-port"
[ "$(listen_port "$N2" "$I2")" = "$NEWP" ] || fail "new port not reported"
ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "ping from the new port"; }
[ "$(wg_field "$N1" "$I1" endpoints k2)" = "$(ul4 2):$NEWP" ] ||
	fail "side 1 did not learn the new port: $(wg_field "$N1" "$I1" endpoints k2)"
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping to the new port"; }
ok "listen port $NEWP rebound and learned"

# -- restart recovery: side 1 restarts with its configuration
ip netns exec "$N1" wg showconf "$I1" >"$T/saved.conf"
P=$(eval echo \$PID_$I1)
kill "$P"
wait_gone "$P" || fail "side 1 did not stop"
start_daemon "${IMPL1:-zinctun}" "$N1" "$I1"
ip netns exec "$N1" wg setconf "$I1" "$T/saved.conf" || fail "setconf after restart"
ip -n "$N1" addr add "$(tun4 1)/24" dev "$I1"
ip -n "$N1" addr add "$(tun6 1)/64" dev "$I1" nodad
ip -n "$N1" link set "$I1" up
ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping after restart (side 1 initiates)"; }
ping_ok "$N2" "$(tun6 1)" || { cat "$T/ping.out"; fail "ping after restart (side 2)"; }
ok "restarted side reconnects"
echo PASS
