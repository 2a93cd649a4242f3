#!/bin/sh
# Proxy mode never runs with more power than it needs (issue 24): started
# by root, `zinctun --proxy FILE` leaves a zinctun-proxy that runs as
# nobody, with no capability in any set, no_new_privs and the seccomp
# filter (Seccomp 2) on every thread, and still carries traffic both ways
# (SOCKS5 out, [TCPServerTunnel] in, which connects a host socket after
# the filter). build/zinctun-proxy-testhooks, started by root, tries on
# SIGUSR2 what an attacker with code execution would: exec, open root's
# 0600 file, ptrace a root process, make an AF_PACKET socket: each refused
# by the filter (EPERM); with the filter off and --user root (control) the
# same exec, open and ptrace get through. An unprivileged start gets the
# filter too. The shipped zinctun-proxy has no hook.
# sanitize: skip (the filter is on here: LeakSanitizer's exit check needs ptrace)
# tsan: skip (the filter is on here: TSan opens files to report)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_proxy.sh"

BIG_MB=1 # no bulk transfer here
HOOKED=$(realpath -m "$BUILD/zinctun-proxy-testhooks")
SHIPPED=$(realpath -m "$BUILD/zinctun-proxy")
[ -x "$HOOKED" ] || fail "$HOOKED missing (make tests)"
[ -x "$SHIPPED" ] || fail "$SHIPPED missing (make)"
for t in strings setpriv curl; do
	command -v $t >/dev/null || fail "$t missing (make deps)"
done
strings "$HOOKED" | grep -q ZINCTUN_TEST_ESCAPE || fail "the hook is not in $HOOKED"
! strings "$SHIPPED" | grep -q "ZINCTUN_TEST_ESCAPE\|zinctun-testhook" ||
	fail "the shipped $SHIPPED contains the test hook"
PROXY_IMPL=zinctun

ESC=$(mktemp -d /tmp/zt-pesc.XXXXXX)
chmod 0755 "$ESC"
printf 'tool\n' >"$ESC/tool" && chmod 0755 "$ESC/tool"
printf 'secret\n' >"$ESC/secret" && chmod 0600 "$ESC/secret"
# a root process without capabilities: root may trace it in the control run
setpriv --inh-caps=-all --bounding-set=-all -- sleep 600 </dev/null >/dev/null 2>&1 &
TRACEE=$!
trap 'kill $TRACEE 2>/dev/null; rm -rf "$ESC"; cleanup' EXIT
NOBODY=$(id -u nobody)

peer_setup
write_conf "$CONF"

# run_root NAME CMD...: CMD as root in the client namespace (no
# XDG_RUNTIME_DIR: root's socket goes to /tmp/zinctun-0); PROXY_PID
run_root() {
	name=$1
	shift
	ip netns exec "$N2" env -u XDG_RUNTIME_DIR "$@" >"$T/$name.log" 2>&1 &
	PROXY_PID=$!
	PIDS="$PIDS $PROXY_PID"
	wait_tcp "$N2" "$SOCKS_PORT" || { cat "$T/$name.log"; fail "$name: no SOCKS5 listener"; }
	kill -0 "$PROXY_PID" 2>/dev/null || fail "$name: the proxy exited at start"
}

stop_proxy() {
	kill "$PROXY_PID" 2>/dev/null
	wait_gone "$PROXY_PID" || fail "the proxy did not stop"
	for _ in $(seq 1 50); do
		ip netns exec "$N2" ss -Htln "sport = :$SOCKS_PORT" | grep -q . || return 0
		sleep 0.1
	done
	fail "port $SOCKS_PORT still taken"
}

# confined NAME UID: every thread of PROXY_PID runs as UID, with empty
# capability sets, no_new_privs and a seccomp filter
confined() {
	for st in /proc/"$PROXY_PID"/task/*/status; do
		uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")
		[ "$uids" = "$2 $2 $2 $2" ] || fail "$1: thread $st uids $uids"
		for c in CapInh CapPrm CapEff CapBnd CapAmb; do
			v=$(awk -v k="$c:" '$1 == k { print $2 }' "$st")
			[ "$v" = 0000000000000000 ] || fail "$1: thread $st $c = $v"
		done
		[ "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")" = 1 ] || fail "$1: $st NoNewPrivs"
		[ "$(awk '/^Seccomp:/ { print $2 }' "$st")" = 2 ] || fail "$1: $st Seccomp"
	done
}

# -- the shipped proxy started by root through zinctun --proxy
run_root shipped "$ZINCTUN" --proxy "$CONF"
wait_tunnel
confined shipped "$NOBODY"
n=$(ls /proc/"$PROXY_PID"/task | wc -l)
ok "zinctun --proxy as root: uid $NOBODY, CapEff 0 (every set), NoNewPrivs 1, Seccomp 2 on all $n threads"
# traffic after the filter: SOCKS5 out; [TCPServerTunnel] in, whose host
# side is a connect() made after the filter
out=$(pcurl -x "socks5h://127.0.0.1:$SOCKS_PORT" "http://$(tun4 1):$WEB_PORT/small") ||
	fail "SOCKS5 after the filter"
[ "$out" = "hello through the tunnel" ] || fail "SOCKS5 after the filter: $out"
ip netns exec "$N1" curl -sS --max-time 20 -o "$T/file" "http://$(tun4 2):$SERVER_TUN_PORT/file" ||
	fail "[TCPServerTunnel] after the filter"
cmp -s "$T/file" "$T/local/file" || fail "[TCPServerTunnel]: the file differs"
ok "SOCKS5 and [TCPServerTunnel] carry traffic under the filter"
stop_proxy

# hook NAME [env...]: the hooked proxy as root; $T/NAME.hook gets its lines
hook() {
	name=$1
	shift
	run_root "$name" env ZINCTUN_SECCOMP=1 ZINCTUN_TEST_ESCAPE="$ESC" ZINCTUN_TEST_TRACEE="$TRACEE" "$@" \
		"$HOOKED" "$CONF"
	kill -USR2 "$PROXY_PID"
	for _ in $(seq 1 50); do
		grep -q "zinctun-testhook: done" "$T/$name.log" && break
		sleep 0.1
	done
	grep -q "zinctun-testhook: done" "$T/$name.log" || fail "$name: the hook did not run"
	grep "zinctun-testhook:" "$T/$name.log" >"$T/$name.hook"
}

ESCAPES="exec open-read ptrace packet-socket"
hook hooked
confined hooked "$NOBODY"
for a in $ESCAPES; do
	grep -q "^zinctun-testhook: $a refused errno=1$" "$T/hooked.hook" ||
		fail "hooked: $a not refused by the filter: $(grep "testhook: $a " "$T/hooked.hook")"
done
[ "$(cat "$ESC/secret")" = secret ] || fail "secret changed"
ok "in the proxy: $ESCAPES refused (EPERM, the filter)"
stop_proxy

# control: no filter, root: the hook's attempts get through (AF_PACKET
# needs CAP_NET_RAW, which the proxy never keeps)
hook control ZINCTUN_SECCOMP=0 ZINCTUN_USER=root
for a in exec open-read ptrace; do
	grep -q "^zinctun-testhook: $a ALLOWED" "$T/control.hook" ||
		fail "control: $a refused: $(grep "testhook: $a " "$T/control.hook")"
done
ok "control (root, no filter): exec, open-read, ptrace get through"
stop_proxy

# an unprivileged start gets the same filter
PROXY_CMD=$SHIPPED
start_proxy "$CONF"
wait_tunnel
confined unprivileged "$UNPRIV"
ok "unprivileged start: NoNewPrivs 1, Seccomp 2, no capability"
echo PASS
