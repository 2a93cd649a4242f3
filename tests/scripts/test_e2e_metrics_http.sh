#!/bin/sh
# The metrics endpoint as an HTTP server: loopback only when given a port
# alone; 200 for GET /metrics (valid exposition text, promtool agrees), 400
# for garbage, 404/405 for other paths and methods; 200 concurrent scrapes
# all answered; clients that never read a large answer (15000 peers) or
# never finish their request stall neither the endpoint nor the tunnel; one
# trickling its request a byte a second is dropped 5 s after it came.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

MPORT=9586
PEERS=15000
# the filter in kill mode: a forbidden call would end the daemon (sanitizer
# builds run with it off, for their own runtime's calls)
KILL=ZINCTUN_SECCOMP=kill
[ -n "${SANITIZE:-}" ] && KILL=
# the scrape behind 150 stalled clients waits for ~50 renders of 15000
# peers: ~3 s in a plain build, 8 s under ASan, 32 s under ThreadSanitizer
SCRAPE_MAX=30
[ -n "${SANITIZE:-}" ] && SCRAPE_MAX=180
ENV1="ZINCTUN_METRICS=$MPORT $KILL"
connect_pair zinctun zinctun

# http NS HOST REQUEST-PYTHON-BYTES: prints the status line ("" if none)
http() {
	ip netns exec "$1" python3 - "$2" "$MPORT" "$3" <<'PY'
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.sendall(eval(sys.argv[3]))
out = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    out += d
print(out.split(b"\r\n", 1)[0].decode(errors="replace"))
PY
}

ip netns exec "$N1" curl -s --max-time 10 -o "$T/m.txt" -w '%{http_code} %{content_type}\n' \
	"http://127.0.0.1:$MPORT/metrics" >"$T/curl.out" || fail "curl: $(cat "$T/curl.out")"
grep -q "^200 text/plain; version=0.0.4" "$T/curl.out" || fail "answer: $(cat "$T/curl.out")"
grep -q "^wireguard_sent_bytes_total{interface=\"$I1\",public_key=\"$(pub k2)\",allowed_ips=\"$(tun4 2)/32,$(tun6 2)/128\"} [1-9]" "$T/m.txt" ||
	fail "no sent bytes line for the peer: $(head -5 "$T/m.txt")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/m.txt" >"$T/promtool.out" 2>&1 ||
		fail "promtool check metrics: $(cat "$T/promtool.out")"
	ok "promtool check metrics: clean"
fi
ok "GET /metrics: $(cat "$T/curl.out"), $(wc -l <"$T/m.txt") lines"

# a taken port fails the start, with the reason, before the daemon detaches
I3=$(ifname c)
IFACES="$IFACES $I3"
ip netns exec "$N1" "$ZINCTUN" --metrics "$MPORT" "$I3" >"$T/taken.log" 2>&1 &&
	fail "a second daemon started on a taken metrics port"
grep -q "metrics address $MPORT is in use .*: each interface needs its own ZINCTUN_METRICS port" "$T/taken.log" ||
	fail "taken port: $(cat "$T/taken.log")"
ip -n "$N1" link show "$I3" >/dev/null 2>&1 && fail "$I3 left behind"
ok "a taken port fails the start: $(tail -1 "$T/taken.log")"

st=$(http "$N2" "$(ul4 1)" 'b"GET /metrics HTTP/1.1\r\n\r\n"' 2>&1)
case $st in HTTP/*) fail "reachable from outside the namespace without an address: $st" ;; esac
ok "a port alone listens on loopback only ($(echo "$st" | tail -1))"

for req in 'b"HELLO\r\n\r\n"' 'b"\x00\x01\x02\x03garbage\n"' 'b"GET /metrics\r\n\r\n"' \
	'b"GET /metrics HTTP/2.0\r\n\r\n"' 'b"GET  /metrics HTTP/1.1\r\n\r\n"' 'b"A" * 10000'; do
	st=$(http "$N1" 127.0.0.1 "$req")
	[ "${st#HTTP/1.1 400}" != "$st" ] || fail "$req: '$st', expected 400"
done
st=$(http "$N1" 127.0.0.1 'b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n"')
[ "${st#HTTP/1.1 405}" != "$st" ] || fail "POST: '$st'"
st=$(http "$N1" 127.0.0.1 'b"GET /other HTTP/1.0\r\n\r\n"')
[ "${st#HTTP/1.1 404}" != "$st" ] || fail "GET /other: '$st'"
st=$(http "$N1" 127.0.0.1 'b"GET /metrics?x=1 HTTP/1.0\r\nHost: a\r\n\r\n"')
[ "${st#HTTP/1.1 200}" != "$st" ] || fail "GET /metrics?x=1: '$st'"
ok "garbage: 400; POST: 405; other path: 404; query string: 200"

# a client that trickles its request head one byte a second (each byte is
# progress) loses its slot when the whole head is not in within the
# request deadline (5 s from accept), not after an hour of trickling
ip netns exec "$N1" python3 - "$MPORT" >"$T/trickle.out" 2>&1 <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
start = time.time()
s.sendall(b"GET /metrics HTTP/1.1\r\n")
try:
    while time.time() - start < 15:
        s.sendall(b"X")
        time.sleep(1)
        s.setblocking(False)
        try:
            if s.recv(1024) == b"":
                break
        except BlockingIOError:
            pass
        s.setblocking(True)
except OSError:
    pass
print("%.1f" % (time.time() - start))
PY
held=$(tail -1 "$T/trickle.out")
awk -v h="$held" 'BEGIN { exit !(h + 0 > 0 && h + 0 <= 9) }' ||
	fail "a trickling client held its slot $held s (request deadline 5 s): $(cat "$T/trickle.out")"
ok "a client trickling its request a byte a second is dropped after $held s"

ip netns exec "$N1" python3 - "$MPORT" <<'PY' || fail "concurrent scrapes"
import socket, sys, threading
N = 200
port = int(sys.argv[1])
go = threading.Barrier(N)
res = []
def scrape():
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        go.wait()
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        out = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
        res.append(out.startswith(b"HTTP/1.1 200") and b"wireguard_sent_bytes_total{" in out)
    except Exception as e:
        print("scrape failed:", e)
        res.append(False)
ts = [threading.Thread(target=scrape) for _ in range(N)]
for t in ts: t.start()
for t in ts: t.join()
print("%d of %d scrapes answered 200" % (res.count(True), N))
sys.exit(0 if res.count(True) == N else 1)
PY
ok "200 concurrent scrapes answered"

log "$PEERS peers: a large answer"
ip netns exec "$N1" python3 - "$SOCKDIR/$I1.sock" "$PEERS" >"$T/peers.out" 2>&1 <<'PY'
import os, socket, sys
n = int(sys.argv[2])
req = ["set=1"]
for i in range(n):
    req.append("public_key=" + os.urandom(32).hex())
    req.append("allowed_ip=10.%d.%d.%d/32" % (100 + i // 65536, i // 256 % 256, i % 256))
s = socket.socket(socket.AF_UNIX)
s.settimeout(120)
s.connect(sys.argv[1])
s.sendall(("\n".join(req) + "\n\n").encode())
out = b""
while not out.endswith(b"\n\n"):
    d = s.recv(4096)
    if not d:
        break
    out += d
print(out.decode().strip())
PY
grep -q "^errno=0" "$T/peers.out" || fail "adding peers: $(cat "$T/peers.out")"

# clients that never read (small receive buffer) or never finish a request,
# more than the endpoint has slots; held until $T/stop exists
ip netns exec "$N1" python3 - "$MPORT" "$T" <<'PY' >"$T/stallers.log" 2>&1 &
import os, socket, sys, time
port, tdir = int(sys.argv[1]), sys.argv[2]
held = []
for i in range(150):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    if i % 3 == 0:
        s.sendall(b"GET /metrics HTTP/1.1\r\n")  # never finished
    elif i % 3 == 1:
        s.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")  # never read
    held.append(s)
open(os.path.join(tdir, "stalling"), "w").close()
deadline = time.time() + 300
while not os.path.exists(os.path.join(tdir, "stop")) and time.time() < deadline:
    time.sleep(0.1)
PY
PIDS="$PIDS $!"
for _ in $(seq 1 100); do [ -e "$T/stalling" ] && break; sleep 0.1; done
[ -e "$T/stalling" ] || fail "stalling clients not set up: $(cat "$T/stallers.log")"
sleep 1
start=$(date +%s)
ip netns exec "$N1" curl -s --max-time $SCRAPE_MAX -o "$T/big.txt" -w '%{http_code}\n' \
	"http://127.0.0.1:$MPORT/metrics" >"$T/curl.out" || fail "scrape while stalled: $(cat "$T/curl.out")"
[ "$(cat "$T/curl.out")" = 200 ] || fail "scrape while stalled: $(cat "$T/curl.out")"
n=$(grep -c '^wireguard_sent_bytes_total{' "$T/big.txt")
[ "$n" = $((PEERS + 1)) ] || fail "scrape while stalled: $n peers, expected $((PEERS + 1))"
ok "scrape while 150 clients stall: 200, $(wc -c <"$T/big.txt") bytes, $(($(date +%s) - start)) s"
ping_ok "$N1" "$(tun4 2)" 5 || { cat "$T/ping.out"; fail "tunnel while clients stall"; }
ok "tunnel while clients stall"
touch "$T/stop"
eval "p=\$PID_$I1"
kill -0 "$p" || fail "the daemon under ZINCTUN_SECCOMP=kill died"
echo PASS
