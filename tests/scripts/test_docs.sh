#!/bin/sh
# sanitize: skip  (reads sources and manual pages; runs no program of ours)
# The manual pages keep up with the code:
#  - doc/*.8 and doc/*.3 render with groff -ww without a single warning;
#  - every environment variable the daemon or Zinc reads (a string literal
#    ZINCTUN_*, ZINC_*, WG_*, LOG_* in daemon/ or zinc/) and every flag that
#    daemon/cli.c parses is in doc/zinctun.8, and every such variable the
#    page names is one the sources know (no stale or misspelt entry);
#  - the daemon reads its environment in one place: getenv only in
#    host.c's callback for the parser (daemon/cli.c) and in the test
#    build's daemon/testhook.c;
#  - every function declared in zinc/include/zinc/*.h (but the test builds'
#    ZINC_TEST_HOOKS seams) appears in the SYNOPSIS of doc/zinc.3 with its
#    full C signature, as the header has it.
set -eu
command -v groff >/dev/null || { echo "groff missing (scripts/install-deps)"; exit 77; }
T=$(mktemp -d /tmp/zt-docs.XXXXXX)
trap 'rm -rf "$T"' EXIT
bad=0

for m in doc/*.8 doc/*.3 doc/*.1; do
	groff -man -Tutf8 -ww "$m" >/dev/null 2>"$T/warn"
	if [ -s "$T/warn" ]; then
		echo "$m: groff warnings:"; cat "$T/warn"; bad=1
	fi
done

# the page without font changes (\fB...\fR), as a reader sees the names
sed 's/\\f[BIRP]//g' doc/zinctun.8 >"$T/zinctun.8"
# zinctun-proxy's own flags may be on its page instead
sed 's/\\f[BIRP]//g' doc/zinctun.8 doc/zinctun-proxy.1 >"$T/pages"
vars=$(grep -ohE '"(ZINCTUN|ZINC|WG|LOG)_[A-Z0-9_]+"' daemon/*.c daemon/*.h zinc/*.c | tr -d '"' |
	sort -u)
[ -n "$vars" ] || { echo "no environment variables found in the sources"; exit 1; }
for v in $vars; do
	grep -qE "(^|[^A-Z0-9_])${v}([^A-Z0-9_]|\$)" "$T/zinctun.8" ||
		{ echo "doc/zinctun.8 does not document $v"; bad=1; }
done

# ... and back: what the page names exists (wg-quick's own variable and
# the test build's compile-time switches, which the Makefile sets, aside)
for v in $(grep -ohE '(^|[^A-Za-z0-9_])(ZINCTUN|ZINC|WG|LOG)_[A-Z0-9_]*[A-Z0-9]' "$T/zinctun.8" |
	sed 's/^[^A-Z]//' | sort -u); do
	[ "$v" = WG_QUICK_USERSPACE_IMPLEMENTATION ] && continue
	grep -qw -- "-D$v" Makefile && continue
	echo "$vars" | grep -qx "$v" ||
		{ echo "doc/zinctun.8 names $v, which no source in daemon/ or zinc/ knows"; bad=1; }
done

# one reader of the environment
for f in $(grep -l 'getenv(' daemon/*.c daemon/*.h); do
	case $f in daemon/host.c | daemon/testhook.c) continue ;; esac
	echo "$f calls getenv: variables are read by the parser, daemon/cli.c"; bad=1
done
[ "$(grep -c 'getenv(' daemon/host.c)" -le 1 ] ||
	{ echo "daemon/host.c calls getenv beside the parser's callback"; bad=1; }

# flags as cli.c compares them ("--user=" is the same option as "--user")
flags=$(grep -ohE '"-{1,2}[a-z][a-z-]*"' daemon/cli.c | tr -d '"' | sort -u)
[ -n "$flags" ] || { echo "no flags found in daemon/cli.c"; exit 1; }
for f in $flags; do
	esc=$(printf '%s' "$f" | sed 's/-/\\\\-/g')
	grep -qE "(^|[^a-z\\\\-])${esc}([^a-z-]|\$)" "$T/pages" ||
		{ echo "doc/zinctun.8 (or zinctun-proxy.1) does not document $f"; bad=1; }
done

groff -man -Tascii -P-cbou doc/zinc.3 >"$T/zinc.txt"
python3 - "$T/zinc.txt" zinc/include/zinc/*.h <<'PY' || bad=1
import re, sys

def norm(s):
    s = re.sub(r'\s+', ' ', s).strip()
    return re.sub(r'\( ', '(', re.sub(r' \)', ')', s))

man = open(sys.argv[1]).read()
syn = man[man.index("SYNOPSIS") + len("SYNOPSIS"):man.index("DESCRIPTION")]
syn = re.sub(r'^\s*#include.*$', ' ', syn, flags=re.M)
documented = {norm(s) for s in syn.split(";")}
missing = []
for h in sys.argv[2:]:
    src = open(h).read()
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    # test builds only: not part of the installed library
    src = re.sub(r'^#ifdef ZINC_TEST_HOOKS$.*?^#endif$', ' ', src, flags=re.S | re.M)
    src = re.sub(r'^\s*#.*$', ' ', src, flags=re.M)
    # enum and struct bodies are not declarations of functions
    while re.search(r'\{[^{}]*\}', src):
        src = re.sub(r'\{[^{}]*\}', ' ', src)
    for decl in src.split(";"):
        d = norm(decl)
        if "(" in d and re.search(r'\bzinc_\w+\(', d) and d not in documented:
            missing.append(f"{h}: {d}")
for m in missing:
    print("doc/zinc.3 SYNOPSIS lacks:", m)
sys.exit(1 if missing else 0)
PY

[ $bad = 0 ] || exit 1
echo "manual pages render cleanly and cover $(echo $vars | wc -w) variables," \
	"$(echo $flags | wc -w) flags and every Zinc function"
