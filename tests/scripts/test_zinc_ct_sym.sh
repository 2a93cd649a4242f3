#!/bin/sh
# sanitize: skip  (Valgrind cannot run a program built with the sanitizers)
# Constant-time check of ChaCha20, HChaCha20, XChaCha20, Poly1305 and the
# AEADs: tests/tools/zinc_ct_sym marks secrets undefined and Valgrind
# memcheck must report no secret-dependent branch or index. A planted
# secret-dependent branch must be reported, proving the harness can fail.
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib_valgrind.sh"
tool=$BUILD/tools/zinc_ct_sym
log=$(mktemp)
trap 'rm -f "$log"' EXIT

command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
make --no-print-directory BUILD="$BUILD" "$tool" >/dev/null || { echo "build failed"; exit 1; }

run() { # valgrind options... -- tool args: output to $log, returns valgrind's status
	valgrind --error-exitcode=99 "$@" >"$log" 2>&1
}

run --track-origins=yes "$tool"
rc=$?
if grep -q "debuginfo reader" "$log"; then
	tool=$(dwarf4_tool zinc_ct_sym "$log") || { echo "build failed"; exit 1; }
	run --track-origins=yes "$tool"
	rc=$?
fi
cat "$log"
if [ $rc -ne 0 ]; then
	echo "FAIL: zinc_ct_sym under valgrind exited $rc (99 = memcheck report)"
	exit 1
fi

run "$tool" --planted
rc=$?
if [ $rc -ne 99 ] || ! grep -q "uninitialised" "$log"; then
	cat "$log"
	echo "FAIL: the planted secret-dependent branch was not reported (exit $rc)"
	exit 1
fi
echo "PASS: no secret-dependent branch or index; planted leak detected"
