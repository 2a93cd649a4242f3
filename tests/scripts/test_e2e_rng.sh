#!/bin/sh
# The RNG gate end to end: a running zinctun (the victim, namespace 1) is
# made to see an unseeded system RNG through the ZINC_RNG_UNSEEDED_FILE
# test seam of build/zinctun-testhooks (the shipped zinctun has none),
# while it has an established session with peer P (zinctun, namespace 2).
# Then:
#  - the existing session keeps carrying pings (no randomness needed);
#  - a new peer Q (wireguard-go, namespace 3) gets ZERO answers to its
#    handshake initiations: nothing at all leaves the victim towards Q
#    (tcpdump on the victim's side), the engine counts the drops
#    (handshakes_dropped_rng, SIGUSR1 stats line) and the daemon logs them
#    at info level;
#  - once the file is gone, Q's handshake completes.
# Then a second zinctun W (namespace 4), a client behind NAT that starts
# unseeded (early boot): its peers know no endpoint for it, so only W can
# bring a session up. While unseeded it sends nothing, neither to P
# (persistent keepalive) nor to Q (a packet staged by one ping); once the
# file is gone both handshakes complete with no new TUN traffic.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

command -v tcpdump >/dev/null || fail "tcpdump missing"
[ -x "$WGGO" ] || fail "wireguard-go missing"

ns_setup 4
V=$(ns_name 1) P=$(ns_name 2) Q=$(ns_name 3)
IV=$(ifname v) IP_=$(ifname p) IQ=$(ifname q)
genkeys kv
genkeys kp
genkeys kq
# the daemon runs as nobody: the flag lives where nobody may look
FLAGDIR=$(mktemp -d /tmp/zt-rng.XXXXXX)
chmod 0755 "$FLAGDIR"
trap 'rm -rf "$FLAGDIR"; cleanup' EXIT
FLAG=$FLAGDIR/rng-unseeded
PORT=51820

start_daemon zinctun-testhooks "$V" "$IV" LOG_LEVEL=info ZINC_RNG_UNSEEDED_FILE="$FLAG"
VPID=$LAST_PID
start_daemon zinctun "$P" "$IP_"
start_daemon wireguard-go "$Q" "$IQ"
conf_iface "$V" "$IV" kv 1 "$PORT"
conf_iface "$P" "$IP_" kp 2
conf_iface "$Q" "$IQ" kq 3
add_peer "$V" "$IV" kp "$(tun4 2)/32"
add_peer "$V" "$IV" kq "$(tun4 3)/32"
add_peer "$P" "$IP_" kv "$(tun4 1)/32" "$(ul4 1):$PORT"

ping_ok "$P" "$(tun4 1)" 3 || { cat "$T/ping.out"; fail "no session with P before the flip"; }
ok "session V<->P up"

# Engine counter from the SIGUSR1 stats line.
dropped_rng() {
	before=$(grep -c 'stats:' "$T/$IV.log")
	kill -USR1 "$VPID"
	for _ in $(seq 1 30); do
		[ "$(grep -c 'stats:' "$T/$IV.log")" -gt "$before" ] && break
		sleep 0.1
	done
	grep 'stats:' "$T/$IV.log" | tail -n 1 | sed -n 's/.*handshakes_dropped_rng=\([0-9]*\).*/\1/p'
}
d0=$(dropped_rng)
[ -n "$d0" ] || fail "no stats line"

# Everything on the victim's side of the segment, for the whole unseeded phase.
ip netns exec "$V" tcpdump -n -U -i br0 -w "$T/cap.pcap" "udp port $PORT" >"$T/tcpdump.log" 2>&1 &
TPID=$!
PIDS="$PIDS $TPID"
for _ in $(seq 1 30); do
	grep -q "listening on" "$T/tcpdump.log" && break
	sleep 0.1
done

log "RNG unseeded"
touch "$FLAG"
ping_ok "$P" "$(tun4 1)" 5 || { cat "$T/ping.out"; fail "existing session broke while unseeded"; }
ok "existing session passes pings while unseeded"

# Q initiates (first initiation now, a retry ~5 s later); no answer may come.
add_peer "$Q" "$IQ" kv "$(tun4 1)/32" "$(ul4 1):$PORT"
ip netns exec "$Q" ping -c 8 -i 1 -W 1 "$(tun4 1)" >"$T/qping.out" 2>&1 &&
	fail "Q reached the victim while its RNG was unseeded"
hsq=$(wg_field "$Q" "$IQ" latest-handshakes kv)
[ "${hsq:-0}" = 0 ] || fail "Q has a handshake with the victim: $hsq"
d1=$(dropped_rng)
[ "$d1" -gt "$d0" ] || fail "handshakes_dropped_rng did not grow ($d0 -> $d1)"
ok "engine dropped $((d1 - d0)) handshake(s) for the unseeded RNG"

# The info line comes at the next 10 s check.
for _ in $(seq 1 120); do
	grep -q "handshake(s) dropped in the last .* RNG is not seeded" "$T/$IV.log" && break
	sleep 0.1
done
line=$(grep "handshake(s) dropped in the last .* RNG is not seeded" "$T/$IV.log" | head -n 1)
[ -n "$line" ] || fail "no log line about dropped handshakes"
echo "$line" | grep -q "^INFO" || fail "not an info line: $line"
ok "logged: $line"

kill "$TPID"
wait "$TPID" 2>/dev/null
from_q=$(tcpdump -n -r "$T/cap.pcap" "src host $(ul4 3) and udp[8] = 1" 2>/dev/null | wc -l)
to_q=$(tcpdump -n -r "$T/cap.pcap" "dst host $(ul4 3)" 2>/dev/null | wc -l)
to_q_resp=$(tcpdump -n -r "$T/cap.pcap" "dst host $(ul4 3) and udp[8] = 2" 2>/dev/null | wc -l)
[ "$from_q" -ge 2 ] || fail "capture saw $from_q initiations from Q (expected >= 2)"
[ "$to_q" = 0 ] || fail "the victim sent $to_q datagrams to Q ($to_q_resp responses)"
ok "capture: $from_q initiations from Q, 0 datagrams (0 responses) to Q"

log "RNG seeded again"
rm -f "$FLAG"
done_=0
for _ in $(seq 1 15); do
	if ip netns exec "$Q" ping -c 1 -W 1 "$(tun4 1)" >/dev/null 2>&1; then
		done_=1
		break
	fi
done
[ "$done_" = 1 ] || fail "Q's handshake did not complete once seeded"
hsq=$(wg_field "$Q" "$IQ" latest-handshakes kv)
[ "${hsq:-0}" -gt 0 ] || fail "Q shows no handshake"
ping_ok "$P" "$(tun4 1)" 3 || fail "P lost its session"
ok "Q's handshake completed after the flip; P still up"

log "W starts with the RNG unseeded"
W=$(ns_name 4) IW=$(ifname w)
genkeys kw
FLAGW=$FLAGDIR/rng-unseeded-w
touch "$FLAGW"
start_daemon zinctun-testhooks "$W" "$IW" ZINC_RNG_UNSEEDED_FILE="$FLAGW"
conf_iface "$W" "$IW" kw 4
PPORT=$(listen_port "$P" "$IP_")
QPORT=$(listen_port "$Q" "$IQ")
add_peer "$P" "$IP_" kw "$(tun4 4)/32"
add_peer "$Q" "$IQ" kw "$(tun4 4)/32"
add_peer "$W" "$IW" kp "$(tun4 2)/32" "$(ul4 2):$PPORT" persistent-keepalive 5
add_peer "$W" "$IW" kq "$(tun4 3)/32" "$(ul4 3):$QPORT"
# the one packet for Q, staged: no answer can come while unseeded
ip netns exec "$W" ping -c 1 -W 1 "$(tun4 3)" >/dev/null 2>&1 &&
	fail "W reached Q while its RNG was unseeded"
sleep 3
for k in kp kq; do
	tx=$(wg_field "$W" "$IW" transfer "$k" | awk '{print $2}')
	[ "${tx:-0}" = 0 ] || fail "W sent $tx bytes to $k while unseeded"
done
ok "unseeded W sent nothing to P (keepalive) nor to Q (staged packet)"

log "W's RNG seeded"
rm -f "$FLAGW"
for _ in $(seq 1 150); do
	hp=$(wg_field "$W" "$IW" latest-handshakes kp)
	hq=$(wg_field "$W" "$IW" latest-handshakes kq)
	[ "${hp:-0}" -gt 0 ] && [ "${hq:-0}" -gt 0 ] && break
	sleep 0.1
done
silent=""
[ "${hp:-0}" -gt 0 ] || silent="$silent P (persistent keepalive)"
[ "${hq:-0}" -gt 0 ] || silent="$silent Q (staged packet)"
[ -z "$silent" ] || fail "once seeded, W did not initiate to:$silent"
rxq=$(wg_field "$Q" "$IQ" transfer kw | awk '{print $1}')
[ "${rxq:-0}" -gt 0 ] || fail "Q received nothing from W"
ok "seeded W initiated to P and Q with no new TUN traffic"
echo PASS
