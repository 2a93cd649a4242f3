#!/bin/sh
# The configuration socket against wg(8) and raw requests: transactions
# (a rejected set changes nothing), clamped private key, own key ignored,
# remove / update_only / replace_*, listen port and fwmark, setconf/showconf
# round trip, several clients at once, silent and oversized clients.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 1
N=$(ns_name 1) I=$(ifname c)
start_daemon "${IMPL:-zinctun}" "$N" "$I"
w() { ip netns exec "$N" wg "$@"; }
genkeys own
genkeys p1
genkeys p2
genkeys p3
genkeys psk
wg genpsk >"$T/psk.key"

# -- clamped private key: all 0xff reads back clamped
r=$(uapi "$I" "set=1
private_key=$(printf 'f%.0s' $(seq 64))

")
[ "$r" = "errno=0" ] || fail "set private key: $r"
got=$(uapi "$I" $'get=1\n\n' | sed -n 's/^private_key=//p')
[ "$got" = "f8$(printf 'f%.0s' $(seq 60))7f" ] || fail "private key not clamped: $got"
ok "private key read back clamped"

w set "$I" private-key "$T/own.key" listen-port 0 || fail "wg set private-key"
[ "$(w show "$I" public-key)" = "$(pub own)" ] || fail "public key"

# -- a peer with our own public key is ignored
w set "$I" peer "$(pub own)" allowed-ips 10.1.0.0/24
[ -z "$(w show "$I" peers)" ] || fail "own key accepted as a peer"
ok "own public key ignored as peer"

# -- build a configuration
w set "$I" fwmark 0x1234 peer "$(pub p1)" preshared-key "$T/psk.key" endpoint 192.0.2.1:51820 \
	allowed-ips 10.1.0.0/24,fd01::/64 persistent-keepalive 25 \
	peer "$(pub p2)" endpoint "[2001:db8::2]:443" allowed-ips 10.2.0.0/16 || fail "wg set peers"
[ "$(w show "$I" fwmark)" = "0x1234" ] || fail "fwmark $(w show "$I" fwmark)"
[ "$(w show "$I" peers | wc -l)" = 2 ] || fail "two peers expected"
[ "$(w show "$I" preshared-keys | awk -v k="$(pub p1)" '$1==k{print $2}')" = "$(cat "$T/psk.key")" ] ||
	fail "preshared key"
w showconf "$I" >"$T/conf1" || fail "showconf"
grep -q "Endpoint = \[2001:db8::2\]:443" "$T/conf1" || fail "IPv6 endpoint: $(cat "$T/conf1")"
grep -q "PersistentKeepalive = 25" "$T/conf1" || fail "keepalive"
grep -q "FwMark = 0x1234" "$T/conf1" || fail "fwmark in showconf"

# raw get: wireguard-go's key order
uapi "$I" $'get=1\n\n' >"$T/get1"
keys=$(sed -n '/^public_key=/,/^public_key=/p' "$T/get1" | cut -d= -f1 | head -11 | tr '\n' ' ')
want="public_key preshared_key protocol_version endpoint last_handshake_time_sec last_handshake_time_nsec tx_bytes rx_bytes persistent_keepalive_interval allowed_ip allowed_ip "
[ "$keys" = "$want" ] || fail "get key order: '$keys'"
[ "$(head -1 "$T/get1" | cut -d= -f1)" = private_key ] || fail "get starts with private_key"
[ "$(tail -2 "$T/get1" | head -1)" = "errno=0" ] || fail "get ends with errno=0"
ok "get output order matches wireguard-go"

# -- rejected sets change nothing
same_conf() {
	w showconf "$I" >"$T/conf2"
	cmp -s "$T/conf1" "$T/conf2" || { diff "$T/conf1" "$T/conf2"; fail "config changed: $1"; }
}
expect_errno() { # want request what
	r=$(uapi "$I" "$2")
	[ "$r" = "errno=$1" ] || fail "$3: answered '$r', expected errno=$1"
	same_conf "$3"
	ok "rejected ($1): $3"
}
K3=$(hexkey p3 pub)
expect_errno -22 "set=1
private_key=$(hexkey p3 key)
replace_peers=true
public_key=$K3
allowed_ip=10.3.0.0/33

" "bad cidr after a key change and replace_peers"
expect_errno -22 "set=1
listen_port=1234
public_key=$K3
endpoint=nonsense

" "bad endpoint"
expect_errno -22 "set=1
fwmark=99
public_key=$K3
persistent_keepalive_interval=65536

" "keepalive out of range"
expect_errno -22 "set=1
public_key=$K3
protocol_version=2

" "protocol version 2"
expect_errno -22 "set=1
allowed_ip=10.0.0.0/8

" "peer key before any public_key"
expect_errno -22 "set=1
private_key=abcd

" "short private key"
expect_errno -22 "set=1
public_key=$K3
bogus_key=1

" "unknown key"
expect_errno -71 "set=1
public_key=$K3
no equals sign

" "line without ="
w set "$I" peer "$(pub p3)" allowed-ips 10.3.0.0/33 2>/dev/null && fail "wg accepted /33"
same_conf "wg set with a bad prefix"

# port in use: a UDP socket holds it (both families) inside the namespace
ip netns exec "$N" python3 -c '
import socket, sys, time
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("0.0.0.0", 0))
p = a.getsockname()[1]
b = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
b.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1); b.bind(("::", p))
print(p, flush=True); time.sleep(20)' >"$T/busy" 2>&1 &
HOLDER=$!
PIDS="$PIDS $HOLDER"
for _ in $(seq 1 30); do [ -s "$T/busy" ] && break; sleep 0.1; done
BUSY=$(cat "$T/busy")
expect_errno -98 "set=1
private_key=$(hexkey p3 key)
listen_port=$BUSY
replace_peers=true
public_key=$K3
allowed_ip=10.3.0.0/24

" "listen port in use"
w set "$I" listen-port "$BUSY" 2>"$T/err" && fail "wg set busy port succeeded"
grep -qi "in use" "$T/err" || fail "wg error message: $(cat "$T/err")"
same_conf "wg set listen-port busy"
kill "$HOLDER"

# -- the daemon survives garbage and a bad operation closes only that client
uapi "$I" $'bogus=1\n\n' >/dev/null 2>&1
uapi "$I" $'get=1\nx\n\n' | grep -q "errno=-22" || fail "get with trailing garbage"
same_conf "garbage operations"

# -- setconf / showconf round trip
w setconf "$I" "$T/conf1" || fail "setconf"
same_conf "setconf of showconf"
ok "setconf(showconf) is identity"

# -- syncconf: wg diffs against a get; peers not in the file go away
awk -v k="$(pub p2)" 'BEGIN { RS = ""; ORS = "\n\n" } index($0, k) == 0' "$T/conf1" >"$T/sync.conf"
printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.3.3.0/24\n' "$(pub p3)" >>"$T/sync.conf"
w syncconf "$I" "$T/sync.conf" || fail "syncconf"
w showconf "$I" >"$T/conf3"
grep -q "$(pub p2)" "$T/conf3" && fail "syncconf kept peer 2"
grep -q "AllowedIPs = 10.3.3.0/24" "$T/conf3" || fail "syncconf did not add peer 3"
grep -q "Endpoint = 192.0.2.1:51820" "$T/conf3" || fail "syncconf lost peer 1's endpoint"
w setconf "$I" "$T/conf1" || fail "setconf back"
same_conf "setconf after syncconf"
ok "syncconf"

# -- update_only, remove, replace_allowed_ips, preshared key removal
r=$(uapi "$I" "set=1
public_key=$K3
update_only=true
allowed_ip=10.3.0.0/24

")
[ "$r" = "errno=0" ] || fail "update_only: $r"
w show "$I" peers | grep -q "$(pub p3)" && fail "update_only created a peer"
ok "update_only does not create"
w set "$I" peer "$(pub p1)" allowed-ips 10.5.0.0/24 || fail "replace allowed ips"
[ "$(w show "$I" allowed-ips | awk -v k="$(pub p1)" '$1==k{print $2}')" = "10.5.0.0/24" ] ||
	fail "replace_allowed_ips: $(w show "$I" allowed-ips)"
w set "$I" peer "$(pub p2)" allowed-ips 10.5.0.0/24 || fail "move prefix"
[ "$(w show "$I" allowed-ips | awk -v k="$(pub p1)" '$1==k{print $2}')" = "(none)" ] ||
	fail "prefix did not move: $(w show "$I" allowed-ips)"
ok "allowed ips replaced and moved between peers"
w set "$I" peer "$(pub p1)" preshared-key /dev/null || fail "psk removal"
[ "$(w show "$I" preshared-keys | awk -v k="$(pub p1)" '$1==k{print $2}')" = "(none)" ] ||
	fail "preshared key not removed"
w set "$I" peer "$(pub p1)" remove || fail "remove"
[ "$(w show "$I" peers)" = "$(pub p2)" ] || fail "remove left: $(w show "$I" peers)"
ok "remove"
w set "$I" fwmark 0 || fail "fwmark 0"
[ "$(w show "$I" fwmark)" = "off" ] || fail "fwmark off"
r=$(uapi "$I" "set=1
replace_peers=true

")
[ "$r" = "errno=0" ] && [ -z "$(w show "$I" peers)" ] || fail "replace_peers"
ok "replace_peers"

# -- many peers: a big set in one request, a get larger than socket buffers
ip netns exec "$N" python3 - "$SOCKDIR/$I.sock" >"$T/many.log" 2>&1 <<'PY' || fail "many peers: $(cat "$T/many.log")"
import os, sys
import uapi
n = 3000
req = ["set=1"]
for i in range(n):
    req += ["public_key=" + os.urandom(32).hex(), "endpoint=192.0.2.%d:%d" % (i % 250 + 1, 1000 + i),
            "allowed_ip=10.%d.%d.0/24" % (i // 256 + 100, i % 256), "allowed_ip=fd%02x::%x/128" % (i % 256, i)]
s = uapi.connect(sys.argv[1], 20)
s.sendall(("\n".join(req) + "\n\n").encode())
r = uapi.answer(s)
assert r == b"errno=0\n\n", r
s.sendall(b"get=1\n\n")
out = uapi.answer(s)
assert out is not None and out.endswith(b"errno=0\n\n"), "connection closed"
peers = out.count(b"\npublic_key=")
aips = out.count(b"\nallowed_ip=")
assert peers == n and aips == 2 * n, (peers, aips)
print("peers", peers, "bytes", len(out))
PY
[ "$(w show "$I" peers | wc -l)" = 3000 ] || fail "wg show peers after the big set"
r=$(uapi "$I" "set=1
replace_peers=true

")
[ "$r" = "errno=0" ] && [ -z "$(w show "$I" peers)" ] || fail "clearing 3000 peers"
ok "3000 peers in one set, $(sed -n 's/.*bytes //p' "$T/many.log")-byte get"

# -- listen port change: both families rebound
PORT=$((20000 + $$ % 20000))
w set "$I" listen-port "$PORT" || fail "listen-port $PORT"
[ "$(w show "$I" listen-port)" = "$PORT" ] || fail "listen port not reported"
ip netns exec "$N" ss -uln | grep -q "0.0.0.0:$PORT " || fail "no IPv4 socket on $PORT"
ip netns exec "$N" ss -uln | grep -q "\[::\]:$PORT " || fail "no IPv6 socket on $PORT"
ok "listen port $PORT on IPv4 and IPv6"

# -- clients: silent ones, an oversized one, many at once
ip netns exec "$N" python3 - "$SOCKDIR/$I.sock" >"$T/clients.log" 2>&1 <<'PY' || fail "clients: $(cat "$T/clients.log")"
import socket, sys, threading, time
import uapi
path = sys.argv[1]
def conn():
    return uapi.connect(path)
def get(s):
    s.sendall(b"get=1\n\n")
    out = uapi.answer(s)
    if out is None or not out.endswith(b"errno=0\n\n"): raise SystemExit("closed early")
    return out
silent = [conn() for _ in range(5)]
silent[0].sendall(b"get=1\n")          # half a request, then nothing
silent[1].sendall(b"set=1\nprivate_")   # half a set
t0 = time.time(); get(conn())
assert time.time() - t0 < 1, "get stalled behind silent clients"
# oversized request: the daemon drops that client, nobody else suffers
big = conn()
try:
    chunk = b"allowed_ip=10.0.0.0/8\n" * 10000
    big.sendall(b"set=1\npublic_key=" + b"a" * 64 + b"\n")
    for _ in range(400): big.sendall(chunk)
except (BrokenPipeError, ConnectionResetError, socket.timeout):
    pass
# many at once, each with two requests on one connection
errs = []
def worker():
    try:
        s = conn(); get(s); get(s)
    except BaseException as e:
        errs.append(repr(e))
ts = [threading.Thread(target=worker) for _ in range(20)]
[t.start() for t in ts]; [t.join() for t in ts]
assert not errs, errs
print("clients ok")
PY
ok "silent, oversized and 20 concurrent clients"
kill -0 "$(eval echo \$PID_$I)" || fail "daemon died"
echo PASS
