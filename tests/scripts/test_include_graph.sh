#!/bin/sh
# sanitize: skip  (reads sources and the release build's objects)
# No circle inside wg/ or proxy/ (issue 25), in either of two graphs, which
# are printed when there is none:
#  - includes: each .c/.h file to the files of its directory it includes
#    ("x.h"; "wg/wg.h" is wg/include/wg/wg.h);
#  - calls: each .c file to the files of its directory whose functions it
#    calls, read from the symbols of $BUILD/obj/DIR/*.o (a header that
#    declares another file's functions ties their callers to that file).
# A cycle fails the test and is printed. Usage: test_include_graph.sh [DIR...]
set -eu
BUILD=${BUILD:-build}
DIRS=${*:-wg proxy}
command -v python3 >/dev/null || { echo "python3 missing (scripts/install-deps)"; exit 77; }
command -v nm >/dev/null || { echo "nm missing (binutils)"; exit 77; }
for d in $DIRS; do
	ls "$BUILD/obj/$d/"*.o >/dev/null 2>&1 || { echo "no objects in $BUILD/obj/$d (make first)"; exit 77; }
done

exec python3 - "$BUILD" $DIRS <<'EOF'
import glob, os, re, subprocess, sys

build, dirs = sys.argv[1], sys.argv[2:]


def includes(d):
    g = {}
    files = sorted(glob.glob(f"{d}/*.[ch]") + glob.glob(f"{d}/include/*/*.h"))
    for f in files:
        g[f] = []
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(f).read(), re.M):
            for cand in (os.path.join(os.path.dirname(f), inc), os.path.join(d, "include", inc)):
                if os.path.normpath(cand) in files:
                    g[f].append(os.path.normpath(cand))
                    break
    return g


def calls(d):
    defined, used = {}, {}
    for o in sorted(glob.glob(f"{build}/obj/{d}/*.o")):
        f = f"{d}/{os.path.basename(o)[:-2]}.c"
        if not os.path.exists(f):
            continue  # a stale object of a file that is gone
        used[f] = set()
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defined[p[2]] = f
            elif len(p) == 2 and p[0] == "U":
                used[f].add(p[1])
    return {f: sorted({defined[s] for s in u if s in defined and defined[s] != f})
            for f, u in used.items()}


def cycle(g):
    """One cycle of g as a list of nodes, or None."""
    state, stack = {}, []

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in g.get(v, []):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state:
                c = visit(w)
                if c:
                    return c
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(g):
        if v not in state:
            c = visit(v)
            if c:
                return c
    return None


bad = 0
for d in dirs:
    for kind, g in (("include", includes(d)), ("call", calls(d))):
        c = cycle(g)
        if c:
            print(f"FAIL: {kind} cycle in {d}/: " + " -> ".join(c))
            bad = 1
            continue
        print(f"{d}/ {kind} graph (no cycle):")
        for v in sorted(g):
            print(f"  {v} -> " + " ".join(g[v]))
sys.exit(bad)
EOF
