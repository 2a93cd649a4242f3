#!/bin/sh
# Checks the flood tool itself, in a throwaway network namespace on loopback:
# a raw-socket receiver verifies every IPv4 and UDP checksum, that sources
# are spread over the --src CIDR, that initiations are 148 bytes with a valid
# mac1 for the given public key and a zero mac2, that --count bounds the run,
# and that garbage mode covers sizes and types 0..5. Also that the tool
# refuses to spoof from the host's own namespace.
set -eu
B=${BUILD:-build}
FLOOD=$B/tools/flood
[ -x "$FLOOD" ] || { echo "missing $FLOOD"; exit 1; }
NS=zt-floodtool-$$
tmp=$(mktemp -d)
cleanup() {
	[ -n "${rpid:-}" ] && kill "$rpid" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Any 32 bytes will do as the victim key; the receiver checks mac1 with it.
PUB=$(python3 -c 'import base64,hashlib;print(base64.b64encode(hashlib.sha256(b"zinctun-flood-test").digest()).decode())')

ip netns add "$NS"
ip -n "$NS" link set lo up

cat >"$tmp/recv.py" <<'PY'
import base64, hashlib, socket, struct, sys, time
port, pub, expect, mode, ready, net = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
port = int(port)
key = hashlib.blake2s(b"mac1----" + base64.b64decode(pub)).digest()
netaddr, bits = net.split("/")
mask = (0xffffffff << (32 - int(bits))) & 0xffffffff
netv = struct.unpack("!I", socket.inet_aton(netaddr))[0] & mask

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
SO_RCVBUFFORCE = 33
raw.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
udp.bind(("127.0.0.1", port))
open(ready, "w").close()
raw.settimeout(3)
bad, n, srcs, sizes, types = [], 0, set(), set(), set()
while n < expect:
    try:
        pkt = raw.recv(65535)
    except socket.timeout:
        break
    ihl = (pkt[0] & 15) * 4
    udph = pkt[ihl:ihl + 8]
    sport, dport, ulen, uck = struct.unpack("!HHHH", udph)
    if dport != port:
        continue
    n += 1
    payload = pkt[ihl + 8:ihl + ulen]
    if csum(pkt[:ihl]) != 0xffff:
        bad.append("ip checksum")
    pseudo = pkt[12:20] + struct.pack("!BBH", 0, 17, ulen)
    if uck == 0 or csum(pseudo + pkt[ihl:ihl + ulen]) != 0xffff:
        bad.append("udp checksum")
    src = struct.unpack("!I", pkt[12:16])[0]
    if src & mask != netv:
        bad.append("source outside cidr")
    if sport < 1024:
        bad.append("low source port")
    srcs.add((src, sport))
    sizes.add(len(payload))
    types.add(payload[0])
    if mode == "init":
        if len(payload) != 148 or payload[:4] != b"\1\0\0\0":
            bad.append("init layout")
        elif hashlib.blake2s(payload[:116], key=key, digest_size=16).digest() != payload[116:132]:
            bad.append("mac1")
        elif payload[132:148] != bytes(16):
            bad.append("mac2 not zero")
    elif not 1 <= len(payload) <= 1472 or payload[0] > 5:
        bad.append("garbage range")
got_udp = 0
udp.setblocking(False)
try:
    while True:
        udp.recv(2000)
        got_udp += 1
except BlockingIOError:
    pass
print("received=%d udp_socket=%d distinct_src=%d sizes=%d types=%s bad=%d %s" %
      (n, got_udp, len(srcs), len(sizes), sorted(types), len(bad), sorted(set(bad))))
ok = n == expect and not bad and got_udp == n and len(srcs) > expect * 9 // 10
if mode == "garbage":
    ok = ok and types == set(range(6)) and len(sizes) > 100 and {148, 92, 64} <= sizes
sys.exit(0 if ok else 1)
PY

run_case() { # mode count
	rm -f "$tmp/ready"
	ip netns exec "$NS" python3 "$tmp/recv.py" 5555 "$PUB" "$2" "$1" "$tmp/ready" 127.77.0.0/16 &
	rpid=$!
	i=0
	while [ ! -e "$tmp/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	out=$(ip netns exec "$NS" "$FLOOD" --target 127.0.0.1:5555 --pubkey "$PUB" \
		--src 127.77.0.0/16 --mode "$1" --count "$2" --rate 20000 --seconds 5)
	echo "flood: $out"
	case "$out" in *"sent=$2 errors=0 "*) ;; *) echo "FAIL: wrong count"; exit 1;; esac
	wait "$rpid" || { echo "FAIL: receiver ($1)"; exit 1; }
	rpid=
}

run_case init 3000
run_case garbage 3000

# Rate pacing: 2000 packets at 4000/s take about half a second.
out=$(ip netns exec "$NS" "$FLOOD" --target 127.0.0.1:5555 --pubkey "$PUB" --src 127.77.0.0/16 \
	--count 2000 --rate 4000 --seconds 5)
echo "paced: $out"
secs=$(echo "$out" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
awk -v s="$secs" 'BEGIN { exit !(s >= 0.4 && s < 1.5) }' || { echo "FAIL: pacing"; exit 1; }

# A non-loopback target from outside a test namespace is refused.
if "$FLOOD" --target 192.0.2.1:5555 --pubkey "$PUB" --count 1 --seconds 1 2>/dev/null; then
	echo "FAIL: flood ran in the host namespace"
	exit 1
fi
echo "ok"
