#!/bin/sh
# sanitize: skip  (runs scripts/run-tests on a source-only test; no program of ours)
# scripts/run-tests --scripts (make check-tsan's run): a unit test's name
# fails saying that only script tests run, instead of "not built"; a
# script test's name runs it; the exit status follows.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$(BUILD=$T scripts/run-tests --scripts test_sandbox 2>&1) && fail "a unit test's name passed: $out"
echo "$out"
echo "$out" | grep -q "'test_sandbox': names unit tests only" || fail "no plain message: $out"
echo "$out" | grep -q "not built" && fail "still 'not built': $out"

out=$(BUILD=$T scripts/run-tests --scripts test_function_length 2>&1) || fail "script test: $out"
echo "$out"
echo "$out" | grep -q "^1 passed, 0 failed$" || fail "script test not run alone: $out"

out=$(BUILD=$T scripts/run-tests --scripts test_function_length test_sandbox 2>&1) &&
	fail "a unit test's name among script tests passed: $out"
echo "$out" | grep -q "^PASS test_function_length" || fail "the script test did not run: $out"
echo "PASS"
