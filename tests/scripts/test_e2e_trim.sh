#!/bin/sh
# Memory goes back to the system after a large removal: 50,000 peers (one
# allowed IP each) added in one set and removed in another, then RSS is at
# most twice the idle RSS (malloc kept ~35 MB of freed memory before).
# sanitize: skip (the sanitizers' allocators keep freed memory in quarantine)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

NPEERS=${TRIM_PEERS:-50000}
ns_setup 1
N1=$(ns_name 1) I1=$(ifname t)
genkeys k1
start_daemon zinctun "$N1" "$I1"
ip netns exec "$N1" wg set "$I1" private-key "$T/k1.key" || fail "private key"
PID1=$(eval echo "\$PID_$I1")
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$PID1/status"; }
sleep 0.3
idle=$(rss)

python3 - "$SOCKDIR/$I1.sock" "$NPEERS" >"$T/trim.log" 2>&1 <<'PY' || { cat "$T/trim.log"; fail "sets"; }
import os, sys
import uapi
path, n = sys.argv[1], int(sys.argv[2])
keys = [os.urandom(32).hex() for _ in range(n)]
add = ["set=1"]
for i, k in enumerate(keys):
    add += ["public_key=" + k, "allowed_ip=10.%d.%d.%d/32" % (i >> 16, (i >> 8) & 255, i & 255)]
remove = ["set=1"]
for k in keys:
    remove += ["public_key=" + k, "remove=true"]
for req in (add, remove):
    out = uapi.call(path, ("\n".join(req) + "\n\n").encode(), timeout=120)
    assert out and out.endswith(b"errno=0\n\n"), out
PY
peak=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PID1/status")
after=$(rss)
log "RSS idle ${idle} kB, peak ${peak} kB, after removing $NPEERS peers ${after} kB"
[ "$(ip netns exec "$N1" wg show "$I1" peers | wc -l)" = 0 ] || fail "peers left"
[ "$after" -le $((2 * idle)) ] || fail "RSS ${after} kB after the removal, idle ${idle} kB"
ok "RSS ${after} kB <= 2 x idle ${idle} kB (peak ${peak} kB)"
echo PASS
