#!/bin/sh
# Issue 24, item 4: a SYN flood on a [TCPServerTunnel] is cheap for
# zinctun-proxy. A hostile peer (build/tools/tcpflood, lib_proxy_flood.sh)
# sends $SYNS SYNs to the section's ListenPort, each from its own tunnel
# address/port, and never completes one. Asserted: the proxy's RSS (VmRSS,
# sampled every 0.2 s) grows by at most $RSS_GROWTH_MAX_MB, its CPU time
# (utime + stime) from the flood's start to $HOLD s after its end is at
# most 1 core-second per $SYNS_PER_CORE_S SYNs, a legitimate connection from
# the TUN peer to the same ListenPort, started during the flood, is served
# (curl may try 3 times: a client whose ACK comes after $BACKLOG newer
# SYNs has lost its half-open slot and is reset, as on a host without SYN
# cookies; a real client tries again), and the proxy is alive. Today's main (Debian's lwIP ignores the listen
# backlog: a pcb per SYN) failed it.
#
# On a sanitizer build (SANITIZE set) RSS and CPU time measure the
# sanitizer: a reduced flood (SYN_COUNT, SYN_RATE) asserts only that the
# proxy survives and serves the legitimate connection.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy_flood.sh"

SYNS=${SYN_COUNT:-150000}
RATE=${SYN_RATE:-10000}	# SYNs/s: a 15 s flood
HOLD=3			# s after the flood, still counted (the proxy's timers)
LEGIT_AFTER=5		# s into the flood when the legitimate connection starts
LEGIT_MAX=9		# s it may take, all within the flood
LEGIT_TRIES=3		# connection attempts within it, 4 s each at most
BACKLOG=255		# PROXY_CONNECT_BACKLOG
RSS_GROWTH_MAX_MB=5
SYNS_PER_CORE_S=10000
REDUCED=0
if [ -n "${SANITIZE:-}" ]; then
	REDUCED=1 SYNS=${SYN_COUNT:-20000} RATE=${SYN_RATE:-2000}
fi
BAD=""

flunk() { echo "FAIL: $*"; BAD="$BAD
  $*"; }

flood_setup
log "$SYNS SYNs at $RATE/s to [TCPServerTunnel] port $SERVER_TUN_PORT"
base=$(rss_baseline)
rss_sampler_start
t0=$(proxy_ticks)
flood_start syn --rate "$RATE" --hold "$HOLD" syn "$(tun4 2):$SERVER_TUN_PORT" "$SYNS"
sleep $LEGIT_AFTER
grep -q "flood sent" "$T/syn.log" && flunk "the flood ended before the legitimate connection started"
started=$(date +%s.%N)
code=$(ip netns exec "$N1" curl -sS -o /dev/null -w '%{http_code}' --max-time 4 \
	--retry $((LEGIT_TRIES - 1)) --retry-all-errors --retry-delay 1 --retry-max-time $LEGIT_MAX \
	"http://$(tun4 2):$SERVER_TUN_PORT/" 2>"$T/legit.err")
took=$(echo "$started $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
[ $REDUCED = 1 ] || ! grep -q "flood sent" "$T/syn.log" ||
	flunk "the flood had ended when the legitimate connection was answered"
[ "$code" = 200 ] && ok "a legitimate connection to port $SERVER_TUN_PORT during the flood: HTTP 200 in $took s" ||
	flunk "the legitimate connection during the flood failed after $took s: HTTP '$code' $(cat "$T/legit.err")"
flood_wait syn $((SYNS / RATE + HOLD + 60))
t1=$(proxy_ticks)
top=$(rss_sampler_max)
proxy_alive "after the SYN flood"
sed -n 's/^tcpflood: //p' "$T/syn.log" | sed 's/^/    /'
cpu=$(echo "$t0 $t1 $TCK" | awk '{ printf "%.2f", ($2 - $1) / $3 }')
echo "    proxy RSS $base kB before, $top kB at most during: +$(((top - base) / KB_PER_MB)) MB; CPU $cpu s"
if [ $REDUCED = 0 ]; then
	[ $((top - base)) -le $((RSS_GROWTH_MAX_MB * KB_PER_MB)) ] &&
		ok "RSS grew by $(((top - base) / KB_PER_MB)) MB (<= $RSS_GROWTH_MAX_MB)" ||
		flunk "proxy RSS grew by $(((top - base) / KB_PER_MB)) MB ($base -> $top kB), more than $RSS_GROWTH_MAX_MB MB"
	max_ticks=$((SYNS * TCK / SYNS_PER_CORE_S))
	[ $((t1 - t0)) -le $max_ticks ] &&
		ok "proxy CPU $cpu s for $SYNS SYNs (<= $((max_ticks / TCK)) s)" ||
		flunk "proxy CPU $cpu s for $SYNS SYNs, more than $((max_ticks / TCK)) s"
fi
[ -z "$BAD" ] || fail "$BAD"
echo PASS
