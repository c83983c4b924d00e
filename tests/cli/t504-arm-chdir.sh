#!/usr/bin/env bash
# An arm that changes the working directory moves nothing of the run
# (issue 31 row 10): a Python arm calling os.chdir at import and in every
# call (to a folder of this test's, as it would to '/'), with a relative --db and a relative --dump. The run is
# stored in the database the command line named, its summary printed,
# exit 0; the dump lands in the folder named; messages keep the relative
# spelling. Before: the run was stored 'ok', then abbench exited 2 "no
# database" reading it back for the summary.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3
mkdir "$T/work" "$T/elsewhere"
export ARM_CHDIR="$T/elsewhere"
cat >"$T/chdir_arm.py" <<'PY'
import os
os.chdir(os.environ['ARM_CHDIR'])
def f(t, d):
    os.chdir(os.environ['ARM_CHDIR'])
    t['out'][...] = t['x']
PY
py_scenario "$T/s.ini" eager "python:$T/chdir_arm.py:f"
cd "$T/work" || exit 1
expect_exit 0 "a run whose arm calls os.chdir, --db and --dump relative" "$AB" run "$T/s.ini" --db rel.db \
	--dump dumped --no-progress
check "it says where it stored the run, as spelled" grep -q "^run 1 stored in 'rel.db'" "$T/out"
check "the summary table follows" grep -q "^verdict:" "$T/out"
check "the database is where --db said" test "$(sqlite3 "$T/work/rel.db" 'SELECT status FROM runs')" = ok
check "nothing was made where the arm went" test -z "$(ls "$T/elsewhere")"
check "the dump is where --dump said" test -s "$T/work/dumped/manifest.json"
# the issue's reproducer: os.chdir in the call only (the run was stored,
# then the summary's read found "no database")
printf 'import os\ndef f(t, d):\n    os.chdir(os.environ["ARM_CHDIR"])\n    t["out"][...] = t["x"]\n' >"$T/chdir_call.py"
py_scenario "$T/s2.ini" eager "python:$T/chdir_call.py:f"
mkdir "$T/work2" "$T/elsewhere2"
export ARM_CHDIR="$T/elsewhere2"
cd "$T/work2" || exit 1
expect_exit 0 "an arm that calls os.chdir in its call only" "$AB" run "$T/s2.ini" --db rel.db --no-progress
check "stored in rel.db and its summary printed" grep -q "^verdict:" "$T/out"
finish
