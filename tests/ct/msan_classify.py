#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sorts the MemorySanitizer reports of one zinc_ct_msan run (run with
MSAN_OPTIONS=halt_on_error=0:symbolize=0) by the source line of their first
frame, symbolizing each distinct PC once.

Inline asm is not instrumented: MSan checks its register operands strictly and
treats its outputs as clean. A poisoned register operand of an asm statement
is therefore reported although nothing branches on it; such a report is
accepted (and listed) only when its source line is an asm statement, or
invokes a macro of that file (or of a header it includes) that expands to
one. Every other report is a finding: exit status 1.

Usage: msan_classify.py SYMBOLIZER BINARY LOG LABEL"""
import os
import re
import subprocess
import sys
from collections import Counter

FIRST_FRAME = re.compile(r"#0 0x[0-9a-f]+\s+\((\S+)\+(0x[0-9a-f]+)\)")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
IDENT = re.compile(r"[A-Za-z_]\w*")


def macro_bodies(path, seen):
    """Macro name -> body text for path and the headers it includes."""
    if path in seen or not os.path.isfile(path):
        return {}
    seen.add(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    bodies = {}
    i = 0
    while i < len(lines):
        m = DEFINE.match(lines[i])
        inc = INCLUDE.match(lines[i])
        if inc:
            sub = os.path.normpath(os.path.join(os.path.dirname(path), inc.group(1)))
            bodies.update(macro_bodies(sub, seen))
        if m:
            body = lines[i]
            while body.endswith("\\") and i + 1 < len(lines):
                i += 1
                body = body[:-1] + " " + lines[i]
            bodies[m.group(1)] = body[m.end():]
        i += 1
    return bodies


def asm_macros(bodies):
    """Names of macros whose expansion contains an asm statement."""
    marked = {n for n, b in bodies.items() if "__asm__" in b}
    grew = True
    while grew:
        grew = False
        for name, body in bodies.items():
            if name not in marked and marked & set(IDENT.findall(body)):
                marked.add(name)
                grew = True
    return marked


def is_asm_site(path, line):
    if not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    if not 0 < line <= len(lines):
        return False
    text = lines[line - 1]
    if "__asm__" in text:
        return True
    return bool(asm_macros(macro_bodies(path, set())) & set(IDENT.findall(text)))


def main():
    symbolizer, binary, log, label = sys.argv[1:5]
    pcs = Counter()
    with open(log, encoding="utf-8", errors="replace") as f:
        want = False
        for text in f:
            if "WARNING: MemorySanitizer" in text:
                want = True
                continue
            if want:
                m = FIRST_FRAME.search(text)
                if m:
                    pcs[int(m.group(2), 16)] += 1
                want = False
    if not pcs:
        return 0
    order = sorted(pcs)
    # One symbolizer process for all PCs; the return address minus one
    # lies in the call to the report.
    query = "".join("0x%x\n" % (pc - 1) for pc in order)
    res = subprocess.run([symbolizer, "--obj=" + binary, "--inlining"], input=query,
                         capture_output=True, text=True, check=True)
    blocks = res.stdout.strip("\n").split("\n\n")
    accepted = Counter()
    findings = 0
    root = os.getcwd() + "/"
    for pc, block in zip(order, blocks):
        frames = block.split("\n")
        loc = frames[1] if len(frames) > 1 else "??:0"
        path, _, rest = loc.partition(":")
        line = int(rest.split(":")[0]) if rest.split(":")[0].isdigit() else 0
        if is_asm_site(path, line):
            accepted["%s:%d" % (path.replace(root, ""), line)] += pcs[pc]
            continue
        findings += 1
        print("%s: FINDING: poisoned (secret) value used as a branch condition, "
              "address or divisor, %d reports at:" % (label, pcs[pc]))
        for fr in frames:
            print("    " + fr.replace(root, ""))
    for site, n in sorted(accepted.items()):
        print("%s: inline-asm operand (not instrumented): %s x%d" % (label, site, n))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
