#!/bin/sh
# Memory under load: after iperf3 TCP and UDP through zinctun <-> zinctun
# in both directions, each daemon's peak anonymous memory (VmHWM less the
# file-backed pages, i.e. the binary) stays under RSS_ANON_MAX_KB. The data
# path's buffers are sized in daemon/dpbuf.h and mapped untouched until a
# batch writes them: ~1.1 MiB here, each daemon both sending and receiving.
# Before, 16 x 64 KiB receive buffers, a 512 KiB send batch and tables
# cleared at start made ~2.4 MiB (~2.0 MiB with only the lazy mapping).
# sanitize: skip (shadow memory and the sanitizers' allocators decide RSS)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

RSS_ANON_MAX_KB=${RSS_ANON_MAX_KB:-1536}

# anon_peak PID: VmHWM less the file-backed and shared pages now (they
# only grow, so this never overstates the anonymous peak)
anon_peak() {
	awk '/^VmHWM:/ { h = $2 } /^RssFile:/ { f = $2 } /^RssShmem:/ { s = $2 }
	     END { print h - f - s }' "/proc/$1/status"
}

connect_pair zinctun zinctun
iperf "$N2" "$N1" "$(tun4 2)" "TCP 1->2"
iperf "$N2" "$N1" "$(tun4 2)" "TCP 2->1" -R
iperf "$N2" "$N1" "$(tun4 2)" "TCP 1->2, 4 streams" -P 4
iperf "$N2" "$N1" "$(tun4 2)" "UDP 1->2" -u -b 0 -l 1400
iperf "$N2" "$N1" "$(tun4 2)" "UDP 2->1" -u -b 0 -l 64 -R
for i in "$I1" "$I2"; do
	pid=$(eval echo "\$PID_$i")
	peak=$(anon_peak "$pid")
	log "$i: peak anonymous memory ${peak} kB ($(grep -E '^Vm(HWM|RSS)' "/proc/$pid/status" | tr -s ' \t\n' ' '))"
	[ "$peak" -gt 0 ] && [ "$peak" -le "$RSS_ANON_MAX_KB" ] ||
		fail "$i: peak anonymous memory ${peak} kB > ${RSS_ANON_MAX_KB} kB"
	ok "$i: peak anonymous memory ${peak} kB <= ${RSS_ANON_MAX_KB} kB"
done
echo PASS
