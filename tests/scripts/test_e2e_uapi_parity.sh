#!/bin/sh
# The configuration socket against what the Linux module and wireguard-go
# print and do: a link-local endpoint keeps its zone (read back by index,
# by wg as the interface name) and its packets leave through that
# interface; an IPv4-mapped endpoint stays IPv6; allowed IPs read back in
# the order a re-added prefix takes (the end of the peer's list); malformed
# framing is answered or closed at once, never left waiting.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 1
N=$(ns_name 1) I=$(ifname u)
start_daemon zinctun "$N" "$I"
w() { ip netns exec "$N" wg "$@"; }
genkeys own
genkeys p1
genkeys p2
w set "$I" private-key "$T/own.key" || fail "wg set private-key"
K1=$(hexkey p1 pub)
set_peer() { # LINES...: one set request for peer p1
	r=$(uapi "$I" "set=1
public_key=$K1
$(printf '%s\n' "$@")

")
	[ "$r" = "errno=0" ] || fail "set $*: $r"
}
get_endpoint() { uapi "$I" $'get=1\n\n' | sed -n "/^public_key=$K1/,/^public_key=/s/^endpoint=//p"; }

# -- endpoints: the zone kept, IPv4-mapped kept IPv6
LO=$(ip netns exec "$N" cat /sys/class/net/lo/ifindex)
set_peer "endpoint=[fe80::1%$LO]:51820"
[ "$(get_endpoint)" = "[fe80::1%$LO]:51820" ] || fail "zone by index read back as $(get_endpoint)"
[ "$(wg_field "$N" "$I" endpoints p1)" = "[fe80::1%lo]:51820" ] ||
	fail "wg show: $(wg_field "$N" "$I" endpoints p1)"
set_peer "endpoint=[fe80::2%lo]:51821"
[ "$(get_endpoint)" = "[fe80::2%$LO]:51821" ] || fail "zone by name read back as $(get_endpoint)"
ok "link-local endpoint keeps its zone ([fe80::1%$LO]:51820, wg: %lo)"
w set "$I" peer "$(pub p1)" endpoint "[::ffff:10.0.0.1]:51820" || fail "wg set v4-mapped"
[ "$(get_endpoint)" = "[::ffff:10.0.0.1]:51820" ] || fail "v4-mapped read back as $(get_endpoint)"
[ "$(wg_field "$N" "$I" endpoints p1)" = "[::ffff:10.0.0.1]:51820" ] ||
	fail "wg show v4-mapped: $(wg_field "$N" "$I" endpoints p1)"
ok "IPv4-mapped endpoint reads back as written"

# -- allowed IPs: a prefix inserted again goes to the end of the list
aips() { wg_field "$N" "$I" allowed-ips p1; }
expect_aips() { [ "$(aips)" = "$1" ] || fail "$2: allowed IPs '$(aips)', expected '$1'"; }
w set "$I" peer "$(pub p1)" allowed-ips 10.0.0.0/8,10.1.0.0/16,10.128.0.0/16,fd01::/64 ||
	fail "wg set allowed-ips"
expect_aips "10.0.0.0/8 10.1.0.0/16 10.128.0.0/16 fd01::/64" "as set"
set_peer "allowed_ip=10.1.0.0/16"
expect_aips "10.0.0.0/8 10.128.0.0/16 fd01::/64 10.1.0.0/16" "the same prefix added again"
# 10.0.0.0/8 has two children in the trie: it stays as a branch node
set_peer "allowed_ip=-10.0.0.0/8" "allowed_ip=10.0.0.0/8"
expect_aips "10.128.0.0/16 fd01::/64 10.1.0.0/16 10.0.0.0/8" "removed and added again"
w set "$I" peer "$(pub p2)" allowed-ips fd01::/64 || fail "wg set p2"
set_peer "allowed_ip=fd01::/64"
expect_aips "10.128.0.0/16 10.1.0.0/16 10.0.0.0/8 fd01::/64" "taken from another peer"
w set "$I" peer "$(pub p1)" allowed-ips fd01::/64,10.0.0.0/8 || fail "wg set replace"
expect_aips "fd01::/64 10.0.0.0/8" "replaced"
ok "allowed IPs read back in list order (re-added prefixes last)"

# -- framing: each malformed request is answered or closed at once
python3 - "$SOCKDIR/$I.sock" <<'EOF' || fail "framing"
import socket, sys, uapi

def outcome(req):
    # far below the daemon's 30 s client timeout: no answer means waiting
    s = uapi.connect(sys.argv[1], timeout=10)
    try:
        s.sendall(req)
        out, _ = uapi.read_reply(s)
        if out.endswith(b"\n\n"):
            # after an errno answer, the daemon closes
            more = s.recv(100)
            return out + (b"<closed>" if not more else b"<more>")
        return out + b"<closed>"
    except socket.timeout:
        return b"<waiting>"
    finally:
        s.close()

cases = [
    (b"get=1\r\n\r\n", b"<closed>"),
    (b"get=1\r", b"<closed>"),
    (b"set=1\r\nlisten_port=1\r\n\r\n", b"<closed>"),
    (b"get=1\nx", b"errno=-22\n\n<closed>"),
    (b"get=1\n\r\n", b"errno=-22\n\n<closed>"),
    (b"get=1\njunk\n\n", b"errno=-22\n\n<closed>"),
]
bad = 0
for req, want in cases:
    got = outcome(req)
    if got != want:
        print("request %r: got %r, expected %r" % (req, got, want))
        bad += 1
# CRLF set lines are read as wireguard-go reads them
r = uapi.call(sys.argv[1], b"set=1\nfwmark=7\r\n\r\n", timeout=10)
if r != b"errno=0\n\n":
    print("CRLF set: %r" % r)
    bad += 1
sys.exit(1 if bad else 0)
EOF
[ "$(w show "$I" fwmark)" = "0x7" ] || fail "CRLF set not applied: fwmark $(w show "$I" fwmark)"
ok "malformed framing answered or closed at once; CRLF set applied"

# -- link-local traffic: two links whose far ends both are fe80::2; the
# zone alone picks the link. B is a WireGuard peer, C only counts datagrams.
NA=$(ns_name a) NB=$(ns_name b) NC=$(ns_name c)
IA=$(ifname la) IB=$(ifname lb)
for n in "$NA" "$NB" "$NC"; do
	ip netns add "$n" || fail "ip netns add $n"
	NSES="$NSES $n"
	ip -n "$n" link set lo up
done
for x in b c; do
	ns=$([ $x = b ] && echo "$NB" || echo "$NC")
	ip link add "zt${ID}l$x" type veth peer name "zt${ID}r$x" || fail "veth"
	ip link set "zt${ID}l$x" netns "$NA"
	ip link set "zt${ID}r$x" netns "$ns"
	ip -n "$NA" link set "zt${ID}l$x" name "to$x"
	ip -n "$ns" link set "zt${ID}r$x" name eth0
	# only the addresses below: no DAD, no address generated from the MAC
	ip -n "$NA" link set "to$x" addrgenmode none
	ip -n "$ns" link set eth0 addrgenmode none
	ip -n "$NA" addr add fe80::1/64 dev "to$x" nodad
	ip -n "$ns" addr add fe80::2/64 dev eth0 nodad
	ip -n "$ns" addr add 2001:db8:77::2/128 dev eth0 nodad
	ip -n "$NA" link set "to$x" up
	ip -n "$ns" link set eth0 up
done
# a global address both ends hold too, routed through tob first
ip -n "$NA" addr add 2001:db8:77::1/128 dev lo
ip -n "$NA" -6 route add 2001:db8:77::2/128 dev tob metric 100
ip -n "$NA" -6 route add 2001:db8:77::2/128 dev toc metric 200
TOB=$(ip netns exec "$NA" cat /sys/class/net/tob/ifindex)
TOC=$(ip netns exec "$NA" cat /sys/class/net/toc/ifindex)
genkeys ka
genkeys kb
start_daemon zinctun "$NA" "$IA"
start_daemon zinctun "$NB" "$IB"
conf_iface "$NA" "$IA" ka 1
conf_iface "$NB" "$IB" kb 2
PB=$(listen_port "$NB" "$IB")
ip netns exec "$NC" python3 - "$PB" "$T/c.count" <<'EOF' >"$T/c.log" 2>&1 &
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", int(sys.argv[1])))
n = 0
open(sys.argv[2], "w").write("0\n")
while True:
    s.recv(65536)
    n += 1
    open(sys.argv[2], "w").write("%d\n" % n)
EOF
PIDS="$PIDS $!"
for _ in $(seq 1 50); do [ -s "$T/c.count" ] && break; sleep 0.1; done
[ -s "$T/c.count" ] || fail "listener in C did not start"
add_peer "$NA" "$IA" kb "$(tun4 2)/32" "[fe80::2%tob]:$PB"
add_peer "$NB" "$IB" ka "$(tun4 1)/32"
[ "$(wg_field "$NA" "$IA" endpoints kb)" = "[fe80::2%tob]:$PB" ] ||
	fail "A: endpoint $(wg_field "$NA" "$IA" endpoints kb)"
ping_ok "$NA" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping over [fe80::2%tob]"; }
[ "$(wg_field "$NB" "$IB" endpoints ka)" = "[fe80::1%eth0]:$(listen_port "$NA" "$IA")" ] ||
	fail "B learned endpoint $(wg_field "$NB" "$IB" endpoints ka)"
[ "$(cat "$T/c.count")" = 0 ] || fail "C got $(cat "$T/c.count") datagrams meant for B"
ok "traffic to [fe80::2%$TOB] went out through tob only"

ip netns exec "$NA" wg set "$IA" peer "$(pub kb)" endpoint "[fe80::2%$TOC]:$PB" ||
	fail "wg set endpoint toc"
ip netns exec "$NA" ping -c 3 -i 0.2 -W 1 "$(tun4 2)" >/dev/null 2>&1
for _ in $(seq 1 50); do [ "$(cat "$T/c.count")" != 0 ] && break; sleep 0.1; done
[ "$(cat "$T/c.count")" != 0 ] || fail "nothing reached C through toc"
[ "$(wg_field "$NA" "$IA" endpoints kb)" = "[fe80::2%toc]:$PB" ] ||
	fail "A: endpoint $(wg_field "$NA" "$IA" endpoints kb)"
ok "after the zone changed to toc ($TOC), C got $(cat "$T/c.count") datagrams"

c0=$(cat "$T/c.count")
ip netns exec "$NA" wg set "$IA" peer "$(pub kb)" endpoint "[2001:db8:77::2%$TOC]:$PB" ||
	fail "wg set global endpoint with a zone"
ep=$(uapi "$IA" $'get=1\n\n' | sed -n 's/^endpoint=//p')
[ "$ep" = "[2001:db8:77::2%$TOC]:$PB" ] || fail "A: endpoint read back as $ep"
ip netns exec "$NA" ping -c 3 -i 0.2 -W 1 "$(tun4 2)" >/dev/null 2>&1
for _ in $(seq 1 50); do [ "$(cat "$T/c.count")" -gt "$c0" ] && break; sleep 0.1; done
[ "$(cat "$T/c.count")" -gt "$c0" ] ||
	fail "[2001:db8:77::2%toc] went the route's way (tob), not through toc"
ok "a zone on a global address picks the link over the route ($(($(cat "$T/c.count") - c0)) datagrams to C)"
