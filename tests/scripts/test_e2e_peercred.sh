#!/bin/sh
# The configuration socket answers only root and the daemon's own user
# (SO_PEERCRED), even when the socket file's mode would let others in:
# the file is made 0666 here so that only the credential check stands in
# the way. Twice: a daemon told to stay root (--user root; nobody and uid
# 12345 refused), and one that dropped to nobody, the default (nobody and
# root served, 12345 refused).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

command -v setpriv >/dev/null || fail "setpriv (util-linux) missing"

# as UID IFNAME: a get request as that uid; prints the answer (empty when
# the daemon closed the connection without one) or CONNECT-FAILED. Its own
# client, not uapi.py: that uid may not be able to read the checkout.
as() {
	setpriv --reuid="$1" --regid="$1" --clear-groups /usr/bin/python3 - "$SOCKDIR/$2.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("CONNECT-FAILED", e)
    sys.exit(0)
out = b""
try:
    s.sendall(b"get=1\n\n")
    while b"errno=" not in out or not out.endswith(b"\n\n"):
        d = s.recv(65536)
        if not d:
            break
        out += d
except OSError:
    pass
sys.stdout.write(out.decode())
PY
}

refused_count() { grep -c "refused a connection from uid $1" "$T/$2.log"; }

ns_setup 1
N=$(ns_name 1)
genkeys k

check_daemon() { # IFNAME OWN_UID (the daemon's euid)
	ifn=$1 own=$2
	conf_iface "$N" "$ifn" k 1
	# first layer: the 0600 file keeps others out
	out=$(as 12345 "$ifn")
	case $out in CONNECT-FAILED*) ok "$ifn: 0600 socket refuses uid 12345 at connect" ;;
	*) fail "$ifn: uid 12345 connected through a 0600 socket: $out" ;; esac
	chmod 0666 "$SOCKDIR/$ifn.sock" || fail "chmod"

	out=$(as 0 "$ifn")
	echo "$out" | grep -q "^private_key=" && echo "$out" | grep -q "^errno=0$" ||
		fail "$ifn: root not served: $out"
	ok "$ifn: root served"
	for uid in 12345 65534; do
		out=$(as "$uid" "$ifn")
		if [ "$uid" = "$own" ]; then
			echo "$out" | grep -q "^errno=0$" || fail "$ifn: own uid $uid not served: $out"
			ok "$ifn: own uid $uid served"
		else
			[ -z "$out" ] || fail "$ifn: uid $uid got an answer: $out"
			ok "$ifn: uid $uid refused"
		fi
	done
	for _ in $(seq 1 20); do
		[ "$(refused_count 12345 "$ifn")" -ge 1 ] && break
		sleep 0.1
	done
	[ "$(refused_count 12345 "$ifn")" -ge 1 ] || fail "$ifn: no refusal logged"
	# still serving after refusals, and the key never reached the log
	ip netns exec "$N" wg show "$ifn" private-key >/dev/null || fail "$ifn: wg show after refusals"
	! grep -qF "$(cat "$T/k.key")" "$T/$ifn.log" || fail "$ifn: private key in the log"
	! grep -qF "$(hexkey k key)" "$T/$ifn.log" || fail "$ifn: hex private key in the log"
	ok "$ifn: still serving root; key not logged"
}

IA=$(ifname a)
start_daemon zinctun "$N" "$IA" ZINCTUN_USER=root
check_daemon "$IA" 0

IB=$(ifname b)
start_daemon zinctun "$N" "$IB"
check_daemon "$IB" 65534
echo PASS
