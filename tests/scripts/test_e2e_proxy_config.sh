#!/bin/sh
# zinctun-proxy (issue 17): a configuration file with each kind of error
# stops start-up with "FILE:LINE: message" and exit code 1, run as an
# unprivileged uid in a namespace of its own (nothing is sent anywhere);
# `zinctun --proxy FILE` says the same. A non-loopback listener without
# credentials starts once AllowUnauthenticated = true says so. wireproxy's
# command line (issue 27): -n -c FILE checks (exit 0, or 1 and FILE:LINE),
# wireproxy's README sample with every section passes, -c FILE starts, -d
# returns once started, an unknown option is named.
# PROXY=wireproxy checks only the exit status (it gives no FILE:LINE, takes
# unknown keys and unauthenticated non-loopback listeners).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"

resolve_proxy
chmod 755 "$T"
# The unprivileged uid runs copies in $T/bin: timeout execs the proxy as that
# uid (and zinctun --proxy the zinctun-proxy beside it), which cannot enter
# a checkout that lives where only root may (a clone under /root, mode 700).
if [ "$PROXY_IMPL" = zinctun ]; then
	set -- $PROXY_CMD
	mkdir -m 755 "$T/bin" && cp "$ZINCTUN" "$(dirname "$1")/zinctun-proxy" "$T/bin/" ||
		fail "cannot copy the binaries to $T/bin"
	ZINCTUN=$T/bin/zinctun PROXY_CMD="$T/bin/$(basename "$1") ${PROXY_CMD#"$1"}"
else
	mkdir -m 755 "$T/bin" && install -m 755 "$PEER_BIN" "$T/bin/" || fail "cannot copy wireproxy to $T/bin"
	PROXY_CMD="$T/bin/$(basename "$PEER_BIN") -c"
fi
ns_setup 1
N1=$(ns_name 1)
genkeys a
genkeys b
KEY_A=$(cat "$T/a.key") PUB_B=$(pub b)

# good_conf: a valid file, 13 lines; the cases below change one line
good_conf() {
	cat <<-EOF
	[Interface]
	PrivateKey = $KEY_A
	Address = 10.99.0.2/32
	DNS = 10.99.0.1

	[Peer]
	PublicKey = $PUB_B
	Endpoint = 10.200.0.1:51820
	AllowedIPs = 10.99.0.0/24

	[Socks5]
	BindAddress = 127.0.0.1:1080

	EOF
}

# case_conf NAME LINE TEXT: good_conf with line LINE replaced by TEXT
# (TEXT may hold several lines; "" deletes the line), into $T/NAME.conf
case_conf() {
	good_conf | awk -v n="$2" -v t="$3" 'NR == n { if (t != "") print t; next } { print }' >"$T/$1.conf"
	chgrp "$UNPRIV" "$T/$1.conf" && chmod 640 "$T/$1.conf"
}

# expect_error NAME LINES WORD [CMD...]: the proxy (or CMD) on $T/NAME.conf
# exits 1, its first line of stderr starts "$T/NAME.conf:L:" with L one of
# LINES (a|b) and holds WORD (case-insensitive)
expect_error() {
	name=$1 lines=$2 word=$3
	shift 3
	[ $# -gt 0 ] || set -- $PROXY_CMD
	f=$T/$name.conf
	unpriv "$N1" timeout 10 "$@" "$f" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ "$PROXY_IMPL" = wireproxy ]; then
		[ $rc != 0 ] && [ $rc != 124 ] || fail "$name: exit code $rc: $(cat "$T/$name.err")"
		echo "validation mode: $name: wireproxy exits $rc: $(grep -v DEBUG "$T/$name.err" | tail -n 1)"
		return
	fi
	[ $rc = 1 ] || fail "$name: exit code $rc (expected 1), stderr: $(cat "$T/$name.err")"
	msg=$(grep -v '^$' "$T/$name.err" | head -n 1)
	echo "$msg" | grep -qE "^$f:($lines): " || fail "$name: '$msg', expected '$f:($lines): ...'"
	echo "$msg" | grep -qiF -- "$word" || fail "$name: '$msg' does not mention '$word'"
	ok "$name: $msg"
}

# Line numbers: 1 [Interface], 2 PrivateKey, 3 Address, 4 DNS, 6 [Peer],
# 7 PublicKey, 8 Endpoint, 9 AllowedIPs, 11 [Socks5], 12 BindAddress.
LAST=$(good_conf | wc -l)

case_conf good 0 ""
if [ "$PROXY_IMPL" != wireproxy ]; then
	case_conf unknown_key 4 "DNS = 10.99.0.1
Bogus = 1"
	expect_error unknown_key 5 bogus
	case_conf unknown_section 10 "[Sock5]
BindAddress = 127.0.0.1:1081"
	expect_error unknown_section 10 sock5
	# never without credentials on a non-loopback address unless told so
	case_conf open_socks 12 "BindAddress = 0.0.0.0:1080"
	expect_error open_socks "11|12" 0.0.0.0
	case_conf open_http 11 "[http]"
	sed -i 's/^BindAddress = 127.0.0.1:1080/BindAddress = [::]:8118/' "$T/open_http.conf"
	expect_error open_http "11|12" "::"
	case_conf half_auth 12 "BindAddress = 127.0.0.1:1080
Username = someone"
	expect_error half_auth "11|13" password
	case_conf bad_timeout 12 "BindAddress = 127.0.0.1:1080
[UDPProxyTunnel]
BindAddress = 127.0.0.1:5353
Target = 10.99.0.1:53
InactivityTimeout = soon"
	expect_error bad_timeout 16 soon
	# the launcher runs the same program: the same message
	case_conf via_zinctun 4 "DNS = 10.99.0.1
Bogus = 1"
	expect_error via_zinctun 5 bogus "$ZINCTUN" --proxy
	# a FILE named like an option is still the file: its own error, not usage
	case_conf -dash 4 "DNS = 10.99.0.1
Bogus = 1"
	(cd "$T" && unpriv "$N1" timeout 10 "$ZINCTUN" --proxy -dash.conf) >"$T/dash.out" 2>"$T/dash.err"
	rc=$?
	msg=$(grep -v '^$' "$T/dash.err" | head -n 1)
	[ $rc = 1 ] && echo "$msg" | grep -q '^-dash.conf:5: ' ||
		fail "dash_file: exit $rc, '$msg', expected '-dash.conf:5: ...'"
	ok "dash_file: $msg"
else
	quirk "unknown keys and sections, non-loopback listeners without credentials, zinctun --proxy"
fi
case_conf bad_key_base64 2 "PrivateKey = not*base64*at*all"
expect_error bad_key_base64 2 PrivateKey
case_conf bad_key_length 7 "PublicKey = $(head -c 31 /dev/urandom | base64)"
expect_error bad_key_length 7 PublicKey
case_conf bad_address 3 "Address = 10.99.0.300/32"
expect_error bad_address 3 10.99.0.300
case_conf bad_prefix 9 "AllowedIPs = 10.99.0.0/33"
expect_error bad_prefix 9 /33
case_conf bad_endpoint 8 "Endpoint = 10.200.0.1"
expect_error bad_endpoint 8 Endpoint
case_conf bad_bind 12 "BindAddress = 127.0.0.1:65536"
expect_error bad_bind 12 65536
case_conf no_peer 6 ""
sed -i '/^PublicKey\|^Endpoint\|^AllowedIPs/d' "$T/no_peer.conf"
expect_error no_peer "$((LAST - 4))" Peer
case_conf no_interface 1 ""
sed -i '/^PrivateKey\|^Address\|^DNS/d' "$T/no_interface.conf"
expect_error no_interface "$((LAST - 4))" Interface
case_conf no_public_key 7 ""
expect_error no_public_key 6 PublicKey
case_conf no_private_key 2 ""
expect_error no_private_key 1 PrivateKey
case_conf no_target 12 "BindAddress = 127.0.0.1:1080
[TCPClientTunnel]
BindAddress = 127.0.0.1:2000"
expect_error no_target 13 Target

# -- wireproxy v1.0.9's command line (issue 27): its unit's ExecStartPre
# (-n -c FILE: "Config OK", exit 0; a bad file: exit 1 and FILE:LINE) and
# ExecStart (-c FILE, below); -d; an unknown option named
WP_CMD="${PROXY_CMD% -c}"
out=$(unpriv "$N1" timeout 10 $WP_CMD -n -c "$T/good.conf" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$out" = "Config OK" ] || fail "-n -c good.conf: exit $rc, '$out'"
ok "-n -c good.conf: $out"
expect_error bad_key_base64 2 PrivateKey $WP_CMD -n -c
expect_error bad_address 3 10.99.0.300 $WP_CMD -n -c
# wireproxy's README sample, every section (its keys as they are there)
cat >"$T/sample.conf" <<-'EOF'
	# The [Interface] and [Peer] configurations follow the same semantics and meaning
	# of a wg-quick configuration.
	[Interface]
	Address = 10.200.200.2/32 # The subnet should be /32 and /128 for IPv4 and v6 respectively
	# MTU = 1420 (optional)
	PrivateKey = uCTIK+56CPyCvwJxmU5dBfuyJvPuSXAq1FzHdnIxe1Q=
	DNS = 10.200.200.1
	CheckAlive = 1.1.1.1, 3.3.3.3
	CheckAliveInterval = 3

	[Peer]
	PublicKey = QP+A67Z2UBrMgvNIdHv8gPel5URWNLS4B3ZQ2hQIZlg=
	# PresharedKey = UItQuvLsyh50ucXHfjF0bbR4IIpVBd74lwKc8uIPXXs= (optional)
	Endpoint = my.ddns.example.com:51820
	# PersistentKeepalive = 25 (optional)

	# <an app on your LAN> --> localhost:25565 --(wireguard)--> play.cubecraft.net:25565
	[TCPClientTunnel]
	BindAddress = 127.0.0.1:25565
	Target = play.cubecraft.net:25565

	# <an app on your wireguard network> --(wireguard)--> 172.16.31.2:3422 --> localhost:25545
	[TCPServerTunnel]
	ListenPort = 3422
	Target = localhost:25545

	#    ssh -o ProxyCommand='wireproxy -c myconfig.conf' ssh.myserver.net
	[STDIOTunnel]
	Target = ssh.myserver.net:22

	# Socks5 creates a socks5 proxy on your LAN, and all traffic would be routed via wireguard.
	[Socks5]
	BindAddress = 127.0.0.1:25344
	#Username = ...
	# Avoid using spaces in the password field
	#Password = ...

	# http creates a http proxy on your LAN, and all traffic would be routed via wireguard.
	[http]
	BindAddress = 127.0.0.1:25345
	#Username = ...
	#Password = ...
EOF
chmod 644 "$T/sample.conf"
# wireproxy resolves the Endpoint as it reads the file (no DNS here)
quirk "-n resolves Endpoint" && sed -i 's/my.ddns.example.com/192.0.2.1/' "$T/sample.conf"
out=$(unpriv "$N1" timeout 10 $WP_CMD -n -c "$T/sample.conf" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$out" = "Config OK" ] || fail "wireproxy's README sample: exit $rc, '$out'"
ok "wireproxy's README sample (every section, CheckAlive): $out"
if ! quirk "an unknown option named (wireproxy prints its usage, exit 0)"; then
	out=$(unpriv "$N1" timeout 10 $WP_CMD --bogus -c "$T/good.conf" 2>&1)
	rc=$?
	[ $rc = 1 ] && echo "$out" | grep -qF "unknown option '--bogus'" ||
		fail "--bogus: exit $rc, '$out'"
	ok "--bogus: $out"
fi
# -d: back once started, the proxy goes on in the background (wireproxy
# v1.0.9's -d fails here: "open /dev/null: permission denied", its landlock)
quirk "-d" || {
	unpriv "$N1" timeout 10 $WP_CMD -d -c "$T/good.conf" >"$T/daemon.log" 2>&1 ||
		fail "-d: exit $?: $(cat "$T/daemon.log")"
	wait_tcp "$N1" 1080 || fail "-d: nothing listens on 1080"
	pid=$(ip netns exec "$N1" ss -Htlnp "sport = :1080" | grep -o "pid=[0-9]*" | head -n 1)
	pid=${pid#pid=}
	PIDS="$PIDS $pid"
	[ -n "$pid" ] && kill "$pid" || fail "-d: no process behind port 1080"
	for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	ok "-d: returned at once, the proxy listened in the background (pid $pid)"
}

# the good file (as -c FILE) and an open listener that says so do start
# (and listen)
for name in good allowed_open; do
	if [ $name = allowed_open ]; then
		quirk "AllowUnauthenticated" && continue
		case_conf allowed_open 12 "BindAddress = 0.0.0.0:1080
AllowUnauthenticated = true"
	fi
	# shellcheck disable=SC2086 # PROXY_CMD: the command's words
	ip netns exec "$N1" env -u XDG_RUNTIME_DIR setpriv --reuid="$UNPRIV" --regid="$UNPRIV" --clear-groups \
		--inh-caps=-all --bounding-set=-all $WP_CMD -c "$T/$name.conf" >"$T/$name.log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	wait_tcp "$N1" 1080 || fail "$name: no listener on port 1080"
	kill "$pid"
	wait "$pid" 2>/dev/null
	ok "$name: starts and listens"
done

# --log-file PATH and ZINCTUN_LOG_FILE=PATH: the lines in PATH, not on
# stderr (the file opened before the sandbox, as the daemon does)
[ "$PROXY_IMPL" = zinctun ] && for how in flag env; do
	log=$T/$how.file.log
	: >"$log" && chown "$UNPRIV" "$log" || fail "cannot create $log"
	flag="--log-file=$log" var="ZINCTUN_LOG_FILE=$log"
	[ $how = flag ] && var=X=1
	[ $how = env ] && flag=-f
	# shellcheck disable=SC2086 # PROXY_CMD: the command's words
	ip netns exec "$N1" env -u XDG_RUNTIME_DIR "$var" setpriv --reuid="$UNPRIV" --regid="$UNPRIV" \
		--clear-groups --inh-caps=-all --bounding-set=-all $WP_CMD "$flag" \
		-c "$T/good.conf" >"$T/$how.stderr" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	wait_tcp "$N1" 1080 || fail "$how log file: no listener on port 1080: $(cat "$T/$how.stderr")"
	kill "$pid"
	wait "$pid" 2>/dev/null
	grep -q "Proxy started" "$log" || fail "$how log file: no start-up line in $log"
	grep -q "Proxy started" "$T/$how.stderr" && fail "$how log file: the lines still on stderr"
	ok "$how log file: $(wc -l <"$log") lines in the file, none on stderr"
done
echo PASS
