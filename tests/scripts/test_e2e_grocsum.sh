#!/bin/sh
# A corrupted inner segment is not laundered by TUN GRO: side 1 sends, with
# a raw socket, bursts of three TCP segments (and three UDP datagrams) of
# one flow whose middle one has a wrong checksum. The receiving daemon
# would coalesce them into one super-packet with a checksum still to be
# computed; it must write the bad one alone instead, so side 2's kernel
# counts every bad one as a checksum error and a UDP application receives
# only the good datagrams.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ROUNDS=40
UDP_PORT=7000

connect_pair zinctun zinctun
grep -q "tun GRO on" "$T/$I2.log" || fail "no TUN GRO on side 2: $(grep offloads "$T/$I2.log")"

# Tcp/Udp InCsumErrors of side 2 (each namespace has its own counters)
csum_errors() { # PROTO
	ip netns exec "$N2" awk -v p="$1:" '$1 == p && !n { for (i = 2; i <= NF; i++) h[i] = $i; n = 1; next }
		$1 == p { for (i = 2; i <= NF; i++) if (h[i] == "InCsumErrors") print $i }' /proc/net/snmp
}

# the UDP application: counts datagrams until told to stop ("stop")
ip netns exec "$N2" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
good = bad = 0
open(sys.argv[3], "w").close()
while True:
    d = s.recv(65536)
    if d == b"stop":
        break
    if d[:4] == b"good":
        good += 1
    else:
        bad += 1
print(good, bad)
' "$(tun4 2)" "$UDP_PORT" "$T/udp.ready" >"$T/udp.out" 2>&1 &
RPID=$!
PIDS="$PIDS $RPID"
for _ in $(seq 1 50); do [ -e "$T/udp.ready" ] && break; sleep 0.1; done

tcp0=$(csum_errors Tcp) udp0=$(csum_errors Udp)
ip netns exec "$N1" python3 -c '
import socket, struct, sys, time

src, dst, rounds, uport = socket.inet_aton(sys.argv[1]), socket.inet_aton(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def ip(proto, l4):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0, 0x4000, 64, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + l4

def l4sum(proto, l4):
    return csum(src + dst + struct.pack("!BBH", 0, proto, len(l4)) + l4)

def tcp(sport, seq, payload, bad):
    h = struct.pack("!HHIIBBHHH", sport, 9, seq, 1, 5 << 4, 0x10, 512, 0, 0)
    c = l4sum(6, h + payload) ^ (0x0100 if bad else 0)
    return ip(6, h[:16] + struct.pack("!H", c) + h[18:] + payload)

def udp(sport, payload, bad):
    h = struct.pack("!HHHH", sport, uport, 8 + len(payload), 0)
    c = l4sum(17, h + payload) or 0xffff
    d = h[:6] + struct.pack("!H", c) + payload
    if bad:  # the payload corrupted after the sum, as on a bad link
        d = d[:8] + b"bad!" + d[12:]
    return ip(17, d)

s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
to = (sys.argv[2], 0)
for r in range(rounds):
    sport = 20000 + r
    for k in range(3):
        s.sendto(tcp(sport, 1000 + 1000 * k, bytes([r & 0xff]) * 1000, k == 1), to)
    for k in range(3):
        s.sendto(udp(sport, b"good" + bytes([k]) * 996, k == 1), to)
    time.sleep(0.01)
' "$(tun4 1)" "$(tun4 2)" "$ROUNDS" "$UDP_PORT" || fail "raw sender"
sleep 0.5
ip netns exec "$N1" python3 -c '
import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"stop", (sys.argv[1], int(sys.argv[2])))
' "$(tun4 2)" "$UDP_PORT"
wait "$RPID" 2>/dev/null
tcp1=$(csum_errors Tcp) udp1=$(csum_errors Udp)
read -r good bad <"$T/udp.out" || fail "UDP receiver: $(cat "$T/udp.out")"
log "TCP checksum errors $((tcp1 - tcp0)), UDP $((udp1 - udp0)); UDP application: $good good, $bad bad"

[ "$bad" = 0 ] || fail "$bad corrupted UDP datagrams reached the application"
[ "$good" = $((2 * ROUNDS)) ] || fail "$good good UDP datagrams of $((2 * ROUNDS))"
ok "the UDP application got the $good good datagrams and none of the $ROUNDS corrupted"
[ $((udp1 - udp0)) = "$ROUNDS" ] || fail "UDP checksum errors: $((udp1 - udp0)), want $ROUNDS"
[ $((tcp1 - tcp0)) = "$ROUNDS" ] || fail "TCP checksum errors: $((tcp1 - tcp0)), want $ROUNDS"
ok "side 2's kernel dropped every corrupted segment as a checksum error"
echo PASS
