#!/usr/bin/env python3
"""Clients and servers for the proxy-mode tests (tests/scripts/test_e2e_proxy*).

  dns SERVER PORT NAME [A|AAAA]             one query over UDP, answers printed
  socks-udp-dns PROXY PORT DNS NAME [TYPE]  the same through SOCKS5 UDP ASSOCIATE
  echo-server HOST PORT                     TCP echo (listen backlog 1024)
  socks-many PROXY PORT HOST TPORT N        N SOCKS5 connections open at once,
                                            each echoes 1 KiB once all are up
  stall PROXY PORT HOST TPORT PATH N        N SOCKS5 connections that GET PATH
                                            and never read; "ready" once sent
  socks-hold PROXY PORT HOST TPORT N        N SOCKS5 connections, opened one
                                            after another and held without a
                                            byte sent or read; "ready N" once
                                            all are open
  socks-rate PROXY PORT HOST TPORT SECS     (bench) CONNECT+echo+close per s
  fwd-rate HOST PORT SECS                   (bench) the same without SOCKS
  fwd-count HOST PORT N                     N connections through a forward
                                            to an echo server one after
                                            another, each echoed once; prints
                                            N and the rate, fails at the first
                                            one refused or not echoed
  fwd-hold HOST PORT N                      (bench) N connections through a
                                            forward to an echo server, each
                                            echoed once; "ready", then held
  blast-server HOST PORT FILE               (bench) answers any HTTP request
                                            with FILE, by sendfile()
  socks-reply PROXY PORT HOST TPORT         prints the reply code of CONNECT
  udp-hijack PROXY PORT DNS NAME            another socket sends to a UDP
                                            ASSOCIATE relay first: it gets
                                            nothing, the client its answers
  idle-flood PROXY SPORT HPORT N HOST TPORT SECS
                                            N idle clients (SOCKS5, HTTP in
                                            turn), then authenticated ones
                                            must get through in 1 s each and
                                            the idle ones be closed: those
                                            left at SECS after their connect
  stdio-echo N CMD...                       ssh -o ProxyCommand's way: N random
                                            bytes into CMD's stdin (then EOF)
                                            must come back on its stdout, then
                                            EOF; CMD gets SIGHUP, as from ssh

--user U --pass P (before the subcommand) authenticate to the SOCKS5 proxy.
Exit 0 on success; on failure a message on stderr and exit 1.
"""
import asyncio
import base64
import ipaddress
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

TIMEOUT = 20
QTYPES = {"A": 1, "AAAA": 28}


def die(msg):
    sys.stderr.write("proxy_client: %s\n" % msg)
    sys.exit(1)


# ---- DNS (RFC 1035): just enough for one question and its A/AAAA answers


def dns_query(name, qtype):
    qid = int.from_bytes(os.urandom(2), "big")
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    return qid, q + b"\0" + struct.pack(">HH", QTYPES[qtype], 1)


def skip_name(msg, off):
    while True:
        n = msg[off]
        if n >= 0xC0:
            return off + 2
        off += 1 + n
        if n == 0:
            return off


def dns_answers(qid, msg, qtype):
    rid, flags, qd, an = struct.unpack(">HHHH", msg[:8])
    if rid != qid:
        die("DNS answer id %#x, asked %#x" % (rid, qid))
    if flags & 0xF:
        die("DNS rcode %d" % (flags & 0xF))
    off = 12
    for _ in range(qd):
        off = skip_name(msg, off) + 4
    out = []
    for _ in range(an):
        off = skip_name(msg, off)
        t, _c, _ttl, ln = struct.unpack(">HHIH", msg[off:off + 10])
        off += 10
        if t == QTYPES[qtype]:
            out.append(str(ipaddress.ip_address(msg[off:off + ln])))
        off += ln
    return out


def cmd_dns(server, port, name, qtype="A"):
    qid, q = dns_query(name, qtype)
    fam = socket.AF_INET6 if ":" in server else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(2)
    for _ in range(5):  # UDP: the first may go before the tunnel is up
        s.sendto(q, (server, int(port)))
        try:
            msg = s.recv(4096)
            break
        except socket.timeout:
            continue
    else:
        die("no DNS answer from %s:%s" % (server, port))
    print("\n".join(dns_answers(qid, msg, qtype)))


# ---- SOCKS5 (RFC 1928, RFC 1929)

USER = None
PASSWORD = None


def socks_addr(host, port):
    try:
        ip = ipaddress.ip_address(host)
        atyp = 1 if ip.version == 4 else 4
        return bytes([atyp]) + ip.packed + struct.pack(">H", port)
    except ValueError:
        return bytes([3, len(host)]) + host.encode() + struct.pack(">H", port)


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            die("SOCKS5 proxy closed the connection")
        buf += chunk
    return buf


def read_addr(sock, atyp):
    if atyp == 1:
        host = str(ipaddress.ip_address(read_exact(sock, 4)))
    elif atyp == 4:
        host = str(ipaddress.ip_address(read_exact(sock, 16)))
    elif atyp == 3:
        host = read_exact(sock, read_exact(sock, 1)[0]).decode()
    else:
        die("SOCKS5 address type %d" % atyp)
    return host, struct.unpack(">H", read_exact(sock, 2))[0]


def socks_hello(sock):
    method = 2 if USER is not None else 0
    sock.sendall(bytes([5, 1, method]))
    ver, chosen = read_exact(sock, 2)
    if ver != 5 or chosen != method:
        die("SOCKS5 method %d refused (answer %d %d)" % (method, ver, chosen))
    if method == 2:
        u, p = USER.encode(), PASSWORD.encode()
        sock.sendall(bytes([1, len(u)]) + u + bytes([len(p)]) + p)
        if read_exact(sock, 2)[1] != 0:
            die("SOCKS5 username/password refused")


def socks_request(sock, cmd, host, port):
    sock.sendall(bytes([5, cmd, 0]) + socks_addr(host, port))
    ver, rep, _rsv, atyp = read_exact(sock, 4)
    if ver != 5 or rep != 0:
        die("SOCKS5 request %d to %s:%d: reply %d" % (cmd, host, port, rep))
    return read_addr(sock, atyp)


def udp_payload(msg):
    """The data of a SOCKS5 UDP datagram (RSV RSV FRAG ATYP ADDR PORT DATA)."""
    if len(msg) < 4 or msg[2] != 0:
        die("bad or fragmented SOCKS5 datagram")
    alen = {1: 4, 4: 16}.get(msg[3])
    if alen is None:
        alen = 1 + msg[4]
    return msg[4 + alen + 2:]


def cmd_socks_udp_dns(proxy, port, dns, name, qtype="A"):
    ctl = socket.create_connection((proxy, int(port)), timeout=TIMEOUT)
    socks_hello(ctl)
    # the client's address is not known in advance: 0.0.0.0:0
    bhost, bport = socks_request(ctl, 3, "0.0.0.0", 0)
    if ipaddress.ip_address(bhost).is_unspecified:
        bhost = proxy  # "use the address you reached me on"
    fam = socket.AF_INET6 if ":" in bhost else socket.AF_INET
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.settimeout(2)
    qid, q = dns_query(name, qtype)
    for _ in range(5):
        u.sendto(b"\0\0\0" + socks_addr(dns, 53) + q, (bhost, bport))
        try:
            msg = u.recv(4096)
            break
        except socket.timeout:
            continue
    else:
        die("no datagram back through UDP ASSOCIATE %s:%d" % (bhost, bport))
    print("\n".join(dns_answers(qid, udp_payload(msg), qtype)))
    ctl.close()


def cmd_socks_reply(proxy, port, host, tport):
    s = socket.create_connection((proxy, int(port)), timeout=TIMEOUT)
    socks_hello(s)
    s.sendall(bytes([5, 1, 0]) + socks_addr(host, int(tport)))
    print(read_exact(s, 4)[1])


def udp_dns_ask(u, relay, dns, name, tries=3):
    """A query through the relay from u: its answers, or None."""
    qid, q = dns_query(name, "A")
    u.settimeout(1)
    for _ in range(tries):
        u.sendto(b"\0\0\0" + socks_addr(dns, 53) + q, relay)
        try:
            return dns_answers(qid, udp_payload(u.recv(4096)), "A")
        except (socket.timeout, ConnectionRefusedError):
            continue
    return None


def udp_socket(host, port=0):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((host, port))
    return u


def cmd_udp_hijack(proxy, port, dns, name):
    # 1: the client declares nothing; a socket at another address is first
    ctl = socket.create_connection((proxy, int(port)), timeout=TIMEOUT)
    socks_hello(ctl)
    relay = socks_request(ctl, 3, "0.0.0.0", 0)
    if udp_dns_ask(udp_socket("127.0.0.2"), relay, dns, name, 2) is not None:
        die("a socket at another address got an answer through the relay")
    client = udp_socket(proxy)
    if not udp_dns_ask(client, relay, dns, name):
        die("the client got no answer after another socket sent first")
    # 2: the client declares its port; a socket at its address is first
    ctl2 = socket.create_connection((proxy, int(port)), timeout=TIMEOUT)
    socks_hello(ctl2)
    client2 = udp_socket(proxy)
    relay2 = socks_request(ctl2, 3, proxy, client2.getsockname()[1])
    if udp_dns_ask(udp_socket(proxy), relay2, dns, name, 2) is not None:
        die("a socket at another port than the declared one got an answer")
    if not udp_dns_ask(client2, relay2, dns, name):
        die("the client at its declared port got no answer")
    # 3: the association ends with its TCP connection
    ctl.close()
    time.sleep(0.5)
    if udp_dns_ask(client, relay, dns, name, 2) is not None:
        die("the relay still answers after its TCP connection closed")
    print("UDP ASSOCIATE: other sockets get nothing, the client its answers,"
          " the relay ends with its TCP connection")


def socks_connect(proxy, port, host, tport):
    s = socket.create_connection((proxy, int(port)), timeout=TIMEOUT)
    socks_hello(s)
    socks_request(s, 1, host, int(tport))
    return s


# ---- load: many connections at once, stalled readers


async def echo_handle(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    writer.close()


def cmd_echo_server(host, port):
    async def main():
        srv = await asyncio.start_server(echo_handle, host, int(port), backlog=1024)
        async with srv:
            await srv.serve_forever()

    asyncio.run(main())


def cmd_socks_many(proxy, port, host, tport, n):
    import threading

    n = int(n)
    barrier = threading.Barrier(n + 1, timeout=TIMEOUT * 3)
    errors = []

    def one(i):
        try:
            s = socks_connect(proxy, port, host, tport)
            barrier.wait()  # every connection is open before any data
            data = os.urandom(1024)
            s.sendall(data)
            if read_exact(s, len(data)) != data:
                raise RuntimeError("echo differs")
            s.close()
        except BaseException as e:  # die() is SystemExit
            errors.append("connection %d: %r" % (i, e))
            barrier.abort()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass
    for t in threads:
        t.join()
    if errors:
        die("%d of %d failed, first: %s" % (len(errors), n, errors[0]))
    print("%d connections open at once, all echoed" % n)


def cmd_stall(proxy, port, host, tport, path, n):
    conns = []
    for _ in range(int(n)):
        s = socks_connect(proxy, port, host, tport)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path, host)).encode())
        conns.append(s)
    print("ready", flush=True)
    time.sleep(3600)


def cmd_socks_hold(proxy, port, host, tport, n):
    conns = [socks_connect(proxy, port, host, tport) for _ in range(int(n))]
    print("ready %d" % len(conns), flush=True)
    time.sleep(3600)


# ---- bench helpers


def cmd_socks_rate(proxy, port, host, tport, secs):
    end = time.monotonic() + float(secs)
    n = 0
    while time.monotonic() < end:
        s = socks_connect(proxy, port, host, tport)
        s.sendall(b"x")
        read_exact(s, 1)
        s.close()
        n += 1
    print("%.0f" % (n / float(secs)))


def cmd_fwd_rate(host, port, secs):
    end = time.monotonic() + float(secs)
    n = 0
    while time.monotonic() < end:
        s = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        s.sendall(b"x")
        read_exact(s, 1)
        s.close()
        n += 1
    print("%.0f" % (n / float(secs)))


def cmd_fwd_count(host, port, n):
    start = time.monotonic()
    for i in range(int(n)):
        try:
            s = socket.create_connection((host, int(port)), timeout=TIMEOUT)
            s.sendall(b"x")
            if s.recv(1) != b"x":
                die("connection %d of %s: not echoed" % (i + 1, n))
            s.close()
        except OSError as e:
            die("connection %d of %s: %s" % (i + 1, n, e))
    took = time.monotonic() - start
    print("%s connections in %.0f s (%.0f/s)" % (n, took, int(n) / took))


def cmd_fwd_hold(host, port, n):
    conns = []
    for _ in range(int(n)):
        s = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        s.sendall(b"x")
        read_exact(s, 1)
        conns.append(s)
    print("ready", flush=True)
    time.sleep(3600)


def cmd_blast_server(host, port, path):
    import threading

    size = os.path.getsize(path)

    def serve(c):
        try:
            c.recv(65536)  # the request, whatever it is
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
            with open(path, "rb") as f:
                c.sendfile(f)
        except OSError:
            pass
        c.close()

    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    srv = socket.socket(fam, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, int(port)))
    srv.listen(1024)
    srv.settimeout(None)  # not TIMEOUT: it waits for clients indefinitely
    while True:
        c, _ = srv.accept()
        c.settimeout(None)
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def idle_open(proxy, ports, n):
    """n connections in turn to ports; half say part of a request."""
    socks = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((proxy, ports[i % 2]))
        socks.append([s, time.monotonic(), None, i % 4 >= 2])
    poll, by_fd = select.poll(), {}
    for rec in socks:
        poll.register(rec[0], select.POLLOUT)
        by_fd[rec[0].fileno()] = rec
    pending, until = len(socks), time.monotonic() + TIMEOUT
    while pending and time.monotonic() < until:
        for fd, _ev in poll.poll(1000):
            by_fd[fd][1] = time.monotonic()  # connected: the deadline counts from here
            poll.unregister(fd)
            pending -= 1
    for i, (s, _t, _c, partial) in enumerate(socks):
        if partial:
            try:
                s.send(b"\x05\x01\x02" if i % 2 == 0 else b"CONNECT h:1 HTTP/1.1\r\n")
            except OSError:
                pass
    return socks


def timed_client(what, fn):
    t0 = time.monotonic()
    try:
        fn()
    except OSError as e:
        die("%s beside the idle clients: %s after %.1f s" % (what, e, time.monotonic() - t0))
    took = time.monotonic() - t0
    if took > 1:
        die("%s took %.2f s (> 1 s) beside the idle clients" % (what, took))
    return "%s %.0f ms" % (what, took * 1000)


def http_connect_echo(proxy, port, host, tport):
    s = socket.create_connection((proxy, int(port)), timeout=TIMEOUT)
    cred = base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
    s.sendall(("CONNECT %s:%s HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n"
               % (host, tport, cred)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            die("HTTP proxy closed the connection: %r" % head)
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        die("HTTP CONNECT: %r" % head)
    echo_once(s)


def echo_once(s):
    s.sendall(b"ping")
    if read_exact(s, 4) != b"ping":
        die("no echo")
    s.close()


def idle_watch(socks, secs):
    """Close times of the idle connections, after their connect."""
    poll = select.poll()
    by_fd = {}
    for rec in socks:
        poll.register(rec[0], select.POLLIN)
        by_fd[rec[0].fileno()] = rec
    left, until = len(socks), time.monotonic() + secs + 5
    while left and time.monotonic() < until:
        for fd, _ev in poll.poll(200):
            rec = by_fd[fd]
            try:
                if rec[0].recv(4096):
                    continue  # an answer to the partial request
            except BlockingIOError:
                continue
            except OSError:
                pass
            rec[2] = time.monotonic() - rec[1]
            poll.unregister(fd)
            left -= 1
    return [rec[2] for rec in socks]


def cmd_idle_flood(proxy, sport, hport, n, host, tport, secs):
    secs = float(secs)
    socks = idle_open(proxy, (int(sport), int(hport)), int(n))
    got = [timed_client("SOCKS5", lambda: echo_once(socks_connect(proxy, sport, host, tport))),
           timed_client("HTTP", lambda: http_connect_echo(proxy, hport, host, tport))]
    times = idle_watch(socks, secs)
    early = [t for t in times if t is not None and t < secs / 2]
    on_time = [t for t in times if t is not None and secs - 0.5 <= t <= secs + 3]
    if None in times:
        die("%d idle connections still open %.0f s after their connect"
            % (times.count(None), secs + 5))
    if len(early) + len(on_time) != len(times):
        die("idle connections closed at other times: %s"
            % sorted(t for t in times if t not in early and t not in on_time)[:10])
    if len(on_time) < 50:
        die("only %d idle connections lived to the deadline" % len(on_time))
    print("authenticated clients beside %s idle ones: %s; %d idle closed to make room,"
          " %d at the deadline (%.1f-%.1f s)" % (n, ", ".join(got), len(early), len(on_time),
                                                  min(on_time), max(on_time)))


def cmd_stdio_echo(n, *cmd):
    n = int(n)
    data = os.urandom(n)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def feed():
        try:
            p.stdin.write(data)
            p.stdin.close()
        except OSError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    got = bytearray()
    deadline = time.time() + TIMEOUT
    while True:
        r, _, _ = select.select([p.stdout], [], [], max(0, deadline - time.time()))
        chunk = os.read(p.stdout.fileno(), 65536) if r else None
        if not chunk:
            break
        got += chunk
    p.send_signal(signal.SIGHUP)
    p.wait(10)
    if chunk is None:
        die("stdio-echo: %d of %d bytes back, then no EOF within %d s" % (len(got), n, TIMEOUT))
    if bytes(got) != data:
        die("stdio-echo: %d bytes back of %d, %s" % (len(got), n,
            "different" if len(got) == n else "short"))
    print("%d bytes echoed, then EOF" % n)


COMMANDS = {
    "stdio-echo": cmd_stdio_echo,
    "dns": cmd_dns,
    "socks-udp-dns": cmd_socks_udp_dns,
    "echo-server": cmd_echo_server,
    "socks-many": cmd_socks_many,
    "stall": cmd_stall,
    "socks-hold": cmd_socks_hold,
    "socks-rate": cmd_socks_rate,
    "fwd-rate": cmd_fwd_rate,
    "fwd-count": cmd_fwd_count,
    "fwd-hold": cmd_fwd_hold,
    "blast-server": cmd_blast_server,
    "socks-reply": cmd_socks_reply,
    "udp-hijack": cmd_udp_hijack,
    "idle-flood": cmd_idle_flood,
}


def main(argv):
    global USER, PASSWORD
    while argv and argv[0] in ("--user", "--pass"):
        if argv[0] == "--user":
            USER = argv[1]
        else:
            PASSWORD = argv[1]
        argv = argv[2:]
    if not argv or argv[0] not in COMMANDS:
        die("usage: see the top of %s" % __file__)
    socket.setdefaulttimeout(TIMEOUT)
    COMMANDS[argv[0]](*argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
