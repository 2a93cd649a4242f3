#!/bin/sh
# zinctun-proxy's configuration socket cannot be blocked by another local
# user (issue 24, low): with XDG_RUNTIME_DIR unset, a /tmp/zinctun-UID made
# first by another uid (or a symlink there) is refused with a line saying
# so, and the socket goes to a fresh 0700 directory of the proxy's own
# (/tmp/zinctun-UID.XXXXXX), where wg's protocol answers. The uids are
# made-up numbers, not nobody: the squat must not disturb other tests'
# proxies, which use /tmp/zinctun-65534.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

PROXY=$(realpath -m "$BUILD/zinctun-proxy")
[ -x "$PROXY" ] || fail "$PROXY not built"
command -v setpriv >/dev/null || fail "setpriv missing (make deps)"
OWNER=$((54000 + ID % 900)) OTHER=$((55000 + ID % 900))
SQUAT=/tmp/zinctun-$OWNER
[ -e "$SQUAT" ] || [ -L "$SQUAT" ] && { echo "$SQUAT exists already: not ours to touch"; exit 77; }
trap 'rm -rf "$SQUAT" /tmp/zinctun-$OWNER.*; cleanup' EXIT
chmod 755 "$T"
ns_setup 1
N1=$(ns_name 1)
genkeys a
genkeys b
SOCKS=1080
cat >"$T/rd.conf" <<EOF
[Interface]
PrivateKey = $(cat "$T/a.key")
Address = 10.99.0.2/32

[Peer]
PublicKey = $(pub b)
AllowedIPs = 10.99.0.0/24

[Socks5]
BindAddress = 127.0.0.1:$SOCKS
EOF
chmod 644 "$T/rd.conf"

# run_as_owner NAME: the proxy as OWNER without XDG_RUNTIME_DIR; PID
run_as_owner() {
	ip netns exec "$N1" env -u XDG_RUNTIME_DIR setpriv --reuid="$OWNER" --regid="$OWNER" \
		--clear-groups --inh-caps=-all --bounding-set=-all "$PROXY" "$T/rd.conf" \
		>"$T/$1.log" 2>&1 &
	PID=$!
	PIDS="$PIDS $PID"
	for _ in $(seq 1 50); do
		grep -q "Proxy started" "$T/$1.log" && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "$1: the proxy did not start: $(cat "$T/$1.log")"
}

# the socket named in the log: in a 0700 directory of OWNER's, answering
check_socket() {
	sock=$(sed -n 's/.*configuration socket \(.*\))$/\1/p' "$T/$1.log" | tail -1)
	dir=$(dirname "$sock")
	case $dir in "$SQUAT".??????) ;; *) fail "$1: socket $sock, not in a fresh $SQUAT.XXXXXX" ;; esac
	[ "$(stat -c %u:%a "$dir")" = "$OWNER:700" ] || fail "$1: $dir is $(stat -c %u:%a "$dir")"
	[ -S "$sock" ] || fail "$1: no socket at $sock"
	python3 "$TESTS_DIR/uapi.py" "$sock" $'get=1\n\n' >"$T/$1.get" 2>&1 || fail "$1: get: $(cat "$T/$1.get")"
	grep -q "^errno=0" "$T/$1.get" || fail "$1: get answered $(tail -1 "$T/$1.get")"
}

stop() {
	kill "$PID"
	wait_gone "$PID" || fail "the proxy did not stop"
}

# another user's directory, 0777 for good measure
mkdir -m 0777 "$SQUAT" && chown "$OTHER:$OTHER" "$SQUAT"
run_as_owner squat
grep -q "$SQUAT is not a private directory of uid $OWNER" "$T/squat.log" ||
	fail "no word about $SQUAT: $(cat "$T/squat.log")"
check_socket squat
ok "$SQUAT made by uid $OTHER: refused, said so, socket in $(dirname "$sock")"
stop

# a symlink to a directory of the owner's own is refused too
rmdir "$SQUAT"
mkdir -m 0700 "$T/mine" && chown "$OWNER:$OWNER" "$T/mine"
ln -s "$T/mine" "$SQUAT"
run_as_owner link
check_socket link
[ -z "$(ls -A "$T/mine")" ] || fail "the proxy followed the symlink: $(ls "$T/mine")"
ok "a symlink at $SQUAT: not followed, socket in $(dirname "$sock")"
stop
echo PASS
