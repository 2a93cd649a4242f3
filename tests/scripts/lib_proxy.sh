# The proxy mode's end-to-end set-up (sourced by test_e2e_proxy*.sh, not a
# test). Namespace 1 is the peer: a TUN-mode WireGuard ($PEER_IMPL: zinctun
# or Debian's wireguard-go) at $(tun4 1) / $(tun6 1), behind it python3's
# http.server on port $WEB_PORT (a 100 MB random file "big"), dnsmasq on
# port 53 answering $WEB_NAME with the peer's tunnel addresses, and iperf3 -s.
# Namespace 2 is the client: the proxy at $(tun4 2) / $(tun6 2), run as an
# unprivileged uid with an empty capability set.
#
# The proxy under test is $PROXY, a command to which the configuration file
# is appended: build/zinctun-proxy by default ("build/zinctun --proxy" works
# too). PROXY=wireproxy runs the wireproxy that scripts/install-peers builds
# (wireproxy -c FILE): that validates the tests themselves. Checks that
# wireproxy cannot pass for lacking the feature (UDP, FILE:LINE messages)
# are skipped in that mode only: see quirk().
. "$(dirname "$0")/lib_netns.sh"

PROXY_TOOL="$TESTS_DIR/../tools/proxy_client.py"
WEB_NAME=web.test
LOOP_NAME=loop.test	# dnsmasq answers 127.0.0.1 (a destination the proxy refuses)
WEB_PORT=8080
IPERF_PORT=5201
SOCKS_PORT=1080		# [Socks5], no credentials
SOCKS_AUTH_PORT=1081	# [Socks5] with PROXY_USER / PROXY_PASS
HTTP_PORT=8118		# [http], no credentials
HTTP_AUTH_PORT=8119	# [http] with PROXY_USER / PROXY_PASS
FWD_WEB_PORT=8081	# [TCPClientTunnel] -> web server
FWD_IPERF_PORT=5202	# [TCPClientTunnel] -> iperf3 server
FWD_ECHO_PORT=7001	# [TCPClientTunnel] -> echo server (load and bench)
ECHO_PORT=7000		# echo server in the peer namespace
SERVER_TUN_PORT=9000	# [TCPServerTunnel] ListenPort on the proxy's tunnel address
LOCAL_WEB_PORT=9001	# its Target: a web server in the client namespace
SERVER_TUN_IPERF_PORT=9002	# another [TCPServerTunnel] ListenPort
LOCAL_IPERF_PORT=5203	# its Target: an iperf3 server in the client namespace
UDP_DNS_PORT=5353	# [UDPProxyTunnel] -> dnsmasq
PROXY_USER=zt-user
PROXY_PASS=s3cret-pw
UNPRIV=65534		# nobody / nogroup
BIG_MB=100
# sanitizer builds move data several times slower: a smaller file there
[ -n "${SANITIZE:-}" ] && BIG_MB=20
PROXY_IMPL=
PROXY_CMD=
# the file's base name names the proxy's configuration socket: unique
CONF=$T/ztp$ID.conf

# resolve_proxy: PROXY_CMD (words) and PROXY_IMPL (zinctun or wireproxy).
# A zinctun-proxy that is not built fails the test: it is the thing tested.
resolve_proxy() {
	PROXY=${PROXY:-$BUILD/zinctun-proxy}
	case $PROXY in
	wireproxy)
		need_peer wireproxy || { echo "wireproxy not available: $PEER_SKIP"; exit 77; }
		PROXY_IMPL=wireproxy PROXY_CMD="$PEER_BIN -c"
		log "validation mode: wireproxy $PEER_VERSION" ;;
	*)
		set -- $PROXY
		bin=$(realpath -m "$1")
		shift
		[ -x "$bin" ] || fail "$bin is not built (the proxy mode, issue 17)"
		PROXY_IMPL=zinctun PROXY_CMD="$bin $*" ;;
	esac
}

# proxy_with OPTS...: wireproxy v1.0.9's options before the -c that takes
# the file (start_proxy's "-c FILE"): its unit's ExecStart, either proxy
proxy_with() {
	PROXY_CMD="${PROXY_CMD% -c} $* -c"
}

# http_get NAME URL [CURL-ARGS...]: the status into $CODE, the body into
# $T/NAME.body (from the client namespace)
http_get() {
	name=$1 url=$2
	shift 2
	CODE=$(pcurl --max-time 60 -o "$T/$name.body" -w '%{http_code}' "$@" "$url" 2>"$T/$name.err")
}

# quirk WHAT: true (and says so) when the check WHAT is to be left out
# because the proxy is wireproxy, which lacks it; never for zinctun.
quirk() {
	[ "$PROXY_IMPL" = wireproxy ] || return 1
	echo "validation mode: skipped for wireproxy: $*"
}

# peer_setup: namespaces, the TUN peer in namespace 1 and its servers.
peer_setup() {
	PEER_IMPL=${PEER_IMPL:-zinctun}
	chmod 755 "$T"	# the unprivileged proxy reads its file here
	ns_setup 2
	N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname p)
	genkeys peer
	genkeys proxy
	start_daemon "$PEER_IMPL" "$N1" "$I1"
	conf_iface "$N1" "$I1" peer 1
	P1=$(listen_port "$N1" "$I1")
	add_peer "$N1" "$I1" proxy "$(tun4 2)/32,$(tun6 2)/128"

	mkdir -p "$T/www" "$T/local"
	head -c ${BIG_MB}M /dev/urandom >"$T/www/big"
	echo "hello through the tunnel" >"$T/www/small"
	head -c 10M /dev/urandom >"$T/local/file"
	BIG_SHA=$(sha256sum <"$T/www/big" | cut -d' ' -f1)

	spawn_in "$N1" web python3 -m http.server "$WEB_PORT" --bind :: --directory "$T/www"
	spawn_in "$N1" dnsmasq dnsmasq -k -C /dev/null --no-resolv --no-hosts --bind-interfaces \
		--listen-address="$(tun4 1)" --listen-address="$(tun6 1)" --port=53 \
		--address="/$WEB_NAME/$(tun4 1)" --address="/$WEB_NAME/$(tun6 1)" \
		--address="/$LOOP_NAME/127.0.0.1" \
		--pid-file= --user=root --log-facility=-
	spawn_in "$N1" iperf3-s iperf3 -s -B "$(tun4 1)" -p "$IPERF_PORT"
	spawn_in "$N1" echo python3 "$PROXY_TOOL" echo-server "$(tun4 1)" "$ECHO_PORT"
	spawn_in "$N2" localweb python3 -m http.server "$LOCAL_WEB_PORT" --bind 127.0.0.1 --directory "$T/local"
	spawn_in "$N2" localiperf iperf3 -s -B 127.0.0.1 -p "$LOCAL_IPERF_PORT"
	wait_tcp "$N1" "$WEB_PORT" && wait_tcp "$N1" "$IPERF_PORT" && wait_tcp "$N1" "$ECHO_PORT" &&
		wait_tcp "$N2" "$LOCAL_WEB_PORT" && wait_tcp "$N2" "$LOCAL_IPERF_PORT" ||
		fail "servers in the namespaces did not start"
	wait_udp "$N1" 53 || fail "dnsmasq did not start"
}

# spawn_in NS NAME CMD...: a background process in NS, its output in $T/NAME.log
spawn_in() {
	ns=$1 name=$2
	shift 2
	ip netns exec "$ns" "$@" >>"$T/$name.log" 2>&1 &
	PIDS="$PIDS $!"
	LAST_PID=$!
}

wait_tcp() { # NS PORT: something listens on TCP PORT
	for _ in $(seq 1 100); do
		ip netns exec "$1" ss -Htln "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

wait_udp() { # NS PORT
	for _ in $(seq 1 100); do
		ip netns exec "$1" ss -Huln "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# write_conf FILE: the proxy's configuration, every kind of section
write_conf() {
	cat >"$1" <<-EOF
	# zinctun proxy-mode test ($ID)
	[Interface]
	PrivateKey = $(cat "$T/proxy.key")
	Address = $(tun4 2)/32
	Address = $(tun6 2)/128
	DNS = $(tun4 1)

	[Peer]
	PublicKey = $(pub peer)
	Endpoint = $(ul4 1):$P1
	AllowedIPs = $(tun4 0)/24, $(tun6 0)/64
	PersistentKeepalive = 25

	[Socks5]
	BindAddress = 127.0.0.1:$SOCKS_PORT

	[Socks5]
	BindAddress = 127.0.0.1:$SOCKS_AUTH_PORT
	Username = $PROXY_USER
	Password = $PROXY_PASS

	[http]
	BindAddress = 127.0.0.1:$HTTP_PORT

	[http]
	BindAddress = 127.0.0.1:$HTTP_AUTH_PORT
	Username = $PROXY_USER
	Password = $PROXY_PASS

	[TCPClientTunnel]
	BindAddress = 127.0.0.1:$FWD_WEB_PORT
	Target = $WEB_NAME:$WEB_PORT

	[TCPClientTunnel]
	BindAddress = 127.0.0.1:$FWD_IPERF_PORT
	Target = $(tun4 1):$IPERF_PORT

	[TCPClientTunnel]
	BindAddress = 127.0.0.1:$FWD_ECHO_PORT
	Target = $(tun4 1):$ECHO_PORT

	[TCPServerTunnel]
	ListenPort = $SERVER_TUN_PORT
	Target = 127.0.0.1:$LOCAL_WEB_PORT

	[TCPServerTunnel]
	ListenPort = $SERVER_TUN_IPERF_PORT
	Target = 127.0.0.1:$LOCAL_IPERF_PORT
	EOF
	# wireproxy v1.0.9 has no [UDPProxyTunnel] and refuses the section
	[ "$PROXY_IMPL" = wireproxy ] || cat >>"$1" <<-EOF

	[UDPProxyTunnel]
	BindAddress = 127.0.0.1:$UDP_DNS_PORT
	Target = $(tun4 1):53
	InactivityTimeout = 60
	EOF
	chgrp "$UNPRIV" "$1" && chmod 640 "$1"
}

# unpriv NS CMD...: CMD in NS as uid/gid 65534, no groups, no capabilities
unpriv() {
	ns=$1
	shift
	ip netns exec "$ns" env -u XDG_RUNTIME_DIR setpriv --reuid="$UNPRIV" --regid="$UNPRIV" --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}

# start_proxy FILE: the proxy in the client namespace; PROXY_PID. Waits
# for its SOCKS5 listener. PROXY_PRE: words run before it (prlimit ...), as
# root: run as the unprivileged user, they could not execute a binary in a
# checkout only root may enter (a clone under /root).
start_proxy() {
	# not through unpriv(): $! must be the proxy's PID (ip and setpriv exec)
	# shellcheck disable=SC2086 # PROXY_CMD: the command's words
	# (root's XDG_RUNTIME_DIR, if set, is not the unprivileged user's)
	ip netns exec "$N2" env -u XDG_RUNTIME_DIR ${PROXY_PRE:-} setpriv --reuid="$UNPRIV" \
		--regid="$UNPRIV" --clear-groups --inh-caps=-all --bounding-set=-all \
		$PROXY_CMD "$1" >>"$T/proxy.log" 2>&1 &
	PROXY_PID=$!
	PIDS="$PIDS $PROXY_PID"
	wait_tcp "$N2" "$SOCKS_PORT" || fail "proxy: no SOCKS5 listener on port $SOCKS_PORT"
	kill -0 "$PROXY_PID" 2>/dev/null || fail "proxy exited at start"
}

# check_unprivileged: the proxy runs as 65534 with no capabilities at all
check_unprivileged() {
	st=/proc/$PROXY_PID/status
	uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")
	[ "$uids" = "$UNPRIV $UNPRIV $UNPRIV $UNPRIV" ] || fail "proxy uids: $uids"
	for c in CapInh CapPrm CapEff CapBnd CapAmb; do
		v=$(awk -v k="$c:" '$1 == k { print $2 }' "$st")
		[ "$v" = 0000000000000000 ] || fail "proxy $c = $v"
	done
	ip netns exec "$N2" ip -o link | grep -vq ": lo:\|: eth0@" &&
		fail "a network device appeared in the client namespace: $(ip -n "$N2" -o link)"
	ok "proxy runs as uid $UNPRIV with an empty capability set, no device of its own"
}

# pcurl CURL-ARGS...: curl in the client namespace (as root: only the proxy
# is what must run unprivileged), short timeouts
pcurl() {
	ip netns exec "$N2" curl -sS --connect-timeout 10 --max-time 120 "$@"
}

# wait_tunnel: the first request through SOCKS5 also brings the handshake
wait_tunnel() {
	for _ in $(seq 1 20); do
		out=$(pcurl --max-time 3 -x "socks5h://127.0.0.1:$SOCKS_PORT" \
			"http://$(tun4 1):$WEB_PORT/small" 2>/dev/null) &&
			[ "$out" = "hello through the tunnel" ] && return 0
		sleep 0.5
	done
	fail "no answer through the proxy's SOCKS5 within 10 s"
}

# fetch_big LABEL CURL-ARGS... URL: the 100 MB file through the proxy,
# compared byte for byte (sha256)
fetch_big() {
	label=$1
	shift
	rm -f "$T/got"
	t0=$(date +%s.%N)
	pcurl -o "$T/got" "$@" || fail "$label: curl failed"
	t1=$(date +%s.%N)
	sha=$(sha256sum <"$T/got" | cut -d' ' -f1)
	[ "$sha" = "$BIG_SHA" ] || fail "$label: $(stat -c %s "$T/got") bytes, sha256 differs"
	ok "$label: $BIG_MB MB identical ($(echo "$t0 $t1" | awk -v mb=$BIG_MB '{ printf "%.0f Mbit/s", mb * 8 / ($2 - $1) }'))"
	rm -f "$T/got"
}

# proxy_ticks: utime + stime of the proxy, in clock ticks
proxy_ticks() {
	# fields 14 and 15 after the ")" that ends the command name
	sed 's/.*) //' "/proc/$PROXY_PID/stat" | awk '{ print $12 + $13 }'
}
