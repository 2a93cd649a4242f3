#!/bin/sh
# Daemon life cycle: CLI, background start returning once ready, exit on
# `ip link del`, SIGTERM, SIGINT and socket deletion; after each, and after
# SIGKILL, the socket file is gone under the default sandbox (its remover,
# zinctun-sockrm, has no capability and no other descriptor) and wg show
# answers as for no interface; restart over a stale socket (remover killed
# too), refusing a second daemon, MTU following, inherited WG_TUN_FD /
# WG_UAPI_FD.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 1
N=$(ns_name 1) I=$(ifname l)
IFACES="$IFACES $I"
w() { ip netns exec "$N" wg "$@"; }

"$ZINCTUN" --version | grep -q "zinctun v" || fail "--version"
"$ZINCTUN" --help | grep -q "Usage" || fail "--help"
"$ZINCTUN" >/dev/null 2>&1 && fail "no interface name accepted"
"$ZINCTUN" -x foo >/dev/null 2>&1 && fail "unknown option accepted"
ok "CLI"

# the daemon's PID, by its exact command line
find_pid() {
	for d in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" = "$ZINCTUN $1 " ] && { basename "$d"; return; }
	done
}

# -- background start: returns once the interface and socket exist; logs
# go to syslog (a stand-in here)
syslog_start
LOG_LEVEL=info devlog_exec "$N" "$ZINCTUN" "$I" >>"$T/bg.log" 2>&1 || fail "background start"
[ -S "$SOCKDIR/$I.sock" ] || fail "socket missing right after return"
ip -n "$N" link show "$I" >/dev/null || fail "interface missing right after return"
[ "$(ip -n "$N" link show "$I" | grep -o 'mtu [0-9]*')" = "mtu 1420" ] || fail "default MTU"
P=$(find_pid "$I")
[ -n "$P" ] || fail "daemon process not found"
PIDS="$PIDS $P"
w show "$I" >/dev/null || fail "wg show"
ok "background start (pid $P), MTU 1420"

# the socket file's remover: the daemon's child, uid 0 without any
# capability, no_new_privs, one descriptor (the pipe from the daemon)
remover_of() {
	for d in /proc/[0-9]*; do
		[ "$(awk '/^PPid:/ { print $2 }' "$d/status" 2>/dev/null)" = "$1" ] &&
			[ "$(cat "$d/comm" 2>/dev/null)" = zinctun-sockrm ] && { basename "$d"; return; }
	done
}
R=$(remover_of "$P")
[ -n "$R" ] || fail "no zinctun-sockrm child of $P"
st=$(grep -E "^(Uid|CapPrm|CapEff|NoNewPrivs):" /proc/"$R"/status | tr -s '\t' ' ' | tr '\n' ';')
[ "$st" = "Uid: 0 0 0 0;CapPrm: 0000000000000000;CapEff: 0000000000000000;NoNewPrivs: 1;" ] ||
	fail "remover $R: $st"
[ "$(ls /proc/"$R"/fd | wc -l)" = 1 ] || fail "remover $R holds $(ls -l /proc/"$R"/fd)"
[ "$(awk '/^Uid:/ { print $2 }' /proc/"$P"/status)" = "$(id -u nobody)" ] || fail "daemon not nobody"
ok "socket remover $R: $st one descriptor"

# -- MTU changes are followed
ip -n "$N" link set "$I" mtu 1280
wait_in "$T/syslog.log" "MTU of $I is now 1280" 20 || fail "MTU change not seen"
ok "MTU change followed"

# -- a second daemon on the same interface is refused, the first survives
ip netns exec "$N" "$ZINCTUN" -f "$I" >"$T/second.log" 2>&1 && fail "second daemon started"
kill -0 "$P" || fail "first daemon died"
w show "$I" >/dev/null || fail "first daemon unusable"
ok "second daemon refused"

# -- ip link del: exit and remove the socket
ip -n "$N" link del "$I"
wait_gone "$P" || fail "still running after ip link del"
sock_removed "$I" || fail "after ip link del"
# the TUN reader sees EBADFD: the link going away, not an error
grep -q "File descriptor in bad state" "$T/bg.log" && fail "deletion logged as EBADFD: $(cat "$T/bg.log")"
ok "exit on link deletion ($(grep -oE "interface $I (was deleted|is gone)[^,]*" "$T/bg.log" | tr '\n' ';'))"

# -- SIGTERM and SIGINT in the foreground
for sig in TERM INT; do
	start_daemon zinctun "$N" "$I"
	P=$LAST_PID
	kill -s "$sig" "$P"
	wait_gone "$P" || fail "still running after SIG$sig"
	sock_removed "$I" || fail "after SIG$sig"
	ip -n "$N" link show "$I" >/dev/null 2>&1 && fail "link left after SIG$sig"
	ok "exit on SIG$sig"
done

# -- WG_PROCESS_FOREGROUND=1 stays in the foreground
ip netns exec "$N" env WG_PROCESS_FOREGROUND=1 "$ZINCTUN" "$I" >>"$T/fg.log" 2>&1 &
P=$!
PIDS="$PIDS $P"
wait_sock "$I" || fail "WG_PROCESS_FOREGROUND: no socket"
kill -0 "$P" || fail "WG_PROCESS_FOREGROUND: not in the foreground"
# -- removing the socket file stops it
rm -f "$SOCKDIR/$I.sock"
wait_gone "$P" || fail "still running after socket removal"
ok "WG_PROCESS_FOREGROUND=1, exit on socket removal"

# -- SIGKILL: the remover still removes the socket file
start_daemon zinctun "$N" "$I"
kill -9 "$LAST_PID"
wait_gone "$LAST_PID" || fail "SIGKILL"
sock_removed "$I" || fail "after SIGKILL"
ok "socket removed after SIGKILL"

# -- restart over a stale socket (its remover killed first): taken over
genkeys k
genkeys p
start_daemon zinctun "$N" "$I"
P=$LAST_PID
w set "$I" private-key "$T/k.key" peer "$(pub p)" allowed-ips 10.7.0.0/24
R=$(remover_of "$P")
[ -n "$R" ] && kill -9 "$R"
kill -9 "$P"
wait_gone "$P" || fail "SIGKILL"
[ -S "$SOCKDIR/$I.sock" ] || fail "expected a stale socket after SIGKILL of both"
start_daemon zinctun "$N" "$I"
P=$LAST_PID
# start_daemon's socket wait returns at once here (the stale file exists):
# wait until the new daemon answers on it
for _ in $(seq 1 50); do w show "$I" >/dev/null 2>&1 && break; sleep 0.1; done
w set "$I" private-key "$T/k.key" peer "$(pub p)" allowed-ips 10.7.0.0/24 || fail "reconfigure"
[ "$(w show "$I" public-key)" = "$(pub k)" ] || fail "restarted daemon config"
ok "restart after SIGKILL"
kill "$P"
wait_gone "$P" || fail "stop"

# -- inherited descriptors (how wireguard-go re-executes itself); the
# socket made here must not find the last daemon's file
sock_removed "$I" || fail "after stop"
ip netns exec "$N" python3 - "$ZINCTUN" "$I" "$SOCKDIR/$I.sock" >>"$T/fd.log" 2>&1 <<'PY' &
import fcntl, os, socket, struct, sys
zt, name, path = sys.argv[1:]
tun = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(tun, 0x400454ca, struct.pack("16sH", name.encode(), 0x0001 | 0x1000))
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
old = os.umask(0o077); s.bind(path); os.umask(old); s.listen(8)
env = dict(os.environ, WG_TUN_FD=str(tun), WG_UAPI_FD=str(s.fileno()), LOG_LEVEL="debug")
os.set_inheritable(tun, True); os.set_inheritable(s.fileno(), True)
os.execve(zt, [zt, "-f", name], env)
PY
P=$!
PIDS="$PIDS $P"
wait_sock "$I" || fail "inherited: no socket"
sleep 0.3
w show "$I" listen-port >/dev/null || fail "inherited: wg show: $(cat "$T/fd.log")"
ip -n "$N" link del "$I"
wait_gone "$P" || fail "inherited: still running after link deletion"
sock_removed "$I" || fail "inherited"
ok "WG_TUN_FD / WG_UAPI_FD"
echo PASS
