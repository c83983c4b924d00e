#!/usr/bin/env bash
# `run --resume` measures with the arms the run measured, or not at all
# (issue 31 row 1): every arm from outside is compared with what the run
# stored of it (table run_arms: its file, that file's sha256 and the rest,
# a plugin's table, a Python function and its interpreter). A run whose
# Python arm a (a copy of rga_numpy.py) fails in its second case (in the
# run, past the check of every arm before it) keeps the first; then
#   the plugin library (arm b, a copy of librga_plugin.so) gets a byte
#   appended: resume exits 2 naming arm b and the library, nothing changed;
#   the library put back, the Python module edited: exit 2 naming arm a
#   and the module;
#   the module put back too: the resume completes the run, 'ok', and
#   run_arms still holds the sha256 the run measured with.
# Before: each resume ended 'ok' with cases measured by two codes, and
# run_arms kept the old sha256.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3
db="$T/r.db"
cp "$(dirname "$AB")/examples/plugin/librga_plugin.so" "$T/libarm.so"
# (it fails from its third call in gate_b2: the check of every arm before the run calls it twice there)
{ cat "$PYDATA/rga_numpy.py"; printf '\n\nB2_CALLS = []\n\n\ndef fails_in_b2(t, d):\n    import os\n    if os.environ.get("FAIL_B2") and d["case"] == "gate_b2":\n        B2_CALLS.append(1)\n        if len(B2_CALLS) > 2:\n            raise RuntimeError("planted")\n    rga_exact(t, d)\n'; } >"$T/arm.py"
cp "$T/arm.py" "$T/arm.py.orig"
cp "$T/libarm.so" "$T/libarm.so.orig"
py_scenario "$T/s.ini" "python:$T/arm.py:fails_in_b2" "plugin:$T/libarm.so:rga_exact"
q() { sqlite3 "$db" "$1"; }
expect_exit 3 "a run whose arm a fails in the second case" env FAIL_B2=1 "$AB" run "$T/s.ini" --db "$db" --no-progress
check "it keeps the first case" test "$(q 'SELECT status || count(*) FROM runs JOIN cases')" = "failed1"
sha_b=$(q "SELECT sha256 FROM run_arms WHERE arm = 'b'")
sha_a=$(q "SELECT sha256 FROM run_arms WHERE arm = 'a'")

printf '\0' >>"$T/libarm.so"
expect_exit 2 "resume with the plugin library rebuilt (a byte appended)" "$AB" run --resume 1 --db "$db" --no-progress
check "it names arm b and the library" grep -q "run 1 measured arm b 'rga_exact' from '$T/libarm.so' with sha256 ${sha_b:0:16}\.\.\.; the file now has sha256 [0-9a-f]*\.\.\.: resume needs the arms the run measured" "$T/err"
cp "$T/libarm.so.orig" "$T/libarm.so"
echo "# edited" >>"$T/arm.py"
expect_exit 2 "resume with the Python module edited" "$AB" run --resume 1 --db "$db" --no-progress
check "it names arm a and the module" grep -q "run 1 measured arm a 'fails_in_b2' from '$T/arm.py' with sha256 ${sha_a:0:16}" "$T/err"
check "the refusals changed nothing" test "$(q 'SELECT status || count(*) || resumed FROM runs JOIN cases')" = "failed10"

cp "$T/arm.py.orig" "$T/arm.py"
expect_exit 0 "resume with both put back" "$AB" run --resume 1 --db "$db" --no-progress
check "the run is ok with both cases" test "$(q 'SELECT status || count(*) FROM runs JOIN cases')" = "ok2"
check "run_arms holds the sha256s it measured with" test "$(q 'SELECT group_concat(sha256) FROM run_arms ORDER BY arm')" = "$sha_a,$sha_b"
finish
