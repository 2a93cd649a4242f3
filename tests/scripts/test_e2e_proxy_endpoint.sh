#!/bin/sh
# zinctun-proxy follows a [Peer] Endpoint given as a host name (issue 26):
#   1. the name has an address of each family, and the one getaddrinfo
#      gives first leads nowhere: after a failed handshake try the proxy
#      tries the other family and reaches the peer;
#   2. the peer's address changes and so does the name: after the next
#      failed handshake the proxy looks the name up again and follows it.
# The name lives in a hosts file bind-mounted over /etc/hosts in the
# proxy's own mount namespace only (unshare -m): the machine's file is
# never touched. The proxy looks names up through its helper process
# (its seccomp filter forbids opening /etc/hosts).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"
resolve_proxy
[ "$PROXY_IMPL" = zinctun ] || { echo "wireproxy resolves Endpoint once: nothing to validate"; exit 77; }
for t in curl setpriv unshare python3; do
	command -v $t >/dev/null || fail "no $t (make deps)"
done
NAME=peer$ID.test
DEAD4=10.200.0.77 DEAD6=fd00:200::77 # no host there: datagrams vanish

chmod 755 "$T"
ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname p)
genkeys peer
genkeys proxy
start_daemon zinctun "$N1" "$I1"
conf_iface "$N1" "$I1" peer 1
P1=$(listen_port "$N1" "$I1")
add_peer "$N1" "$I1" proxy "$(tun4 2)/32,$(tun6 2)/128"
mkdir -p "$T/www"
echo "hello through the tunnel" >"$T/www/small"
spawn_in "$N1" web python3 -m http.server "$WEB_PORT" --bind :: --directory "$T/www"
wait_tcp "$N1" "$WEB_PORT" || fail "web server did not start"

# HOSTS CMD...: CMD with HOSTS over /etc/hosts (in this mount namespace)
cat >"$T/hostsns" <<'EOF'
#!/bin/sh
h=$1
shift
mount --bind "$h" /etc/hosts && exec "$@"
EOF
chmod 755 "$T/hostsns"
HOSTSNS="unshare -m --propagation private $T/hostsns $T/hosts"
# the address getaddrinfo gives first for NAME, as the proxy would see it
first_addr() {
	# shellcheck disable=SC2086 # HOSTSNS: the command's words
	ip netns exec "$N2" $HOSTSNS python3 -c 'import socket, sys
print(socket.getaddrinfo(sys.argv[1], 1, type=socket.SOCK_DGRAM)[0][4][0])' "$NAME"
}
# hosts ADDR...: NAME at these addresses (rewritten in place: the mount
# holds the file's inode)
hosts() {
	for a in "$@"; do echo "$a $NAME"; done >"$T/hosts"
}

# the family glibc sorts first is the dead one
hosts "$DEAD4" "$DEAD6"
if [ "$(first_addr)" = "$DEAD4" ]; then
	dead=$DEAD4 live=$(ul6 1) moved=$(ul6 9) bits=64 nodad=nodad live_ep="[$(ul6 1)]:$P1"
	moved_ep="[$moved]:$P1"
else
	dead=$DEAD6 live=$(ul4 1) moved=$(ul4 9) bits=24 nodad= live_ep="$(ul4 1):$P1"
	moved_ep="$moved:$P1"
fi
hosts "$dead" "$live"
[ "$(first_addr)" = "$dead" ] || fail "getaddrinfo gives $(first_addr) first, not $dead"
log "$NAME: $dead (first, nothing there), then $live (the peer)"

cat >"$CONF" <<EOF
[Interface]
PrivateKey = $(cat "$T/proxy.key")
Address = $(tun4 2)/32, $(tun6 2)/128

[Peer]
PublicKey = $(pub peer)
Endpoint = $NAME:$P1
AllowedIPs = $(tun4 0)/24, $(tun6 0)/64

[Socks5]
BindAddress = 127.0.0.1:$SOCKS_PORT
EOF
chgrp "$UNPRIV" "$CONF" && chmod 640 "$CONF"
PROXY_PRE=$HOSTSNS start_proxy "$CONF"

# reach SECS LABEL: a page through SOCKS5 within SECS seconds
reach() {
	end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$end" ]; do
		out=$(pcurl --connect-timeout 3 --max-time 3 -x "socks5h://127.0.0.1:$SOCKS_PORT" \
			"http://$(tun4 1):$WEB_PORT/small" 2>/dev/null) &&
			[ "$out" = "hello through the tunnel" ] && return 0
		sleep 0.5
	done
	fail "$2: no answer through the proxy within $1 s"
}

t0=$(date +%s)
reach 30 "the name's second family"
grep -q "Endpoint $NAME: trying $live_ep" "$T/proxy.log" ||
	fail "no 'Endpoint $NAME: trying $live_ep' in the proxy's log"
ok "reached the peer at $live_ep, the name's second address, in $(($(date +%s) - t0)) s"

# the peer moves, as a server restarted elsewhere: it forgets the proxy's
# endpoint (it cannot initiate: the proxy's roaming would hide the test)
# and its sessions; the name follows. (The old address goes first: a
# primary IPv4 address takes its secondaries with it.)
ip -n "$N1" addr del "$live/$bits" dev br0 || fail "ip addr del $live"
# shellcheck disable=SC2086 # nodad: none or one word
ip -n "$N1" addr add "$moved/$bits" dev br0 $nodad || fail "ip addr add $moved"
ip netns exec "$N1" wg set "$I1" peer "$(pub proxy)" remove || fail "wg set remove"
add_peer "$N1" "$I1" proxy "$(tun4 2)/32,$(tun6 2)/128"
hosts "$moved"
t0=$(date +%s)
reach 50 "the name's new address"
grep -q "Endpoint $NAME: trying $moved_ep" "$T/proxy.log" ||
	fail "no 'Endpoint $NAME: trying $moved_ep' in the proxy's log"
ok "followed $NAME to $moved_ep in $(($(date +%s) - t0)) s"
grep "Endpoint $NAME" "$T/proxy.log"
kill -0 "$PROXY_PID" 2>/dev/null || fail "the proxy died"
echo PASS
