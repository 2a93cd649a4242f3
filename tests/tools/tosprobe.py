#!/usr/bin/env python3
"""The DS field (IPv4 TOS / IPv6 traffic class) of packets, for the ECN and
DSCP tests (tests/scripts/test_e2e_ecn.sh, test_e2e_routing_loop.sh).

  send ADDR PORT TOS[,TOS...] N    for each TOS in turn, N datagrams with that
                                  TOS / traffic class carrying it as text,
                                  those of the i-th TOS 16 * i bytes longer
  recv ADDR PORT N SECS           prints "SENT GOT" (hex) per datagram, as the
                                  receiver's IP_RECVTOS / IPV6_RECVTCLASS saw it
  capture IFNAME OUT STOPFILE     every UDP packet on IFNAME (either way):
                                  "DS SRCPORT DSTPORT TYPE LEN" per line in OUT
                                  (TYPE: the first payload byte, LEN: the UDP
                                  payload length) until STOPFILE exists
"""
import os
import socket
import struct
import sys
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def send(addr, port, toses, n):
    af = family(addr)
    s = socket.socket(af, socket.SOCK_DGRAM)
    for i, tos in enumerate(toses):
        if af == socket.AF_INET:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        else:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
        for _ in range(n):
            s.sendto(b"%02x" % tos + b"." * (100 + 16 * i), (addr, port))
            time.sleep(0.02)


def recv(addr, port, n, secs):
    af = family(addr)
    s = socket.socket(af, socket.SOCK_DGRAM)
    if af == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVTCLASS, 1)
    s.bind((addr, port))
    print("ready", flush=True)
    end = time.time() + secs
    while n and time.time() < end:
        s.settimeout(max(0.01, end - time.time()))
        try:
            data, anc, _, _ = s.recvmsg(2048, 64)
        except socket.timeout:
            break
        got = None
        for level, kind, val in anc:
            if (level, kind) in ((socket.IPPROTO_IP, socket.IP_TOS),
                                 (socket.IPPROTO_IPV6, socket.IPV6_TCLASS)):
                got = val[0] if len(val) == 1 else struct.unpack("i", val[:4])[0]
        print(data[:2].decode(), "%02x" % got if got is not None else "none", flush=True)
        n -= 1


def capture(ifname, out, stopfile):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((ifname, 0))
    s.settimeout(0.1)
    with open(out, "a", buffering=1) as f:
        print("ready", file=f)
        while not os.path.exists(stopfile):
            try:
                pkt = s.recv(70000)
            except socket.timeout:
                continue
            eth = struct.unpack("!H", pkt[12:14])[0]
            ip = pkt[14:]
            if eth == 0x0800 and len(ip) >= 28 and ip[9] == 17:
                ds, l4 = ip[1], (ip[0] & 15) * 4
            elif eth == 0x86DD and len(ip) >= 48 and ip[6] == 17:
                ds, l4 = ((ip[0] & 15) << 4) | (ip[1] >> 4), 40
            else:
                continue
            sport, dport, ulen = struct.unpack("!HHH", ip[l4:l4 + 6])
            kind = ip[l4 + 8] if len(ip) > l4 + 8 else -1
            print("%02x %d %d %d %d" % (ds, sport, dport, kind, ulen - 8), file=f)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "send":
        send(args[0], int(args[1]), [int(t, 0) for t in args[2].split(",")], int(args[3]))
    elif cmd == "recv":
        recv(args[0], int(args[1]), int(args[2]), float(args[3]))
    elif cmd == "capture":
        capture(args[0], args[1], args[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
