#!/bin/sh
# Every Zinc implementation path this CPU has, one after the other: the zinc
# unit tests run under ZINC_IMPL=<path> (and must report that path), the
# Valgrind constant-time tools run per path, and the x86 kernels are checked
# for constant time directly (Valgrind's virtual CPU hides ADX and cannot run
# AVX-512, so under Valgrind the dispatch alone would skip those). Finally a
# forced self-test failure must fall back to the portable code and still pass.
# On a sanitizer build (SANITIZE=1) the Valgrind parts are left out: Valgrind
# cannot run ASan binaries; the unit tests still run on every path.
set -u
BUILD=${BUILD:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail=0

tests=""
for src in tests/unit/test_zinc_*.c; do
	[ "$src" = tests/unit/test_zinc_arm64.c ] && continue # arm64 only (make check-cross)
	tests="$tests $BUILD/tests/$(basename "$src" .c)"
done
valgrind=1
[ -n "${SANITIZE:-}" ] && valgrind=0
[ $valgrind = 0 ] || command -v valgrind >/dev/null || { echo "FAIL: valgrind not installed"; exit 1; }
# A sanitizer tree is built (with its flags) before the tests run.
if [ $valgrind = 1 ]; then
	make --no-print-directory BUILD="$BUILD" $tests "$BUILD/tools/zinc_impl" \
		"$BUILD/tools/zinc_ct_sym" "$BUILD/tools/zinc_ct_asym" \
		"$BUILD/tools/zinc_ct_x86" >/dev/null || { echo "FAIL: build"; exit 1; }
fi

# Valgrind 3.19 cannot read clang 14's DWARF 5: the Valgrind tools are then
# rebuilt with DWARF 4 (same compiler and flags otherwise) in a side tree.
vbuild=$BUILD
if [ $valgrind = 1 ]; then
	valgrind -q "$BUILD/tools/zinc_impl" >"$log" 2>&1
	if grep -qi "dwarf\|debuginfo" "$log"; then
		vbuild=$BUILD/ct-dwarf4
		echo "valgrind cannot read the debug info; using $vbuild (-gdwarf-4)"
		make --no-print-directory BUILD="$vbuild" EXTRA_CFLAGS=-gdwarf-4 \
			"$vbuild/tools/zinc_ct_sym" "$vbuild/tools/zinc_ct_asym" \
			"$vbuild/tools/zinc_ct_x86" >/dev/null || { echo "FAIL: build"; exit 1; }
	fi
fi

paths=$("$BUILD/tools/zinc_impl" --available)
echo "paths on this CPU: $paths"
for p in $paths; do
	desc=$(ZINC_IMPL=$p "$BUILD/tools/zinc_impl") || { echo "FAIL: $p: $desc"; fail=1; }
	echo "$p: $desc"
	case "$desc" in
	"path=$p "*) ;;
	*) echo "FAIL: ZINC_IMPL=$p was not honoured"; fail=1 ;;
	esac
	# the avx2 level batches X25519 four lanes at a time
	if [ "$p" = avx2 ]; then
		case "$desc" in
		*x25519_batch=avx2-x4*) ;;
		*) echo "FAIL: ZINC_IMPL=avx2 does not batch X25519 with avx2-x4"; fail=1 ;;
		esac
	fi
	for t in $tests; do
		if ! ZINC_IMPL=$p "$t" >"$log" 2>&1; then
			tail -n 20 "$log"
			echo "FAIL: ZINC_IMPL=$p $(basename "$t")"
			fail=1
		fi
	done
	[ $valgrind = 1 ] || continue
	for tool in zinc_ct_sym zinc_ct_asym; do
		if ! ZINC_IMPL=$p valgrind -q --error-exitcode=99 --track-origins=yes \
			"$vbuild/tools/$tool" >"$log" 2>&1; then
			tail -n 30 "$log"
			echo "FAIL: ZINC_IMPL=$p $tool under valgrind"
			fail=1
		fi
	done
done

if [ $valgrind = 1 ]; then
	kernels=$("$vbuild/tools/zinc_ct_x86" --list)
	if [ -z "$kernels" ] || ! valgrind -q --error-exitcode=99 --track-origins=yes \
		"$vbuild/tools/zinc_ct_x86" $kernels >"$log" 2>&1; then
		tail -n 40 "$log"
		echo "FAIL: x86 kernels under valgrind:" ${kernels:-none listed}
		fail=1
	else
		echo "constant time under valgrind:" $kernels
	fi
	valgrind -q --error-exitcode=99 "$vbuild/tools/zinc_ct_x86" --planted >"$log" 2>&1
	if [ $? -ne 99 ]; then
		cat "$log"
		echo "FAIL: the planted secret-dependent branch was not reported"
		fail=1
	fi
else
	echo "sanitizer build: valgrind checks left out"
fi

# A path that fails its known answers is replaced by the portable code.
desc=$(ZINC_SELFTEST_FAIL=1 "$BUILD/tools/zinc_impl")
case "$desc" in
*"selftest=FAILED"*) ;;
*) echo "FAIL: forced self-test failure not reported: $desc"; fail=1 ;;
esac
for t in $tests; do
	if ! ZINC_SELFTEST_FAIL=1 "$t" >"$log" 2>&1; then
		tail -n 20 "$log"
		echo "FAIL: ZINC_SELFTEST_FAIL=1 $(basename "$t")"
		fail=1
	fi
done

[ $fail -eq 0 ] && echo "PASS: every path: unit tests, constant time (valgrind=$valgrind), fallback"
exit $fail
