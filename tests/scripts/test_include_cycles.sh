#!/bin/sh
# No include or call circle inside proxy/ (issue 25): FILE.c and FILE.h are
# one module; a module depends on another when it includes its header or
# calls a function the other defines; a circle of such dependencies (as
# services.c -> socks.c -> conn.c -> services.c was, all through the hub
# header proxy.h) fails, naming the circle. CYCLE_DIRS="proxy wg" checks
# more directories.
cd "${CYCLE_ROOT:-$(dirname "$0")/../..}" || exit 1
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
python3 - ${CYCLE_DIRS:-proxy} <<'PY' || { echo FAIL; exit 1; }
import os, re, sys

DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\(")


def defined(text):
    """Names of the non-static functions a .c file defines (kernel style:
    the name at the start of a line, the body's brace alone on a later one)."""
    names, lines = set(), text.split("\n")
    for i, line in enumerate(lines):
        m = DEF.match(line)
        if not m:
            continue
        for nxt in lines[i:i + 8]:
            if nxt.startswith("{"):
                names.add(m.group(1))
                break
            if nxt.rstrip().endswith(";"):
                break
    return names


bad = 0
for d in sys.argv[1:]:
    files = sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")))
    text = {f: open(os.path.join(d, f)).read() for f in files}
    mod = lambda f: f.rsplit(".", 1)[0]
    owner = {}
    for f in files:
        if f.endswith(".c"):
            for name in defined(text[f]):
                owner[name] = mod(f)
    deps = {}
    for f in files:
        m = mod(f)
        for inc in re.findall(r'^#include "([^"/]+)\.h"', text[f], re.M):
            if inc + ".h" in text and inc != m:
                deps.setdefault(m, {})[inc] = "includes %s.h" % inc
        if f.endswith(".c"):
            for call in set(re.findall(r"\b(\w+)\(", text[f])):
                o = owner.get(call)
                if o and o != m:
                    deps.setdefault(m, {}).setdefault(o, "calls %s()" % call)
    state, path = {}, []

    def visit(m):
        global bad
        state[m] = 1
        path.append(m)
        for n in sorted(deps.get(m, {})):
            if state.get(n) == 1:
                ring = path[path.index(n):] + [n]
                print("%s/: circle: %s" % (d, ", ".join(
                    "%s %s" % (a, deps[a][b]) for a, b in zip(ring, ring[1:]))))
                bad = 1
            elif not state.get(n):
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(deps):
        if not state.get(m):
            visit(m)
    if not bad:
        print("%s/: %d modules, no include or call circle" % (d, len(deps)))
sys.exit(bad)
PY
echo PASS
