#!/usr/bin/env bash
# The store is a family of files behind one interface (issue 18, part 4):
# every file of harness/store/ says what it is for in its first comment,
# naming itself; the private store_int.h is included by the family alone;
# runset.c, the rules of a run set, includes nothing of the store; and no
# include circle runs through harness/store/ (runset.c and store.c formed
# one before the split).
. "$(dirname "$0")/lib.sh"
for f in harness/store/*.[ch]; do
	check "$f opens with a comment naming it" grep -q "^ \* $(basename "$f") - " <(head -3 "$f")
done
outside=$(grep -rl 'store/store_int.h' harness tests --include='*.[ch]' | grep -v '^harness/store/')
check "store_int.h is included only inside harness/store/" test -z "$outside"
theirs=$(grep -h '#include .store/' harness/store/runset.[ch] | grep -v 'store/runset.h')
check "runset.c and runset.h include nothing of the store" test -z "$theirs"
# modules (a .c and its .h) joined by their includes; any cycle through store/ is named
python3 - <<'PY' >"$T/cycles"
import os, re
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
edges = {}
for d, _, files in os.walk("harness"):
    for f in files:
        if f.endswith((".c", ".h")):
            path = os.path.join(d, f)
            mod = os.path.relpath(path, "harness")[:-2]
            for line in open(path, errors="replace"):
                m = inc.match(line)
                if m and m.group(1).endswith(".h") and m.group(1)[:-2] != mod:
                    edges.setdefault(mod, set()).add(m.group(1)[:-2])
def cycle_from(start):
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in edges.get(node, ()):
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
for mod in sorted(edges):
    if mod.startswith("store/"):
        c = cycle_from(mod)
        if c:
            print(" -> ".join(c))
PY
check "no include circle through harness/store/ ($(head -1 "$T/cycles"))" test ! -s "$T/cycles"
finish
