#!/bin/sh
# Live reconfiguration and recovery: a private key change drops the old
# sessions (the peer still knowing the old key cannot talk) until the peer
# learns the new public key; a listen port change is followed by the peer;
# a restarted daemon (same configuration) is reconnected by a new handshake.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

connect_pair "${IMPL1:-zinctun}" "${IMPL2:-zinctun}"
ping_ok "$N2" "$(tun4 1)" 2 || fail "ping 2 -> 1"

# -- private key change on side 1
genkeys k1new
ip netns exec "$N1" wg set "$I1" private-key "$T/k1new.key" || fail "set new key"
[ "$(ip netns exec "$N1" wg show "$I1" public-key)" = "$(pub k1new)" ] || fail "new public key"
ping_ok "$N1" "$(tun4 2)" 2 && fail "old sessions survived the private key change"
ok "old sessions dropped after the key change"
ip netns exec "$N2" wg set "$I2" peer "$(pub k1)" remove
# side 1's retries are paced by REKEY_TIMEOUT (5 s): side 2 initiates
add_peer "$N2" "$I2" k1new "$(tun4 1)/32,$(tun6 1)/128" "$(ul4 1):$P1"
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
