#!/bin/sh
# zinctun-proxy (rootless mode, issue 17) against a TUN-mode zinctun peer:
# the proxy runs as nobody with no capabilities in its own namespace; the
# peer's namespace has an HTTP server, iperf3 -s and a UDP echo server.
#   [TCPClientTunnel]  curl a file (bytes compared), iperf3 both ways
#   [Socks5]           curl by IPv4 and IPv6 address and by name (the peer's
#                      dnsmasq, through the tunnel), a refused port, an
#                      unknown name
#   [http]             plain and CONNECT requests by name
#   a client that never reads stalls only its own connection
#   wg show            through a symlink in /var/run/wireguard
#   [TCPServerTunnel]  the peer reaches a server local to the proxy
#   [UDPProxyTunnel]   a UDP echo; a client's flow keeps its tunnel port
#                      while active and is forgotten after InactivityTimeout
#   a config error     FILE:LINE message, exit 1
#   SIGUSR1            logs the peer's handshake and transfer, and the
#                      packets lwIP did not take (stack_refused)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"
PROXY=$(realpath -m "$BUILD/zinctun-proxy")
[ -x "$PROXY" ] || fail "$PROXY not built"
# lwIP is the proxy's alone: the TUN daemon links nothing dynamically
# (sanitizer builds link their runtime dynamically)
if [ -z "${SANITIZE:-}" ] && readelf -d "$ZINCTUN" | grep -q NEEDED; then
	fail "$ZINCTUN has dynamic dependencies"
fi
# lwIP is built in, with the program's own options (proxy/lwipopts.h)
readelf -d "$PROXY" | grep -q 'NEEDED.*liblwip' && fail "$PROXY links a shared liblwip"
# scripts/install-deps installs them all
for t in curl iperf3 setpriv python3 dnsmasq; do
	command -v $t >/dev/null || fail "no $t (make deps)"
done

ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname 1)
genkeys k1
genkeys k2
start_daemon zinctun "$N1" "$I1"
conf_iface "$N1" "$I1" k1 1
P1=$(listen_port "$N1" "$I1")
add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128"

# the files and the proxy's configuration, readable by nobody
W=$T/www
mkdir -p "$W" "$T/run"
chmod 755 "$T" "$W"
chown 65534:65534 "$T/run"
head -c 20000000 /dev/urandom >"$W/blob"
chmod 644 "$W/blob"
CONF=$T/proxy.conf
cat >"$CONF" <<EOC
[Interface]
PrivateKey = $(cat "$T/k2.key")
Address = $(tun4 2)/32, $(tun6 2)/128
DNS = $(tun4 1)
MTU = 1420

[Peer]
PublicKey = $(pub k1)
Endpoint = $(ul4 1):$P1
AllowedIPs = $(tun4 1)/32, $(tun6 1)/128

[TCPClientTunnel]
BindAddress = 127.0.0.1:18080
Target = $(tun4 1):8080

[TCPClientTunnel]
BindAddress = 127.0.0.1:15201
Target = [$(tun6 1)]:5201

[TCPServerTunnel]
ListenPort = 9090
Target = 127.0.0.1:19090

[UDPProxyTunnel]
BindAddress = 127.0.0.1:15353
Target = $(tun4 1):7777
InactivityTimeout = 30

[UDPProxyTunnel]
BindAddress = 127.0.0.1:15354
Target = $(tun4 1):7777
InactivityTimeout = 1

[Socks5]
BindAddress = 127.0.0.1:11080

[http]
BindAddress = 127.0.0.1:18888
EOC
chmod 644 "$CONF"

bg() { # NS LOGNAME CMD...: a background process of this test
	ns=$1 name=$2
	shift 2
	ip netns exec "$ns" "$@" >"$T/$name.log" 2>&1 &
	PIDS="$PIDS $!"
	eval "PID_$name=$!"
}
bg "$N1" http python3 -m http.server --bind :: --directory "$W" 8080
bg "$N1" iperf iperf3 -s
bg "$N1" echo python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("'"$(tun4 1)"'", 7777))
while True:
    d, a = s.recvfrom(65535)
    s.sendto(str(a[1]).encode() if d == b"port?" else b"echo:" + d, a)'
bg "$N1" dns dnsmasq -k -u root --no-resolv --no-hosts --bind-interfaces \
	--listen-address="$(tun4 1)" --address=/web.test/"$(tun4 1)" --pid-file="$T/dnsmasq.pid"
bg "$N2" local python3 -m http.server --bind 127.0.0.1 --directory "$W" 19090

wait_listen() { # NS tcp|udp PORT: until something listens there
	for _ in $(seq 100); do
		ip netns exec "$1" ss -Hln --"$2" "sport = :$3" | grep -q . && return 0
		sleep 0.1
	done
	fail "nothing listens on $2 port $3 in $1"
}
wait_listen "$N1" tcp 8080
wait_listen "$N1" tcp 5201
wait_listen "$N1" udp 7777
wait_listen "$N1" udp 53
wait_listen "$N2" tcp 19090

NOCAPS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
# ZINCTUN_TUN_QUEUES: the daemon's multi-queue TUN, which the proxy ignores
# shellcheck disable=SC2086 # NOCAPS: setpriv and its options
bg "$N2" proxy env LOG_LEVEL=${PROXY_LOG:-info} ZINCTUN_TUN_QUEUES=2 $NOCAPS "$PROXY" --socket "$T/run/p.sock" "$CONF"
for _ in $(seq 50); do [ -S "$T/run/p.sock" ] && break; sleep 0.1; done
[ -S "$T/run/p.sock" ] || fail "no configuration socket"
grep -q CapEff:.0000000000000000 "/proc/$PID_proxy/status" || fail "proxy has capabilities"
[ "$(stat -c %u /proc/"$PID_proxy")" = 65534 ] || fail "proxy is not nobody"
ls -l "/proc/$PID_proxy/fd" | grep -q /dev/net/tun && fail "proxy holds /dev/net/tun"
sleep 0.5

log "TCPClientTunnel: curl a 20 MB file"
ip netns exec "$N2" curl -sS --max-time 60 -o "$T/got" http://127.0.0.1:18080/blob ||
	fail "curl through TCPClientTunnel"
cmp -s "$W/blob" "$T/got" || fail "TCPClientTunnel: file differs"
ok "TCPClientTunnel file"

log "SOCKS5: curl by IPv4 and IPv6 address"
ip netns exec "$N2" curl -sS --max-time 60 -o "$T/got4" --socks5 127.0.0.1:11080 \
	"http://$(tun4 1):8080/blob" || fail "curl through SOCKS5 (IPv4)"
cmp -s "$W/blob" "$T/got4" || fail "SOCKS5 IPv4: file differs"
ip netns exec "$N2" curl -sS --max-time 60 -o "$T/got6" --socks5-hostname 127.0.0.1:11080 \
	"http://[$(tun6 1)]:8080/blob" || fail "curl through SOCKS5 (IPv6)"
cmp -s "$W/blob" "$T/got6" || fail "SOCKS5 IPv6: file differs"
ip netns exec "$N2" curl -sS --max-time 60 -o "$T/gotn" --socks5-hostname 127.0.0.1:11080 \
	"http://web.test:8080/blob" || fail "curl through SOCKS5 (name)"
cmp -s "$W/blob" "$T/gotn" || fail "SOCKS5 name: file differs"
ip netns exec "$N2" curl -sS --max-time 20 -o /dev/null --socks5 127.0.0.1:11080 \
	"http://$(tun4 1):8081/" 2>"$T/refused.err" && fail "SOCKS5: closed port answered"
grep -q "(5)" "$T/refused.err" || fail "SOCKS5 closed port: $(cat "$T/refused.err")"
ip netns exec "$N2" curl -sS --max-time 30 -o /dev/null --socks5-hostname 127.0.0.1:11080 \
	"http://nowhere.test:8080/" 2>"$T/unknown.err" && fail "SOCKS5: unknown name answered"
grep -q "(4)" "$T/unknown.err" || fail "SOCKS5 unknown name: $(cat "$T/unknown.err")"
ok "SOCKS5 CONNECT"

log "HTTP proxy: plain and CONNECT"
ip netns exec "$N2" curl -sS --max-time 60 -o "$T/goth" -x http://127.0.0.1:18888 \
	"http://web.test:8080/blob" || fail "curl through [http] (plain)"
cmp -s "$W/blob" "$T/goth" || fail "[http] plain: file differs"
ip netns exec "$N2" curl -sS --max-time 60 -o "$T/gotc" -p -x http://127.0.0.1:18888 \
	"http://web.test:8080/blob" || fail "curl through [http] (CONNECT)"
cmp -s "$W/blob" "$T/gotc" || fail "[http] CONNECT: file differs"
ok "HTTP proxy"

log "a client that never reads does not stall the others"
bg "$N2" stuck python3 -c '
import socket, time
s = socket.create_connection(("127.0.0.1", 18080))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.sendall(b"GET /blob HTTP/1.0\r\n\r\n")
time.sleep(60)'
sleep 1
ip netns exec "$N2" curl -sS --max-time 30 -o "$T/got2" http://127.0.0.1:18080/blob ||
	fail "curl while a client does not read"
cmp -s "$W/blob" "$T/got2" || fail "file differs while a client does not read"
ok "stalled client"

log "TCPServerTunnel: the peer reaches a server local to the proxy"
ip netns exec "$N1" curl -sS --max-time 60 -o "$T/gots" "http://$(tun4 2):9090/blob" ||
	fail "curl through TCPServerTunnel"
cmp -s "$W/blob" "$T/gots" || fail "TCPServerTunnel: file differs"
ok "TCPServerTunnel"

log "UDPProxyTunnel: echo"
out=$(ip netns exec "$N2" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
for _ in range(5):
    s.sendto(b"ping", ("127.0.0.1", 15353))
    try:
        print(s.recvfrom(100)[0].decode()); break
    except socket.timeout:
        pass')
[ "$out" = "echo:ping" ] || fail "UDP echo: '$out'"
# the tunnel port the peer sees: the same while the flow is active, a new
# one once InactivityTimeout (1 s) forgot it
ports=$(ip netns exec "$N2" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
def port():
    s.sendto(b"port?", ("127.0.0.1", 15354))
    return s.recvfrom(100)[0].decode()
a = port(); time.sleep(0.3); b = port(); time.sleep(0.3); c = port()
time.sleep(3)
print(a, b, c, port())')
set -- $ports
[ $# = 4 ] && [ "$1" = "$2" ] && [ "$2" = "$3" ] || fail "UDP flow changed port while active: $ports"
[ "$4" != "$3" ] || fail "UDP flow not forgotten after InactivityTimeout: $ports"
ok "UDPProxyTunnel (flow ports $ports)"

log "SOCKS5 UDP ASSOCIATE: echo"
out=$(ip netns exec "$N2" python3 -c '
import socket, struct
t = socket.create_connection(("127.0.0.1", 11080), timeout=5)
t.sendall(b"\x05\x01\x00")
assert t.recv(2) == b"\x05\x00"
t.sendall(b"\x05\x03\x00\x01\x00\x00\x00\x00\x00\x00")
r = t.recv(10)
assert r[:4] == b"\x05\x00\x00\x01", r
relay = (socket.inet_ntoa(r[4:8]), struct.unpack(">H", r[8:10])[0])
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(2)
head = b"\x00\x00\x00\x01" + socket.inet_aton("'"$(tun4 1)"'") + struct.pack(">H", 7777)
for _ in range(5):
    u.sendto(head + b"udp", relay)
    try:
        d = u.recv(100)
    except socket.timeout:
        continue
    assert d[:10] == head, d
    print(d[10:].decode())
    break')
[ "$out" = "echo:udp" ] || fail "SOCKS5 UDP ASSOCIATE echo: '$out'"
ok "SOCKS5 UDP ASSOCIATE"

log "TCPClientTunnel: iperf3 both ways"
for dir in "" -R; do
	# shellcheck disable=SC2086
	ip netns exec "$N2" iperf3 -c 127.0.0.1 -p 15201 -t 3 $dir -J >"$T/iperf$dir.json" ||
		fail "iperf3 $dir"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.0f Mbit/s" % (d["end"]["sum_received"]["bits_per_second"]/1e6))' \
		"$T/iperf$dir.json" | sed "s/^/iperf3 $dir: /"
done
ok "iperf3"

kill -USR1 "$PID_proxy"
sleep 0.3
grep -q "peer(.*) endpoint .* latest handshake [0-9]* s ago transfer [1-9][0-9]* B received" \
	"$T/proxy.log" ||
	fail "SIGUSR1: no peer line"
# every packet of the transfers above went into lwIP
grep 'stats:' "$T/proxy.log" | tail -n 1 | grep -q ' stack_refused=0' ||
	fail "SIGUSR1: $(grep 'stats:' "$T/proxy.log" | tail -n 1)"
# a SYN to an address no peer has: the data path's ICMP error for it comes
# back while lwIP is still sending, which lwIP cannot take then
ip netns exec "$N2" curl -sS --max-time 3 -o /dev/null --socks5 127.0.0.1:11080 \
	"http://192.0.2.1/" 2>/dev/null && fail "SOCKS5: 192.0.2.1 answered"
kill -USR1 "$PID_proxy"
sleep 0.3
refused=$(grep 'stats:' "$T/proxy.log" | tail -n 1 | sed -n 's/.* stack_refused=\([0-9]*\).*/\1/p')
[ "${refused:-0}" -ge 1 ] || fail "the refused ICMP error is not counted: '$refused'"
ok "SIGUSR1"

log "wg show through /var/run/wireguard"
PNAME=zt${ID}p
IFACES="$IFACES $PNAME"
mkdir -p "$SOCKDIR"
ln -s "$T/run/p.sock" "$SOCKDIR/$PNAME.sock"
wg show "$PNAME" >"$T/wgshow.out" 2>&1 || fail "wg show: $(cat "$T/wgshow.out")"
grep -q "peer: $(pub k1)" "$T/wgshow.out" || fail "wg show: no peer"
grep -q "latest handshake" "$T/wgshow.out" || fail "wg show: no handshake"
ok "wg show"

log "the default socket path"
# an XDG_RUNTIME_DIR that is not nobody's (inherited from root) is skipped
printf '[Interface]\nPrivateKey = %s\nAddress = 10.98.0.2/32\n[Peer]\nPublicKey = %s\n' \
	"$(cat "$T/k2.key")" "$(pub k1)" >"$T/bare.conf"
chmod 644 "$T/bare.conf"
# shellcheck disable=SC2086 # NOCAPS: setpriv and its options
bg "$N2" bare env XDG_RUNTIME_DIR=/root $NOCAPS "$PROXY" --name "zt${ID}b" "$T/bare.conf"
sock=/tmp/zinctun-65534/zt${ID}b.sock
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || fail "no socket at $sock: $(cat "$T/bare.log")"
[ "$(stat -c %a /tmp/zinctun-65534)" = 700 ] || fail "/tmp/zinctun-65534 is not 0700"
kill "$PID_bare"
wait_gone "$PID_bare" || fail "the proxy did not stop"
# the seccomp filter forbids unlink: the file may stay, answering nothing
# (a later start takes it over, like the daemon's)
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$sock" \
	2>/dev/null && fail "$sock still answers"
rm -f "$sock"
ok "default socket path"

log "a config error"
printf '[Interface]\nPrivateKey = nope\n' >"$T/bad.conf"
"$PROXY" "$T/bad.conf" >"$T/bad.out" 2>&1
[ $? = 1 ] || fail "bad config: exit status not 1"
grep -q "^$T/bad.conf:2: " "$T/bad.out" || fail "bad config: $(cat "$T/bad.out")"
ok "config error"
echo PASS
