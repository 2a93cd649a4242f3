# Shared helpers for the netns end-to-end tests (sourced, not a test).
# Every test gets its own namespaces and interface names (suffix = PID),
# cleans up in a trap and kills only the processes it started.
#
#   . tests/scripts/lib_netns.sh
#   ns_setup 2          # namespaces $NS1 $NS2 joined by veth, 10.200.0.x + fd00:200::x
#   start_daemon zinctun $NS1 $IF1     # or wireguard-go, wireguard-go-current, boringtun, gotatun
#   ...
# The underlay addresses of namespace i are $(ul4 i) / $(ul6 i).

BUILD=${BUILD:-build}
# uapi.py (the config protocol's client) for the scripts' python3 snippets
TESTS_DIR=$(realpath "$(dirname "$0")")
export PYTHONPATH="$TESTS_DIR${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
ZINCTUN=${ZINCTUN:-$(realpath -m "$BUILD/zinctun")}
WGGO=${WGGO:-$(command -v wireguard-go)}
SOCKDIR=/var/run/wireguard
ID=${ID:-$$}
T=$(mktemp -d /tmp/zt-e2e.XXXXXX)
PIDS=""
NSES=""
IFACES=""
FAILED=0

log() { echo "[$(date +%T)] $*"; }
fail() { echo "FAIL: $*"; FAILED=1; dump_logs; exit 1; }
ok() { echo "ok: $*"; }

dump_logs() {
	for f in "$T"/*.log; do
		[ -s "$f" ] || continue
		echo "---- $f (tail)"
		tail -n 30 "$f"
	done
}

cleanup() {
	set +e
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	for n in $NSES; do ip netns del "$n" 2>/dev/null; done
	for i in $IFACES; do rm -f "$SOCKDIR/$i.sock"; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# fresh_env SUFFIX: new names, temp dir and cleanup list, for a subshell
# that runs a second scenario: ( fresh_env r; pair_test ... )
fresh_env() {
	ID=$ID$1
	T=$(mktemp -d /tmp/zt-e2e.XXXXXX)
	PIDS="" NSES="" IFACES=""
	trap cleanup EXIT
}

ul4() { echo "10.200.0.$1"; }
ul6() { echo "fd00:200::$1"; }
ns_name() { echo "zt${ID}n$1"; }

# ns_setup N: N namespaces on one bridge-free star (namespace 1 is the hub
# for N > 2 is not needed: with N = 3 each of 2,3 gets a veth to 1).
ns_setup() {
	n=$1
	for i in $(seq 1 "$n"); do
		ns=$(ns_name "$i")
		ip netns add "$ns" || fail "ip netns add $ns"
		NSES="$NSES $ns"
		ip -n "$ns" link set lo up
	done
	# namespace 1 gets a bridge so every other namespace shares one L2 segment
	ns1=$(ns_name 1)
	ip -n "$ns1" link add br0 type bridge
	ip -n "$ns1" link set br0 up
	ip -n "$ns1" addr add "$(ul4 1)/24" dev br0
	ip -n "$ns1" addr add "$(ul6 1)/64" dev br0 nodad
	for i in $(seq 2 "$n"); do
		ns=$(ns_name "$i")
		ip link add "zt${ID}v$i" type veth peer name "zt${ID}w$i" || fail "veth"
		ip link set "zt${ID}v$i" netns "$ns1"
		ip link set "zt${ID}w$i" netns "$ns"
		ip -n "$ns1" link set "zt${ID}v$i" master br0 up
		ip -n "$ns" link set "zt${ID}w$i" name eth0
		ip -n "$ns" link set eth0 up
		ip -n "$ns" addr add "$(ul4 "$i")/24" dev eth0
		ip -n "$ns" addr add "$(ul6 "$i")/64" dev eth0 nodad
	done
}

ifname() { echo "zt${ID}$1"; }

# start_daemon IMPL NS IFNAME [extra env...]: foreground daemon, PID recorded.
start_daemon() {
	impl=$1 ns=$2 ifn=$3
	shift 3
	IFACES="$IFACES $ifn"
	flags=
	case $impl in
	zinctun) bin=$ZINCTUN ;;
	# the daemon with the test builds' hooks (RNG seams, escape attempts)
	zinctun-testhooks) bin=$(realpath -m "$BUILD/zinctun-testhooks") ;;
	# the arm64 test build under emulation (test_e2e_cross_arm64)
	zinctun-aarch64)
		bin=$(realpath -m "${BUILD_AARCH64:-build-aarch64}/zinctun-testhooks")
		set -- "$@" ZINCTUN_TEST_QEMU_USER=1 qemu-aarch64 ;;
	wireguard-go) bin=$WGGO ;;
	wireguard-go-current | boringtun | gotatun | amneziawg-go)
		need_peer "$impl" || fail "$impl: $PEER_SKIP"
		bin=$PEER_BIN
		# boringtun-cli (and its fork gotatun-cli) would switch to
		# SUDO_UID or nobody after set-up
		case $impl in boringtun | gotatun) flags="--disable-drop-privileges -v info" ;; esac ;;
	*) fail "unknown implementation $impl" ;;
	esac
	# shellcheck disable=SC2086 # flags: words for the peer's command line
	ip netns exec "$ns" env LOG_LEVEL=debug "$@" "$bin" -f $flags "$ifn" >>"$T/$ifn.log" 2>&1 &
	LAST_PID=$!
	PIDS="$PIDS $LAST_PID"
	eval "PID_$ifn=$LAST_PID IMPL_$ifn=$impl"
	# amneziawg-go's socket is elsewhere: a link lets wg(8) find it
	[ "$impl" = amneziawg-go ] && for _ in $(seq 1 50); do
		[ -S "/var/run/amneziawg/$ifn.sock" ] &&
			ln -sf "/var/run/amneziawg/$ifn.sock" "$SOCKDIR/$ifn.sock" && break
		sleep 0.1
	done
	wait_sock "$ifn" || fail "$impl $ifn: no socket"
}

# need_peer IMPL: a peer that scripts/install-peers builds and caches
# (wireguard-go-current, boringtun, gotatun; instant once built). Sets PEER_BIN and
# PEER_VERSION, or PEER_SKIP (why it is not available) and returns 1.
need_peer() {
	PEER_BIN= PEER_VERSION= PEER_SKIP=
	set -- $("$TESTS_DIR/../../scripts/install-peers" "$1")
	case ${2:-} in
	SKIP:) shift 2; PEER_SKIP=$*; return 1 ;;
	/*) PEER_BIN=$2 PEER_VERSION=$3 ;;
	*) PEER_SKIP="scripts/install-peers gave no answer"; return 1 ;;
	esac
}

# wait_sock IFNAME: true once the socket answers (a stale file left by an
# earlier daemon of that name does not count)
wait_sock() {
	for _ in $(seq 1 50); do
		[ -S "$SOCKDIR/$1.sock" ] && sock_answers "$1" && return 0
		sleep 0.1
	done
	return 1
}

sock_answers() { # IFNAME: something accepts connections on its socket
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' \
		"$SOCKDIR/$1.sock" 2>/dev/null
}

# wait_gone PID: true once the process has exited (max ~5 s)
wait_gone() {
	for _ in $(seq 1 50); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

genkeys() { # name: writes $T/name.key and $T/name.pub
	wg genkey >"$T/$1.key" 2>/dev/null
	wg pubkey <"$T/$1.key" >"$T/$1.pub"
}
pub() { cat "$T/$1.pub"; }

# tunnel address of index i inside the tunnel
tun4() { echo "10.99.0.$1"; }
tun6() { echo "fd99::$1"; }

# conf_iface NS IFNAME KEYNAME TUNIDX: key, random port, addresses, up
conf_iface() {
	ns=$1 ifn=$2 key=$3 idx=$4
	ip netns exec "$ns" wg set "$ifn" private-key "$T/$key.key" listen-port "${5:-0}" ||
		fail "wg set $ifn private-key"
	ip -n "$ns" addr add "$(tun4 "$idx")/24" dev "$ifn"
	ip -n "$ns" addr add "$(tun6 "$idx")/64" dev "$ifn" nodad
	ip -n "$ns" link set "$ifn" up
}

listen_port() { # NS IFNAME
	ip netns exec "$1" wg show "$2" listen-port
}

# add_peer NS IFNAME PEERKEY ALLOWED [ENDPOINT] [extra wg args]
add_peer() {
	ns=$1 ifn=$2 pk=$3 allowed=$4 ep=${5:-}
	shift 4
	[ $# -gt 0 ] && shift
	if [ -n "$ep" ]; then
		ip netns exec "$ns" wg set "$ifn" peer "$(pub "$pk")" allowed-ips "$allowed" endpoint "$ep" "$@"
	else
		ip netns exec "$ns" wg set "$ifn" peer "$(pub "$pk")" allowed-ips "$allowed" "$@"
	fi || fail "wg set $ifn peer"
}

ping_ok() { # NS ADDR [count]
	ip netns exec "$1" ping -c "${3:-3}" -i 0.2 -W 2 "$2" >"$T/ping.out" 2>&1
}

wg_field() { # NS IFNAME FIELD(endpoints|latest-handshakes|transfer) PEERKEY
	ip netns exec "$1" wg show "$2" "$3" | awk -v k="$(pub "$4")" '$1 == k { $1 = ""; sub(/^ /, ""); print }'
}

# Documented exceptions: a check that another implementation cannot pass
# for a limitation of its own says so in the output and checks what that
# peer does instead. None ever applies to zinctun.
#
# exception_handshake_age IMPL: IMPL reports last_handshake_time_sec as the
# seconds since the handshake, not as a Unix time (boringtun 0.7.1).
exception_handshake_age() { [ "$1" = boringtun ]; }
# exception_v6_first_send IMPL: for up to ~10 s after IPv4 traffic, IMPL's
# handshake messages (initiations and responses) to a new IPv6 endpoint
# leave for a wrong address (fd00:200:: for fd00:200::1, seen with tcpdump,
# with Debian's wireguard-go as the other side too); a later retry, every
# REKEY_TIMEOUT (5 s), gets through (wireguard-go 0.0.20250522; its fork
# amneziawg-go v0.2.16 alike).
exception_v6_first_send() { [ "$1" = wireguard-go-current ] || [ "$1" = amneziawg-go ]; }
V6_FIRST_SEND_RETRIES=3
REKEY_TIMEOUT_S=5

impl_of() { eval "echo \${IMPL_$1:-}"; }

# check_peer_stats NS IFNAME PEERKEY EXPECTED_ENDPOINT: endpoint, a recent
# handshake and non-zero transfer counters, as wg show reports them.
check_peer_stats() {
	ns=$1 ifn=$2 pk=$3 want=$4
	ep=$(wg_field "$ns" "$ifn" endpoints "$pk")
	[ "$ep" = "$want" ] || fail "$ifn: endpoint '$ep', expected '$want'"
	hs=$(wg_field "$ns" "$ifn" latest-handshakes "$pk")
	now=$(date +%s)
	if exception_handshake_age "$(impl_of "$ifn")"; then
		echo "documented exception: $(impl_of "$ifn") reports the latest handshake as seconds since it ($hs), not a Unix time"
		[ -n "$hs" ] && [ "$hs" -lt 60 ] || fail "$ifn: latest handshake '$hs' (an age)"
		hs=$((now - hs))
	fi
	[ -n "$hs" ] && [ "$hs" -gt 0 ] && [ $((now - hs)) -lt 60 ] ||
		fail "$ifn: latest handshake '$hs' (now $now)"
	set -- $(wg_field "$ns" "$ifn" transfer "$pk")
	[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] || fail "$ifn: transfer rx=${1:-} tx=${2:-}"
	ok "$ifn: endpoint $ep, handshake $((now - hs))s ago, rx $1 tx $2"
}

# uapi IFNAME REQUEST: raw request on the configuration socket, prints the answer
uapi() {
	python3 "$TESTS_DIR/uapi.py" "$SOCKDIR/$1.sock" "$2"
}

hexkey() { base64 -d <"$T/$1.$2" | od -An -tx1 | tr -d ' \n'; }

# pair_test IMPL1 IMPL2: the basic interoperability matrix between two
# implementations: side 1 initiates over an IPv4 underlay, then (peers
# removed and re-added, so a fresh handshake) side 2 initiates over IPv6;
# each time ping inside over IPv4 and IPv6 and check wg show on both sides.
pair_test() {
	ns_setup 2
	N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname a) I2=$(ifname b)
	genkeys k1
	genkeys k2
	start_daemon "$1" "$N1" "$I1"
	start_daemon "$2" "$N2" "$I2"
	conf_iface "$N1" "$I1" k1 1
	conf_iface "$N2" "$I2" k2 2
	P1=$(listen_port "$N1" "$I1") P2=$(listen_port "$N2" "$I2")
	[ "$P1" -gt 0 ] && [ "$P2" -gt 0 ] || fail "listen ports '$P1' '$P2'"
	${PAIR_HOOK:-:} # before any peer: e.g. AmneziaWG parameters

	log "$1 -> $2 over IPv4 underlay"
	add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128" "$(ul4 2):$P2"
	add_peer "$N2" "$I2" k1 "$(tun4 1)/32,$(tun6 1)/128"
	ping_ok "$N1" "$(tun4 2)" || { cat "$T/ping.out"; fail "ping v4 in v4 ($1 initiates)"; }
	ping_ok "$N1" "$(tun6 2)" || { cat "$T/ping.out"; fail "ping v6 in v4 ($1 initiates)"; }
	check_peer_stats "$N1" "$I1" k2 "$(ul4 2):$P2"
	check_peer_stats "$N2" "$I2" k1 "$(ul4 1):$P1"

	log "$2 -> $1 over IPv6 underlay"
	ip netns exec "$N1" wg set "$I1" peer "$(pub k2)" remove
	ip netns exec "$N2" wg set "$I2" peer "$(pub k1)" remove
	add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128"
	add_peer "$N2" "$I2" k1 "$(tun4 1)/32,$(tun6 1)/128" "[$(ul6 1)]:$P1"
	for impl in "$1" "$2"; do
		exception_v6_first_send "$impl" || continue
		echo "documented exception: $impl sends handshake messages to a new IPv6 endpoint to a wrong address for some seconds after IPv4 traffic; waiting for a retry"
		ip netns exec "$N2" ping -c 1 -w $((REKEY_TIMEOUT_S * V6_FIRST_SEND_RETRIES + 2)) "$(tun4 1)" >"$T/ping.out" 2>&1 ||
			{ cat "$T/ping.out"; fail "ping v4 in v6 ($2 initiates, after the retry)"; }
	done
	ping_ok "$N2" "$(tun4 1)" || { cat "$T/ping.out"; fail "ping v4 in v6 ($2 initiates)"; }
	ping_ok "$N2" "$(tun6 1)" || { cat "$T/ping.out"; fail "ping v6 in v6 ($2 initiates)"; }
	check_peer_stats "$N2" "$I2" k1 "[$(ul6 1)]:$P1"
	check_peer_stats "$N1" "$I1" k2 "[$(ul6 2)]:$P2"
}

# connect_pair IMPL1 IMPL2: two namespaces, a daemon in each, configured as
# peers (side 1 knows side 2's IPv4 endpoint), one ping to bring it up.
# ENV1 / ENV2: extra VAR=value words for the first / second daemon.
connect_pair() {
	ns_setup "${3:-2}"
	N1=$(ns_name 1) N2=$(ns_name 2) I1=$(ifname a) I2=$(ifname b)
	[ -e "$T/k1.key" ] || genkeys k1 # made already by a caller that needs them first
	[ -e "$T/k2.key" ] || genkeys k2
	# shellcheck disable=SC2086 # ENV1/ENV2: extra environment, one word each
	start_daemon "$1" "$N1" "$I1" ${ENV1:-}
	# shellcheck disable=SC2086
	start_daemon "$2" "$N2" "$I2" ${ENV2:-}
	conf_iface "$N1" "$I1" k1 1
	conf_iface "$N2" "$I2" k2 2
	P1=$(listen_port "$N1" "$I1") P2=$(listen_port "$N2" "$I2")
	add_peer "$N1" "$I1" k2 "$(tun4 2)/32,$(tun6 2)/128" "$(ul4 2):$P2"
	add_peer "$N2" "$I2" k1 "$(tun4 1)/32,$(tun6 1)/128"
	ping_ok "$N1" "$(tun4 2)" 2 || { cat "$T/ping.out"; fail "initial ping"; }
}

# iperf NS_SERVER NS_CLIENT ADDR LABEL iperf3-client-args...: prints the
# receiver's rate; fails if iperf3 fails or nothing arrived.
iperf() {
	srv=$1 cli=$2 addr=$3 label=$4
	shift 4
	ip netns exec "$srv" iperf3 -s -1 -B "$addr" >"$T/iperf-s.log" 2>&1 &
	spid=$!
	PIDS="$PIDS $spid"
	for _ in $(seq 1 30); do
		ip netns exec "$srv" ss -tln | grep -q ":5201 " && break
		sleep 0.1
	done
	ip netns exec "$cli" timeout 20 iperf3 -c "$addr" -t 2 -f m "$@" >"$T/iperf.log" 2>&1 ||
		{ cat "$T/iperf.log"; fail "iperf3 $label"; }
	wait "$spid" 2>/dev/null
	line=$(grep -E "receiver|[0-9]+/[0-9]+ \(" "$T/iperf.log" | tail -1)
	rate=$(echo "$line" | grep -oE "[0-9.]+ Mbits/sec" | head -1)
	[ -n "$rate" ] && [ "${rate%%.*}" != 0 ] && [ "${rate%% *}" != "0.00" ] ||
		{ cat "$T/iperf.log"; fail "iperf3 $label: no data ($line)"; }
	ok "iperf3 $label: $rate ($(echo "$line" | grep -oE '[0-9.]+%' || true))"
}

# syslog_start: a stand-in for the system log: every datagram sent to
# $T/devlog is appended as a line to $T/syslog.log (its PID recorded).
syslog_start() {
	: >"$T/syslog.log"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(65536) + b"\n")
' "$T/devlog" "$T/syslog.log" &
	PIDS="$PIDS $!"
	for _ in $(seq 1 50); do [ -S "$T/devlog" ] && return 0; sleep 0.1; done
	fail "syslog stand-in did not start"
}

# devlog_exec NS CMD...: runs CMD in NS and in a private mount namespace
# whose /dev (a tmpfs: null, net/tun) has log pointing at the stand-in,
# so that the host's /dev/log (if any) is neither used nor touched. With
# NODEVLOG=1 that /dev has no log at all (a container without syslog).
devlog_exec() {
	ns=$1
	shift
	ip netns exec "$ns" unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=755 zt-dev /dev && mknod -m 666 /dev/null c 1 3 &&
		mkdir /dev/net && mknod -m 666 /dev/net/tun c 10 200 &&
		{ [ -z "$0" ] || ln -s "$0" /dev/log; } && exec "$@"' \
		"$([ -n "${NODEVLOG:-}" ] || echo "$T/devlog")" "$@"
}

# sock_removed IFNAME: after the daemon's end its socket file goes away
# (removed for it, never by wg: nothing here runs wg before the check), and
# then wg show says what it says of a name that never existed.
sock_removed() {
	for _ in $(seq 1 50); do
		[ -e "$SOCKDIR/$1.sock" ] || break
		sleep 0.1
	done
	[ -e "$SOCKDIR/$1.sock" ] && { echo "$SOCKDIR/$1.sock still there"; return 1; }
	wg show "$1" >/dev/null 2>"$T/wgshow.err" && { echo "wg show $1 answered"; return 1; }
	wg show "zt${ID}never" >/dev/null 2>"$T/wgnever.err"
	sed "s/zt${ID}never/$1/" "$T/wgnever.err" | cmp -s - "$T/wgshow.err" ||
		{ echo "wg show $1: '$(cat "$T/wgshow.err")', not as for no interface"; return 1; }
}

# wait_in FILE TEXT [tenths]: true once TEXT is in FILE (default 10 s)
wait_in() {
	for _ in $(seq 1 "${3:-100}"); do grep -qF -- "$2" "$1" && return 0; sleep 0.1; done
	return 1
}
