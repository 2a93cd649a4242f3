#!/bin/sh
# A compromised daemon is not root. build/zinctun-testhooks (the daemon
# built with -DZINCTUN_TEST_HOOKS, daemon/testhook.h) tries, on SIGUSR2
# once running, what an attacker with code execution in it would: open,
# create, chmod (setuid), chown, truncate, unlink, mkdir, rename, link,
# symlink and mknod on root's files, connect to a root-only unix socket,
# signal init or read its limits, exec, ptrace a root process, make an
# AF_PACKET socket, change lo's address (SIOCSIFADDR), and add a route or
# delete a link through its rtnetlink sockets (plainly, naming the kernel,
# or through a dup). In the default mode (no user given, as wg-quick starts it)
# every attempt fails and every file is untouched; each layer alone (the
# filter with --user root, the user nobody with the filter off) refuses
# too, but for what only the filter stops (exec, the ioctl and netlink
# sends naming the kernel: CAP_NET_ADMIN stays); with both off the same
# attempts succeed (so the hook can tell).
# The shipped build/zinctun has no hook. fwmark, a listen port below 1024
# and a link-local endpoint still work in the default mode.
# sanitize: skip (the filter is on here: LeakSanitizer's exit check needs ptrace)
# tsan: skip (the filter is on here: TSan opens files to report)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

HOOKED=$(realpath -m "$BUILD/zinctun-testhooks")
[ -x "$HOOKED" ] || fail "$HOOKED missing (make tests)"
command -v strings >/dev/null || fail "strings (binutils) missing"
strings "$HOOKED" | grep -q ZINCTUN_TEST_ESCAPE || fail "the hook is not in $HOOKED"
! strings "$ZINCTUN" | grep -q "ZINCTUN_TEST_ESCAPE\|zinctun-testhook" ||
	fail "the shipped $ZINCTUN contains the test hook"
ok "hook in zinctun-testhooks only, not in the shipped zinctun"

# root's files, in a directory of root's that others may search
ESC=$(mktemp -d /tmp/zt-esc.XXXXXX)
LISTENER=""
# a root process to ptrace, without capabilities: root in the control run
# (also without any but CAP_NET_ADMIN) may then trace it
command -v setpriv >/dev/null || fail "setpriv (util-linux) missing"
setpriv --inh-caps=-all --bounding-set=-all -- sleep 600 </dev/null >/dev/null 2>&1 &
TRACEE=$!
trap 'kill $LISTENER $TRACEE 2>/dev/null; rm -rf "$ESC"; cleanup' EXIT
chmod 0755 "$ESC"
NOBODY=$(id -u nobody)

make_targets() {
	# (a bare wait would wait for the tracee too)
	[ -z "$LISTENER" ] || { kill $LISTENER 2>/dev/null; wait $LISTENER 2>/dev/null; }
	find "$ESC" -mindepth 1 -delete
	printf 'tool\n' >"$ESC/tool" && chmod 0755 "$ESC/tool"
	printf 'secret\n' >"$ESC/secret" && chmod 0600 "$ESC/secret"
	for f in victim victim2 movable movable2; do
		printf '%s\n' "$f" >"$ESC/$f" && chmod 0644 "$ESC/$f"
	done
	# root's listening socket, 0600; it writes one line per connection
	: >"$T/accepted"
	python3 - "$ESC/root.sock" "$T/accepted" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
old = os.umask(0o077); s.bind(sys.argv[1]); os.umask(old); s.listen(8)
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("connection\n")
    c.close()
PY
	LISTENER=$!
	for _ in $(seq 1 50); do [ -S "$ESC/root.sock" ] && break; sleep 0.1; done
	[ -S "$ESC/root.sock" ] || fail "root.sock listener"
	# the hook's netlink targets: a link to delete, a route not to add
	ip -n "$N" link del ztvictim0 2>/dev/null
	ip -n "$N" route del 198.51.100.0/24 2>/dev/null
	ip -n "$N" link add ztvictim0 type veth peer name ztvictim1 || fail "veth link ztvictim0"
}

# the route and the link as made: no netlink change got through
netlink_untouched() {
	ip -n "$N" route show 198.51.100.0/24 | grep -q . && fail "$1: a route was added through netlink"
	ip -n "$N" link show ztvictim0 >/dev/null 2>&1 || fail "$1: a link was deleted through netlink"
}

# every target as made, nothing new, no connection
targets_untouched() {
	[ "$(stat -c %a:%u "$ESC/tool")" = 755:0 ] || fail "$1: tool is now $(stat -c %a:%u "$ESC/tool")"
	[ "$(cat "$ESC/tool")" = tool ] || fail "$1: tool's content changed"
	[ "$(stat -c %a:%u "$ESC/secret")" = 600:0 ] || fail "$1: secret changed"
	for f in victim victim2 movable movable2; do
		[ -f "$ESC/$f" ] || fail "$1: $f is gone"
	done
	for f in created newdir newdir2 hardlink hardlink2 symlink symlink2 moved moved2 fifo; do
		[ -e "$ESC/$f" ] || [ -L "$ESC/$f" ] && fail "$1: $f was made"
	done
	[ ! -s "$T/accepted" ] || fail "$1: the root-only socket accepted a connection"
	[ "$(stat -c %h "$ESC/tool")" = 1 ] || fail "$1: tool has another link"
}

ns_setup 2
N=$(ns_name 1) N2=$(ns_name 2)

# run_hook NAME [env...]: start the hooked daemon, set it up as wg would, make
# it try its escapes; $T/NAME.log gets one line per attempt
run_hook() {
	name=$1
	shift
	ifn=$(ifname "$name")
	make_targets
	ZINCTUN=$HOOKED start_daemon zinctun "$N" "$ifn" ZINCTUN_TEST_ESCAPE="$ESC" \
		ZINCTUN_TEST_TRACEE="$TRACEE" "$@"
	ip netns exec "$N" wg set "$ifn" listen-port 0 || fail "$name: wg set"
	kill -USR2 "$LAST_PID"
	for _ in $(seq 1 50); do
		grep -q "zinctun-testhook: done" "$T/$ifn.log" && break
		sleep 0.1
	done
	grep -q "zinctun-testhook: done" "$T/$ifn.log" || fail "$name: the hook did not run"
	grep "zinctun-testhook:" "$T/$ifn.log" >"$T/$name.hook"
	kill "$LAST_PID"
	wait_gone "$LAST_PID" || fail "$name: daemon did not stop"
}

ATTEMPTS="open-read open-write open-create fchmodat fchownat truncate mkdirat unlinkat
renameat2 linkat symlinkat mknodat unix-connect unix-socket kill-init tgkill-init prlimit-init"
[ "$(uname -m)" = x86_64 ] && ATTEMPTS="$ATTEMPTS open chmod chown mkdir unlink rename link symlink"
# refused by the user too (no CAP_SYS_PTRACE, CAP_NET_RAW: the latter is
# never kept, so even the control run cannot make an AF_PACKET socket)
ATTEMPTS="$ATTEMPTS ptrace packet-socket"
# refused by the filter only
FILTERED="exec ioctl-sifaddr netlink-newroute-to netlink-dellink-to netlink-dup"

all_refused() { # NAME [ATTEMPTS]
	for a in ${2:-$ATTEMPTS}; do
		grep -q "^zinctun-testhook: $a refused errno=" "$T/$1.hook" ||
			fail "$1: $a not refused: $(grep "testhook: $a " "$T/$1.hook")"
	done
	targets_untouched "$1"
}

uid_of_hook() { sed -n 's/^zinctun-testhook: done uid=//p' "$T/$1.hook"; }

# the hook's errnos: 1 EPERM (the filter), 13 EACCES (the user)
run_hook default
all_refused default "$ATTEMPTS $FILTERED"
netlink_untouched default
[ "$(uid_of_hook default)" = "$NOBODY" ] || fail "default: uid $(uid_of_hook default), not nobody"
ok "default (nobody + filter): $(echo $ATTEMPTS $FILTERED | wc -w) escapes refused, files, routes and links untouched"

run_hook filter ZINCTUN_USER=root
all_refused filter "$ATTEMPTS $FILTERED"
netlink_untouched filter
[ "$(uid_of_hook filter)" = 0 ] || fail "filter: --user root did not stay root"
for a in $ATTEMPTS $FILTERED; do
	grep -q "^zinctun-testhook: $a refused errno=1$" "$T/filter.hook" ||
		fail "filter: $a refused other than by EPERM: $(grep "testhook: $a " "$T/filter.hook")"
done
ok "--user root (filter alone): every escape refused with EPERM"

run_hook user ZINCTUN_SECCOMP=0
all_refused user
ok "filter off (user nobody alone): every escape refused"

# control: neither layer; the same attempts now do harm
run_hook open ZINCTUN_USER=root ZINCTUN_SECCOMP=0
for a in open-read chmod fchmodat mkdirat unlinkat unix-connect kill-init tgkill-init prlimit-init \
	exec ptrace ioctl-sifaddr netlink-newroute-to netlink-dellink-to netlink-dup; do
	case " $(echo $ATTEMPTS) " in *" $a "*) ;; *) continue ;; esac
	grep -q "^zinctun-testhook: $a ALLOWED" "$T/open.hook" || fail "control: $a was refused"
done
[ -s "$T/accepted" ] || fail "control: no connection reached root.sock"
[ ! -e "$ESC/victim2" ] || fail "control: unlinkat left victim2"
ip -n "$N" route show 198.51.100.0/24 | grep -q blackhole || fail "control: no route added"
ip -n "$N" link show ztvictim0 >/dev/null 2>&1 && fail "control: ztvictim0 not deleted"
ok "control (root, no filter): the same attempts succeed"

# the default mode still does its job: fwmark, a port below 1024, and a
# link-local endpoint named by its interface (if_nametoindex after the
# filter) through which the tunnel then works
I=$(ifname d) J=$(ifname e)
genkeys k
genkeys p
ip -n "$N" addr add fe80::1:1/64 dev br0 nodad
ip -n "$N2" addr add fe80::1:2/64 dev eth0 nodad
start_daemon zinctun "$N" "$I"
start_daemon zinctun "$N2" "$J"
ip netns exec "$N2" wg set "$J" private-key "$T/p.key" listen-port 51999 \
	peer "$(pub k)" allowed-ips 10.98.0.1/32 || fail "wg set $J"
ip -n "$N2" addr add 10.98.0.2/24 dev "$J"
ip -n "$N2" link set "$J" up
ip netns exec "$N" wg set "$I" private-key "$T/k.key" fwmark 0x51 listen-port 853 \
	peer "$(pub p)" allowed-ips 10.98.0.2/32 endpoint "[fe80::1:2%br0]:51999" ||
	fail "default: wg set fwmark, port 853, link-local endpoint"
ip -n "$N" addr add 10.98.0.1/24 dev "$I"
ip -n "$N" link set "$I" up
[ "$(listen_port "$N" "$I")" = 853 ] || fail "default: listen port $(listen_port "$N" "$I")"
[ "$(ip netns exec "$N" wg show "$I" fwmark)" = 0x51 ] || fail "default: fwmark"
[ "$(wg_field "$N" "$I" endpoints p)" = "[fe80::1:2%br0]:51999" ] ||
	fail "default: endpoint $(wg_field "$N" "$I" endpoints p)"
ping_ok "$N" 10.98.0.2 || { cat "$T/ping.out"; fail "default: ping over the link-local endpoint"; }
[ "$(wg_field "$N2" "$J" endpoints k)" = "[fe80::1:1%eth0]:853" ] ||
	fail "default: $J sees $(wg_field "$N2" "$J" endpoints k)"
ok "default: fwmark 0x51, listen-port 853, tunnel over the link-local endpoint"
echo PASS
