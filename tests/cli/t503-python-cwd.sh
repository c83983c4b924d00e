#!/usr/bin/env bash
# Interpreter detection runs nothing of the working directory (issue 31
# row 9): abbench asks the interpreter about itself with `python -c`,
# which puts the working directory first on sys.path; a json.py, types.py
# or sysconfig.py there ran (json.py is imported by the probe) and could
# fail the run or do anything. Now the probe drops that entry before any
# import: run from a folder of such files, none of them runs (each would
# leave a mark), the run is ok, and the embedded interpreter's sys.path
# holds neither '' nor that folder. Before: json.py and sysconfig.py ran
# and the run failed (exit 2, "module 'sysconfig' has no attribute").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3
mkdir "$T/work" "$T/arm"
for m in json types re enum functools sysconfig os site sitecustomize encodings codecs; do
	printf 'open(%s, "w").write("ran")\n' "'$T/ran_$m'" >"$T/work/$m.py"
done
cat >"$T/arm/paths.py" <<PY
import sys, os
def f(t, d):
    bad = [p for p in sys.path if p in ('', '$T/work', '.')]
    if bad:
        raise RuntimeError('sys.path holds the working directory: %r' % bad)
    t['out'][...] = t['x']
PY
py_scenario "$T/s.ini" "python:$PYDATA/rga_numpy.py:rga_exact" "python:$T/arm/paths.py:f"
(cd "$T/work" && "$AB" run "$T/s.ini" --db "$T/c.db" --no-progress) >"$T/out" 2>"$T/err"
rc=$?
check "the run from a folder of json.py, types.py, sysconfig.py ... is ok (exit $rc)" test "$rc" -eq 0
check "none of them ran" test -z "$(ls "$T" | grep '^ran_')"
check "the arm saw no working directory on sys.path" test "$(sqlite3 "$T/c.db" 'SELECT status FROM runs')" = ok
finish
