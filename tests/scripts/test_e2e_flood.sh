#!/bin/sh
# Handshake flood against a daemon that serves a real peer.
#
# Namespace 1 runs the victim (zinctun; with FLOOD_IMPLS="zinctun
# wireguard-go", as `make bench-flood` runs it, wireguard-go after it for
# comparison),
# namespace 2 a real peer (zinctun; FLOOD_PEER=wireguard-go for that one),
# namespace 3 the flood tool, which
# sends handshake initiations with a valid mac1 (then garbage) from spoofed
# sources in 10.201.0.0/16, routed back to namespace 3, so every cookie reply
# the victim sends arrives on namespace 3's eth0 and is counted there.
# For each flood: achieved rate, cookie replies, victim CPU and RSS before /
# during / after, the real peer's ping loss through the tunnel during the
# flood, and a forced new handshake of the real peer that must complete while
# the flood goes on. zinctun must keep loss < 1 %, complete the handshake
# under flood, answer initiations with cookies and keep its memory flat;
# wireguard-go's figures are reported only. The real peer retries with mac2
# as soon as the cookie reply arrives when it is zinctun, so that handshake
# must take at most FLOOD_HS_MAX seconds (2.5: ~0.2 s measured, the rest is
# for a shared machine) in the best of up to FLOOD_HS_TRIES (3) tries; an
# initiator that waits REKEY_TIMEOUT takes ~5 s.
#
# FLOOD_SECONDS (20), FLOOD_RATE (50000 packets/s), FLOOD_IMPLS ("zinctun";
# wireguard-go only reports, so make check leaves it to make bench-flood),
# FLOOD_MODES ("init garbage") tune the run.
#
# On a sanitizer build (SANITIZE set: ASan+UBSan, or "thread" for TSan) the
# loss, handshake-latency and memory bounds assume an optimized daemon, so a
# reduced run (12 s at 10000/s, zinctun only) asserts only what still holds:
# the daemon survives both floods and exits cleanly (status 0 on SIGTERM, so
# no sanitizer report and no leak at exit), init floods draw cookie replies,
# garbage draws none, and the real peer handshakes again and pings through,
# during the flood or at the latest 15 s after it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

REDUCED=0
[ -n "${SANITIZE:-}" ] && REDUCED=1
if [ $REDUCED = 1 ]; then
	S=${FLOOD_SECONDS:-12}
	RATE=${FLOOD_RATE:-10000}
	IMPLS=${FLOOD_IMPLS:-zinctun}
else
	S=${FLOOD_SECONDS:-20}
	RATE=${FLOOD_RATE:-50000}
	IMPLS=${FLOOD_IMPLS:-zinctun}
fi
MODES=${FLOOD_MODES:-init garbage}
PEER_IMPL=${FLOOD_PEER:-zinctun}
HS_MAX=${FLOOD_HS_MAX:-2.5}
HS_MAX_MS=$(awk -v s="$HS_MAX" 'BEGIN { if (s + 0 > 0) printf "%d", s * 1000 }')
HS_TRIES=${FLOOD_HS_TRIES:-3}
FLOOD=$(realpath -m "$BUILD/tools/flood")
SPOOF=10.201.0.0/16
PORT=51820
TCK=$(getconf CLK_TCK)
RSS_GROWTH_MAX_KB=${RSS_GROWTH_MAX_KB:-16384}
[ -x "$FLOOD" ] || fail "missing $FLOOD"
[ -n "$HS_MAX_MS" ] || fail "FLOOD_HS_MAX '$HS_MAX' is not a number of seconds"
[ "$S" -ge 12 ] || fail "FLOOD_SECONDS must be >= 12 (a handshake under load takes ~5 s)"
# Ping through the old session for half the flood, but leave >= 8 s of
# flood for the new handshake (cookie reply, then a retry: at once from
# zinctun, after 5 s from an initiator that waits REKEY_TIMEOUT).
PING_SECS=$((S / 2))
[ $((S - 1 - PING_SECS)) -ge 8 ] || PING_SECS=$((S - 9))

ns_setup 3
V=$(ns_name 1) P=$(ns_name 2) F=$(ns_name 3)
ip -n "$V" route add "$SPOOF" via "$(ul4 3)" || fail "route"
genkeys kv
genkeys kp

IP_=$(ifname p)
start_daemon "$PEER_IMPL" "$P" "$IP_"
conf_iface "$P" "$IP_" kp 2

now_ms() { t=$(date +%s%N); echo $((t / 1000000)); }
secs() { awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }'; } # MS as seconds
# pct TICKS MS: CPU ticks over MS milliseconds as a percentage of one core
pct() { awk -v t="$1" -v ms="$2" -v hz="$TCK" 'BEGIN { printf "%.1f", (ms > 0 ? t * 100000 / hz / ms : -1) }'; }
proc_cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
proc_rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
f_rx() { ip netns exec "$F" cat /sys/class/net/eth0/statistics/rx_packets; }
# Datagrams the victim's namespace dropped because a UDP socket was full.
udp_rcvbuf_errors() {
	ip netns exec "$V" awk '/^Udp:/ { if (!c) { for (i = 1; i <= NF; i++) if ($i == "RcvbufErrors") c = i } else print $c }' /proc/net/snmp
}
victim_hs() { wg_field "$V" "$IV" latest-handshakes kp; }

# (Re)creates the peer's view of the victim, so its next packet handshakes.
peer_reset() {
	ip netns exec "$P" wg set "$IP_" peer "$(pub kv)" remove
	add_peer "$P" "$IP_" kv "$(tun4 1)/32" "$(ul4 1):$PORT"
}

# Samples the victim's RSS every 0.5 s into $T/rss.samples until told to stop.
rss_sampler() {
	: >"$T/rss.samples"
	while [ -e "$T/sampling" ]; do
		proc_rss "$VPID" >>"$T/rss.samples" 2>/dev/null || break
		sleep 0.5
	done
}

# zinctun logs its engine counters on SIGUSR1; prints "cookies invalid".
engine_stats() {
	[ "$impl" = zinctun ] || { echo "- -"; return; }
	before=$(grep -c 'stats:' "$T/$IV.log")
	kill -USR1 "$VPID"
	for _ in $(seq 1 20); do
		[ "$(grep -c 'stats:' "$T/$IV.log")" -gt "$before" ] && break
		sleep 0.1
	done
	grep 'stats:' "$T/$IV.log" | tail -n 1 |
		sed -n 's/.*cookie_replies_sent=\([0-9]*\).*packets_invalid=\([0-9]*\).*/\1 \2/p'
}

# Forgets a PID once reaped, so cleanup never signals a reused number.
forget_pid() { PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' '); }

# Sanitizer build: the real peer must get a new handshake and pings through
# (the one under flood above, or one within 15 s after it), cookies must be
# engaged by initiations and not by garbage.
reduced_checks() {
	if [ "$hs_ok" != 1 ]; then
		for _ in $(seq 1 15); do
			ping_ok "$P" "$(tun4 1)" 1 && break
			sleep 1
		done
		hs1=$(victim_hs)
		[ "${hs1:-0}" != "${hs0:-0}" ] ||
			fail "$impl/$mode: no new handshake of the real peer after the flood"
	fi
	ping_ok "$P" "$(tun4 1)" 3 || { cat "$T/ping.out"; fail "$impl/$mode: no ping after the flood"; }
	if [ "$mode" = init ]; then
		[ "$cookies" -gt 0 ] || fail "$impl/init: no cookie reply under load"
	else
		[ "$cookies" -lt $((sent / 100 + 10)) ] ||
			fail "$impl/garbage: $cookies replies to garbage"
	fi
	ok "$impl/$mode (reduced, sanitizer build): survived, cookies $cookies, peer handshake and ping after"
}

SUMMARY=""
flood_phase() { # impl mode
	impl=$1 mode=$2
	log "$impl: $mode flood, ${S}s at $RATE/s"
	peer_reset
	ping_ok "$P" "$(tun4 1)" 3 || { cat "$T/ping.out"; fail "$impl: no tunnel before the flood"; }
	sleep 1
	rss0=$(proc_rss "$VPID") cpu0=$(proc_cpu "$VPID") rx0=$(f_rx) ovf0=$(udp_rcvbuf_errors)
	set -- $(engine_stats)
	ec0=$1 ei0=$2
	t0=$(now_ms)
	ip netns exec "$F" "$FLOOD" --target "$(ul4 1):$PORT" --pubkey "$(pub kv)" --src "$SPOOF" \
		--rate "$RATE" --seconds "$S" --mode "$mode" >"$T/flood.out" 2>&1 &
	fpid=$!
	PIDS="$PIDS $fpid"
	touch "$T/sampling"
	rss_sampler &
	spid=$!
	PIDS="$PIDS $spid"

	# 1) data through the existing session during the first half of the flood
	sleep 1
	# (-w: on a loaded machine 20 pings a second take longer, and the time
	# is the flood's, which the handshake below needs)
	ip netns exec "$P" ping -q -c $((PING_SECS * 20)) -i 0.05 -W 1 -w "$PING_SECS" "$(tun4 1)" \
		>"$T/ping.flood" 2>&1
	n=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$T/ping.flood")
	recv=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$T/ping.flood")
	[ "${n:-0}" -gt 0 ] || { cat "$T/ping.flood"; fail "$impl/$mode: no ping sent"; }
	recv=${recv:-0}
	loss_pm=$(( (n - recv) * 1000 / n )) # per mille

	# 2) a new handshake of the real peer while the flood goes on; again
	# (up to HS_TRIES times) while it took longer than HS_MAX: the victim's
	# full handshake queue drops a share of everything, the real peer's
	# initiation too, on a loaded machine, and then only the 5 s retry helps
	hs_ok=0 hs_ms=-1 hs_all=""
	for _ in $(seq 1 "$HS_TRIES"); do
		kill -0 "$fpid" 2>/dev/null || break
		hs0=$(victim_hs)
		peer_reset
		th0=$(now_ms)
		while kill -0 "$fpid" 2>/dev/null; do
			if ip netns exec "$P" ping -c 1 -W 1 "$(tun4 1)" >/dev/null 2>&1; then
				hs1=$(victim_hs)
				ms=$(($(now_ms) - th0))
				if kill -0 "$fpid" 2>/dev/null && [ "${hs1:-0}" != "${hs0:-0}" ]; then
					hs_ok=1
					hs_all="$hs_all $(secs "$ms")"
					[ "$hs_ms" = -1 ] || [ "$ms" -lt "$hs_ms" ] && hs_ms=$ms
				fi
				break
			fi
		done
		[ "$hs_ok" = 1 ] && [ "$hs_ms" -le "$HS_MAX_MS" ] && break
	done
	cpu_mid=$(proc_cpu "$VPID")
	wait "$fpid"
	forget_pid "$fpid"
	t1=$(now_ms)
	cpu1=$(proc_cpu "$VPID") rx1=$(f_rx)
	set -- $(engine_stats)
	if [ "$ec0" != - ] && [ -n "${1:-}" ]; then
		engine="engine: cookie_replies_sent +$(($1 - ec0)), packets_invalid +$(($2 - ei0)); "
	else
		engine=""
	fi
	sleep 3
	rm -f "$T/sampling"
	wait "$spid" 2>/dev/null
	forget_pid "$spid"
	rss2=$(proc_rss "$VPID") cpu2=$(proc_cpu "$VPID")
	ovf=$(($(udp_rcvbuf_errors) - ovf0))
	kill -0 "$VPID" 2>/dev/null || fail "$impl died during the $mode flood"

	rss_max=$(sort -n "$T/rss.samples" | tail -n 1)
	cpu_pct=$(pct $((cpu1 - cpu0)) $((t1 - t0)))
	cpu_after=$(pct $((cpu2 - cpu1)) 3000)
	cookies=$((rx1 - rx0))
	fl=$(cat "$T/flood.out")
	sent=$(echo "$fl" | sed -n 's/.*sent=\([0-9]*\).*/\1/p')
	rate=$(echo "$fl" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')
	line="$impl/$mode: flood sent=${sent:-?} rate=${rate:-?}/s; cookie replies=$cookies; ${engine}CPU ${cpu_pct}% of a core during, ${cpu_after}% after; RSS ${rss0} -> max ${rss_max} -> ${rss2} kB after; peer ping loss ${loss_pm}/1000 ($recv/$n); UDP receive buffer overflows $ovf; new handshake $(secs "$hs_ms")s (tries:${hs_all:- none}), under flood: $hs_ok"
	echo "RESULT $line"
	SUMMARY="$SUMMARY
$line"
	[ -n "$sent" ] && [ "$sent" -gt 0 ] || fail "flood tool: $fl"
	if [ "$impl" = zinctun ] && [ $REDUCED = 1 ]; then
		reduced_checks
	elif [ "$impl" = zinctun ]; then
		[ "$loss_pm" -lt 10 ] || fail "$impl/$mode: ping loss ${loss_pm}/1000"
		[ "$hs_ok" = 1 ] && [ "$hs_ms" -ge 0 ] || fail "$impl/$mode: no new handshake under flood"
		if [ "$PEER_IMPL" = zinctun ] && [ "$hs_ms" -gt "$HS_MAX_MS" ]; then
			fail "$impl/$mode: the real peer's handshake took $(secs "$hs_ms")s (> ${HS_MAX}s)"
		fi
		[ $((rss_max - rss0)) -lt "$RSS_GROWTH_MAX_KB" ] ||
			fail "$impl/$mode: RSS grew ${rss0} -> ${rss_max} kB"
		[ $((rss2 - rss0)) -lt "$RSS_GROWTH_MAX_KB" ] ||
			fail "$impl/$mode: RSS after ${rss2} kB (before ${rss0})"
		if [ "$mode" = init ]; then
			[ "$cookies" -gt 0 ] || fail "$impl/init: no cookie reply under load"
		else
			[ "$cookies" -lt $((sent / 100 + 10)) ] ||
				fail "$impl/garbage: $cookies replies to garbage"
		fi
	fi
}

for impl in $IMPLS; do
	case $impl in
	zinctun) IV=$(ifname z) ;;
	*) IV=$(ifname g) ;;
	esac
	start_daemon "$impl" "$V" "$IV"
	VPID=$LAST_PID
	conf_iface "$V" "$IV" kv 1 "$PORT"
	add_peer "$V" "$IV" kp "$(tun4 2)/32"
	for mode in $MODES; do
		flood_phase "$impl" "$mode"
	done
	kill "$VPID"
	wait_gone "$VPID" || fail "$impl did not stop"
	wait "$VPID" 2>/dev/null
	st=$?
	forget_pid "$VPID"
	# a sanitizer report (or leak) at exit shows as a non-zero status
	if [ $REDUCED = 1 ] && [ "$impl" = zinctun ]; then
		[ "$st" = 0 ] || fail "$impl exited with status $st after SIGTERM"
		ok "$impl exited cleanly (status 0)"
	fi
	ip -n "$V" link del "$IV" 2>/dev/null
done

echo "SUMMARY:$SUMMARY"
echo PASS
