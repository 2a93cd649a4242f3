#!/bin/sh
# sanitize: skip  (a property of the product build; 42 s of waiting that exercises no code the other e2e tests do not)
# tsan: skip  (ThreadSanitizer's own background thread wakes up periodically)
# An idle daemon does not wake up: no polling loop, no periodic timer. The
# context switches of every thread of the daemon (from /proc) must not grow
# over a window longer than any of its intervals (the 10 s keepalive and
# RNG-report intervals), twice: configured with a peer but never used, and
# after a session passed traffic (once the passive keepalive (10 s) and the
# new-handshake deadline (15 s + jitter; a cancelled one may still wake the
# timer thread once) are past, nothing is due before the 540 s key zeroing). A
# window with a wake-up gets one clean window after it (a one-off event under
# load; anything periodic wakes the daemon in both). IPv6 is off on the tunnel
# links so that the kernel itself sends nothing into them. A client of the
# config socket wakes the daemon by right, so nothing else on the machine
# may enumerate /var/run/wireguard meanwhile (`wg show interfaces` connects
# to every socket): run it alone, as make check does.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

WINDOW=${IDLE_WINDOW:-11}

# switches PID: voluntary + involuntary context switches of all its threads
switches() {
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

# per_thread PID: "tid:syscall-it-sleeps-in:switches" for a failure report
per_thread() {
	for t in /proc/"$1"/task/*; do
		printf '%s:%s:%s ' "${t##*/}" "$(cut -d' ' -f1 "$t/syscall" 2>/dev/null)" \
			"$(awk '/ctxt_switches:/ { s += $2 } END { print s + 0 }' "$t/status")"
	done
}

# quiet LABEL: whether neither daemon woke up for WINDOW seconds (WHY says
# how they woke up if they did)
quiet() {
	a0=$(switches "$PA") b0=$(switches "$PB")
	ta0=$(per_thread "$PA") tb0=$(per_thread "$PB")
	sleep "$WINDOW"
	a1=$(switches "$PA") b1=$(switches "$PB")
	kill -0 "$PA" && kill -0 "$PB" || fail "a daemon exited"
	WHY="daemons woke up in ${WINDOW} s idle (a: $a0 -> $a1, b: $b0 -> $b1; threads tid:syscall:switches a: $ta0-> $(per_thread "$PA") b: $tb0-> $(per_thread "$PB"))"
	[ "$a1" = "$a0" ] && [ "$b1" = "$b0" ]
}
# idle_window LABEL: no wake-up of either daemon for WINDOW seconds. A window
# with a wake-up may be followed by one clean window: a one-off event (an
# address event, a deadline left by a ping lost under load) wakes a daemon
# once, anything periodic within WINDOW wakes it in both.
idle_window() {
	if ! quiet; then
		echo "note: $1: $WHY; once more"
		quiet || fail "$1, twice: $WHY"
	fi
	ok "$1: no wake-up in ${WINDOW} s (context switches a=$a1 b=$b1, unchanged)"
}
ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname a) I2=$(ifname b)
genkeys k1
genkeys k2
start_daemon zinctun "$N1" "$I1" "$@"
PA=$LAST_PID
start_daemon zinctun "$N2" "$I2" "$@"
PB=$LAST_PID
for i in 1 2; do
	ns=$(ns_name $i) ifn=$(ifname "$(echo ab | cut -c$i)")
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifn.disable_ipv6=1" || fail "sysctl"
	ip netns exec "$ns" wg set "$ifn" private-key "$T/k$i.key" listen-port 0 || fail "wg set"
	ip -n "$ns" addr add "$(tun4 $i)/24" dev "$ifn"
	ip -n "$ns" link set "$ifn" up
done
P2=$(listen_port "$N2" "$I2")
add_peer "$N1" "$I1" k2 "$(tun4 2)/32" "$(ul4 2):$P2"
add_peer "$N2" "$I2" k1 "$(tun4 1)/32"
# The daemon follows its interface's addresses (the source of its ICMP
# errors), so it hears the namespace's address events: let the underlay's
# link-local addresses finish duplicate address detection first (their
# RTM_NEWADDR is the kernel's event, not a wake-up of the daemon's own).
for ns in "$N1" "$N2"; do
	for _ in $(seq 1 50); do
		[ -z "$(ip -n "$ns" -6 addr show tentative)" ] && break
		sleep 0.1
	done
done
sleep 1

idle_window "configured, never used"

ping_ok "$N1" "$(tun4 2)" 3 || { cat "$T/ping.out"; fail "ping through the tunnel"; }
ok "session up"
sleep 17
# (a ping lost under load leaves the new-handshake deadline due, and that
# handshake's cancelled retransmit timer may wake the timer thread once more)
idle_window "after traffic"
