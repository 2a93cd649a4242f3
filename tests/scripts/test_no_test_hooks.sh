#!/bin/sh
# The shipped binaries carry no test hook (issue: test knobs in the product):
# zinctun, zinctun-proxy, libzinc.a and libzinc.so must not contain the RNG seams, the
# forced self-test failure or the daemon's escape-attempt hook; the test
# builds (libzinc-testhooks.a, zinctun-testhooks, zinctun-proxy-testhooks) must, so the check itself
# can fail. libzinc calls no getenv at all.
set -u
BUILD=${BUILD:-build}
HOOKS="ZINC_RNG_UNSEEDED ZINC_RNG_UNSEEDED_FILE ZINC_SELFTEST_FAIL zinc_rng_test_force_unseeded ZINCTUN_TEST_ESCAPE"
command -v strings >/dev/null || { echo "FAIL: strings (binutils) missing"; exit 1; }
fail=0
for f in "$BUILD/zinctun" "$BUILD/zinctun-proxy" "$BUILD/libzinc.a" "$BUILD/libzinc.so"; do
	[ -e "$f" ] || { echo "FAIL: $f missing (make)"; fail=1; continue; }
	for h in $HOOKS; do
		if strings -a "$f" | grep -qx "$h\|.*$h.*"; then
			echo "FAIL: $f contains $h"
			fail=1
		fi
	done
done
# the hooks are where the tests need them
for h in ZINC_RNG_UNSEEDED_FILE ZINC_SELFTEST_FAIL zinc_rng_test_force_unseeded; do
	strings -a "$BUILD/libzinc-testhooks.a" | grep -q "$h" ||
		{ echo "FAIL: libzinc-testhooks.a lacks $h"; fail=1; }
done
for h in ZINC_RNG_UNSEEDED_FILE ZINCTUN_TEST_ESCAPE; do
	strings -a "$BUILD/zinctun-testhooks" | grep -q "$h" ||
		{ echo "FAIL: zinctun-testhooks lacks $h"; fail=1; }
done
strings -a "$BUILD/zinctun-proxy-testhooks" | grep -q ZINCTUN_TEST_ESCAPE ||
	{ echo "FAIL: zinctun-proxy-testhooks lacks ZINCTUN_TEST_ESCAPE"; fail=1; }
# the library reads no environment: a program passes its switches
# (zinc_impl_select; zinctun's ZINC_IMPL is an option of the daemon)
command -v nm >/dev/null || { echo "FAIL: nm (binutils) missing"; exit 1; }
for f in "$BUILD/libzinc.a" "$BUILD/libzinc.so"; do
	[ -e "$f" ] || continue
	if nm -A -D "$f" 2>/dev/null | grep -qw "U getenv" || nm -A "$f" 2>/dev/null | grep -qw "U getenv"; then
		echo "FAIL: $f calls getenv"
		fail=1
	fi
done
[ $fail = 0 ] && echo "PASS: no test hook in zinctun, zinctun-proxy, libzinc.a, libzinc.so; libzinc reads no environment"
exit $fail
