#!/bin/sh
# Start-up errors say what to do: each exits with status 1 and prints one
# line on stderr naming the cause, also from the default background mode
# (the parent reports), and leaves no interface behind:
#  - no CAP_NET_ADMIN (as nobody, and as root without capabilities);
#  - no /dev/net/tun (an empty tmpfs over /dev/net in a private mount
#    namespace; the host's /dev is not touched);
#  - a link of that name that is not a TUN device, lo included (no driver
#    information: it was taken for a TUN with other flags);
#  - a second daemon on a name another one holds, also from another network
#    namespace (the socket directory is shared);
#  - a metrics port another interface's daemon has (one port per interface);
#  - an unknown option, an option without its value, an extra argument;
#  - an unknown --user (checked before the interface is made);
#  - WG_TUN_FD together with a different name on the command line;
#  - a variable with a value out of its range (every variable is parsed
#    once, before anything is made; tests/unit/test_cli has them all), and
#    the former ZINCTUN_NO_GRO, which names its two successors.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_netns.sh"

ns_setup 2
N1=$(ns_name 1) N2=$(ns_name 2)

# expect_error WHAT PATTERN COMMAND...: status 1, one line on stderr that
# matches PATTERN (grep -E)
expect_error() {
	what=$1 pat=$2
	shift 2
	timeout 10 "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 1 ] || fail "$what: exit status $rc, stderr '$(cat "$T/err")'"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "$what: not one line on stderr: '$(cat "$T/err")'"
	grep -qE "$pat" "$T/err" || fail "$what: message '$(cat "$T/err")'"
	ok "$what: $(cat "$T/err")"
}

# no_link NAME: the failed start left no interface of that name
no_link() {
	ip -n "$N1" link show "$1" >/dev/null 2>&1 && fail "interface $1 left behind"
	return 0
}

I=$(ifname x)
IFACES="$I $(ifname h)"

expect_error "unknown option" "unknown option '--bogus'" "$ZINCTUN" --bogus "$I"
expect_error "missing value" "option '--user' needs a value" "$ZINCTUN" "$I" --user
expect_error "extra argument" "unexpected argument 'extra'" "$ZINCTUN" "$I" extra

expect_error "as nobody" "needs root with CAP_NET_ADMIN" ip netns exec "$N1" setpriv --reuid=65534 \
	--regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$ZINCTUN" "$I"
no_link "$I"
expect_error "root without capabilities" "needs CAP_NET_ADMIN" ip netns exec "$N1" setpriv \
	--inh-caps=-all --bounding-set=-all "$ZINCTUN" "$I"
no_link "$I"

expect_error "no /dev/net/tun" "/dev/net/tun is missing" ip netns exec "$N1" unshare -m --propagation private \
	sh -c 'mount -t tmpfs none /dev/net && exec "$0" "$1"' "$ZINCTUN" "$I"
no_link "$I"

# a dummy link as the issue says, or a bridge where the kernel has no dummy
L=$(ifname l)
ip -n "$N1" link add "$L" type dummy 2>/dev/null || ip -n "$N1" link add "$L" type bridge ||
	fail "cannot add a non-TUN link"
expect_error "non-TUN link" "$L exists and is not a TUN device" ip netns exec "$N1" "$ZINCTUN" "$L"
[ ! -e "$SOCKDIR/$L.sock" ] || fail "a socket for $L was created"
expect_error "lo" "^zinctun: interface lo exists and is not a TUN device" ip netns exec "$N1" "$ZINCTUN" lo
[ ! -e "$SOCKDIR/lo.sock" ] || fail "a socket for lo was created"

expect_error "unknown user" "unknown user 'zt-no-such-user'" ip netns exec "$N1" "$ZINCTUN" \
	--user zt-no-such-user "$I"
no_link "$I"
expect_error "unknown ZINCTUN_USER" "unknown user 'zt-no-such-user'" ip netns exec "$N1" env \
	ZINCTUN_USER=zt-no-such-user "$ZINCTUN" -f "$I"
no_link "$I"

expect_error "ZINCTUN_WORKERS out of range" "ZINCTUN_WORKERS=99 is not a number from 0 to 16" \
	ip netns exec "$N1" env ZINCTUN_WORKERS=99 "$ZINCTUN" "$I"
no_link "$I"
expect_error "ZINCTUN_NO_GRO" "ZINCTUN_NO_GRO is split into ZINCTUN_NO_UDP_GRO and ZINCTUN_NO_TUN_GRO" \
	ip netns exec "$N1" env ZINCTUN_NO_GRO=1 "$ZINCTUN" -f "$I"
no_link "$I"
expect_error "unknown ZINC_IMPL" "ZINC_IMPL=avx3 is not generic, ssse3, avx2, avx512 or auto" \
	ip netns exec "$N1" env ZINC_IMPL=avx3 "$ZINCTUN" "$I"
no_link "$I"

H=$(ifname h)
start_daemon zinctun "$N1" "$H"
expect_error "second daemon" "$H is held by another daemon" ip netns exec "$N1" "$ZINCTUN" "$H"
expect_error "second daemon (foreground)" "$H is held by another daemon" ip netns exec "$N1" "$ZINCTUN" -f "$H"
expect_error "same name in another namespace" "another daemon holds interface $H" \
	ip netns exec "$N2" "$ZINCTUN" "$H"
ip -n "$N2" link show "$H" >/dev/null 2>&1 && fail "interface $H left in $N2"
kill -0 "$(eval echo \$PID_$H)" || fail "the first daemon died"
ip netns exec "$N1" wg show "$H" listen-port >/dev/null || fail "the first daemon stopped answering"

# one metrics port per interface: a second one on it is refused, naming it
M=$(ifname m) M2=$(ifname n)
IFACES="$IFACES $M $M2"
start_daemon zinctun "$N1" "$M" ZINCTUN_METRICS=9586
for fg in "" -f; do
	expect_error "metrics port taken ${fg:-(background)}" \
		"metrics address 9586 is in use .*each interface needs its own ZINCTUN_METRICS port" \
		ip netns exec "$N1" env ZINCTUN_METRICS=9586 "$ZINCTUN" $fg "$M2"
	no_link "$M2"
done

# WG_TUN_FD names its interface; a different name beside it is a mistake
expect_error "WG_TUN_FD and another name" "is interface $I, not $(ifname y)" ip netns exec "$N1" python3 - \
	"$ZINCTUN" "$I" "$(ifname y)" <<'PY'
import fcntl, os, struct, subprocess, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", sys.argv[2].encode(), 0x0001 | 0x1000))  # TUNSETIFF, IFF_TUN|IFF_NO_PI
env = dict(os.environ, WG_TUN_FD=str(fd))
sys.exit(subprocess.run([sys.argv[1], sys.argv[3]], env=env, pass_fds=[fd]).returncode)
PY
no_link "$I"
no_link "$(ifname y)"
echo PASS
