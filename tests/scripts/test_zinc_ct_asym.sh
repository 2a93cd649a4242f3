#!/bin/sh
# sanitize: skip  (Valgrind cannot run a program built with the sanitizers)
# Constant-time check of keyed BLAKE2s, HMAC-BLAKE2s and X25519: secrets are
# marked undefined and memcheck fails on any branch or memory index that
# depends on them. Also proves the method works: a deliberate leak must be
# reported as such.
set -eu
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib_valgrind.sh"
command -v valgrind >/dev/null || { echo "FAIL: valgrind not installed"; exit 1; }
make --no-print-directory BUILD="$BUILD" "$BUILD/tools/zinc_ct_asym" >/dev/null
tool=$BUILD/tools/zinc_ct_asym
log=$(mktemp)
trap 'rm -f "$log"' EXIT

valgrind -q --error-exitcode=1 "$tool" --leak >"$log" 2>&1 || true
tool=$(dwarf4_tool zinc_ct_asym "$log") || { echo "FAIL: DWARF 4 rebuild failed"; exit 1; }
if valgrind -q --error-exitcode=1 "$tool" --leak >"$log" 2>&1 ||
	! grep -q 'Use of uninitialised value' "$log"; then
	cat "$log"
	echo "FAIL: valgrind did not report a deliberate secret-dependent index"
	exit 1
fi
echo "ok: deliberate leak detected"

# The dispatched path (whatever valgrind's virtual CPU offers) and the portable one.
for impl in auto generic; do
	if ! ZINC_IMPL=$impl valgrind -q --error-exitcode=1 --track-origins=yes "$tool" >"$log" 2>&1; then
		cat "$log"
		echo "FAIL: ZINC_IMPL=$impl: secret-dependent branch or index (see above)"
		exit 1
	fi
	cat "$log"
	echo "ok: ZINC_IMPL=$impl: no secret-dependent branch or index"
done
