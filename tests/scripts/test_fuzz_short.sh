#!/bin/sh
# sanitize: skip  (scripts/fuzz makes its own ASan+UBSan builds, whatever the build: make check runs it)
# Short fuzzing pass for make check. First checks that scripts/fuzz itself
# catches a crash, a leak and undefined behaviour, and links extra sources
# named in a target's first line; then runs every fuzz/fuzz_*.c ~5 s.
set -eu
B=${BUILD:-build}
export FUZZ_BUILD="$B/fuzz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/fuzz_selftest_crash.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n >= 2 && d[0] == 'X' && d[1] == '!')
		abort();
	return 0;
}
C
cat >"$tmp/fuzz_selftest_leak.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static void *keep;
	if (n >= 1 && d[0] == 'L') {
		keep = malloc(n);
		memcpy(keep, d, n);
		keep = NULL; /* lost */
	}
	return 0;
}
C
cat >"$tmp/fuzz_selftest_ub.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n >= 4 && d[0] == 'U') {
		int x = 0x7fffff00 + d[1] + d[2] + d[3];
		return x + 0x100 > 0 ? 0 : 0; /* signed overflow */
	}
	return 0;
}
C
out=$(scripts/fuzz 60 "$tmp/fuzz_selftest_crash.c" "$tmp/fuzz_selftest_leak.c" \
	"$tmp/fuzz_selftest_ub.c" 2>&1) && { echo "$out"; echo "crashing targets passed"; exit 1; }
echo "$out"
for t in crash leak ub; do
	echo "$out" | grep -q "^fuzz_selftest_$t: FAILED" || { echo "$t not detected"; exit 1; }
	ls "$FUZZ_BUILD/artifacts/fuzz_selftest_$t/" | grep -q . || { echo "no $t artifact"; exit 1; }
done
echo "$out" | grep -q "LeakSanitizer" || { echo "leak not reported as a leak"; exit 1; }
echo "$out" | grep -q "runtime error" || { echo "UB not reported"; exit 1; }

# Extra sources from the first line are compiled and linked.
cat >"$tmp/extra_helper.c" <<'C'
int fuzz_selftest_helper(int x);
int fuzz_selftest_helper(int x)
{
	return x * 2;
}
C
cat >"$tmp/fuzz_selftest_extra.c" <<C
/* fuzz-sources: $tmp/extra_helper.c */
#include <stdint.h>
#include <stdlib.h>
int fuzz_selftest_helper(int x);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n && fuzz_selftest_helper(d[0]) != d[0] * 2)
		abort();
	return 0;
}
C
out=$(scripts/fuzz 1 "$tmp/fuzz_selftest_extra.c" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
rm -rf "$FUZZ_BUILD/artifacts"/fuzz_selftest_* "$FUZZ_BUILD/corpus"/fuzz_selftest_* \
	"$FUZZ_BUILD/bin"/fuzz_selftest_*

# The real targets, ~5 s each; each must report a positive exec count.
out=$(scripts/fuzz "${FUZZ_SHORT_SECONDS:-5}" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
for t in fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	echo "$out" | grep -Eq "^$name: OK, [1-9][0-9]* execs" || { echo "$name: no execs"; exit 1; }
done
