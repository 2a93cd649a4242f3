#!/bin/sh
# Multi-queue TUN (ZINCTUN_TUN_QUEUES=2): the interface is made with
# IFF_MULTI_QUEUE and two queues, each read by its own thread ("tun-q0",
# "tun-q1"); TCP with 16 streams both ways must pass, and both reader
# threads must have read packets (the kernel spreads flows over the queues
# by their hash: with 16 flows all on one queue has odds 2^-15).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

# rchar of the thread named NAME in process PID (bytes its read calls got)
thread_rchar() {
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] || continue
		awk '$1 == "rchar:" { print $2 }' "$t/io"
		return
	done
	echo -1
}

(
	fresh_env q
	export ZINCTUN_TUN_QUEUES=2
	connect_pair zinctun zinctun
	for side in "$N1 $I1" "$N2 $I2"; do
		set -- $side
		ip -d -n "$1" link show "$2" | grep -q "multi_queue numqueues 2" ||
			{ ip -d -n "$1" link show "$2"; fail "$2: not a 2-queue TUN"; }
		grep -q "tun: 2 queues" "$T/$2.log" || { cat "$T/$2.log"; fail "$2: no queue log line"; }
	done
	ok "both interfaces have two TUN queues"
	iperf "$N2" "$N1" "$(tun4 2)" "TCP 1->2, 16 streams" -P 16
	iperf "$N2" "$N1" "$(tun4 2)" "TCP 2->1, 16 streams" -P 16 -R
	ping_ok "$N1" "$(tun6 2)" 3 || fail "ping over IPv6 inside"
	for pid in $(eval echo "\$PID_$I1") $(eval echo "\$PID_$I2"); do
		for q in tun-q0 tun-q1; do
			r=$(thread_rchar "$pid" "$q")
			[ "$r" -gt 1000000 ] || fail "daemon $pid: thread $q read only $r bytes"
			ok "daemon $pid: $q read $r bytes"
		done
	done
) || exit 1
echo PASS
