#!/bin/sh
# The opt-in io_uring TUN reader (ZINCTUN_URING=1, doc/datapath.md): the
# ping and iperf3 end-to-end tests with it on (seccomp filter on), and a
# daemon of theirs must hold an io_uring instance while they run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
dir=$(dirname "$0")
export ZINCTUN_URING=1
ZT=$(realpath -m "${BUILD:-build}/zinctun")

# rings: number of zinctun processes of this test (by environment) holding
# an io_uring descriptor
rings() {
	n=0
	for d in /proc/[0-9]*; do
		[ "$(readlink "$d/exe" 2>/dev/null)" = "$ZT" ] || continue
		tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qx "ZINCTUN_URING=1" || continue
		ls -l "$d/fd" 2>/dev/null | grep -q "io_uring" && n=$((n + 1))
	done
	echo $n
}

for t in ping iperf; do
	echo "== test_e2e_$t with ZINCTUN_URING=1"
	bash "$dir/test_e2e_$t.sh" >"/tmp/zt-uring.$$" 2>&1 &
	pid=$!
	seen=0
	while kill -0 $pid 2>/dev/null; do
		[ "$(rings)" -gt 0 ] && seen=1
		sleep 0.5
	done
	wait $pid
	rc=$?
	tail -n 5 "/tmp/zt-uring.$$"
	[ $rc = 0 ] || { cat "/tmp/zt-uring.$$"; rm -f "/tmp/zt-uring.$$"; echo "FAIL: test_e2e_$t with io_uring reads"; exit 1; }
	rm -f "/tmp/zt-uring.$$"
	[ $seen = 1 ] || { echo "FAIL: no daemon held an io_uring instance in test_e2e_$t"; exit 1; }
	echo "ok: test_e2e_$t passed with io_uring TUN reads"
done
echo PASS
