#!/bin/sh
# sanitize: skip  (reads sources; runs no program of ours)
# No function in daemon/, wg/, proxy/ or zinc/ (*.c but the test build's
# daemon/testhook.c) is longer than FUNC_MAX_LINES (80) lines: the house
# rule. The code is clang-formatted kernel style, so a function's body opens
# with "{" in column 0 and closes with "}" in column 0; the lines between the
# two are its length. Prints each offender as file:line (its signature),
# name and length, and fails; otherwise prints the longest five.
# Usage: test_function_length.sh [FILE...]
set -eu
MAX=${FUNC_MAX_LINES:-80}
[ $# -gt 0 ] || set -- $(ls daemon/*.c wg/*.c proxy/*.c zinc/*.c zinc/x86/*.c | grep -v '^daemon/testhook\.c$')
lengths=$(awk '
FNR == 1 { open = 0 }
/^[A-Za-z_]/ && !open { head = FNR; sig = $0 }
/^\{/ && !open { open = FNR; next }
/^\}/ && open {
	name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
	printf "%d %s:%d %s\n", FNR - open - 1, FILENAME, head, name
	open = 0
}' "$@" | sort -rn)
[ -n "$lengths" ] || { echo "no function found in: $*"; exit 1; }
over=$(echo "$lengths" | awk -v max="$MAX" '$1 > max')
if [ -n "$over" ]; then
	echo "functions over $MAX lines (length, file:line, name):"
	echo "$over"
	exit 1
fi
echo "no function over $MAX lines; the longest:"
echo "$lengths" | head -n 5
