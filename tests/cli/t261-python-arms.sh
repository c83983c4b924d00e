#!/usr/bin/env bash
# Python arms on the CPU backend (harness/arms/python_arm.c,
# docs/PYTHON_ARMS.md): numpy functions of tests/data/python/rga_numpy.py
# as arms of the built-in site residual_gate_add. rga_exact is PyTorch's
# eager chain bit for bit: byte-equal to the eager arm (special values
# too), the same md5s as the built-in fused arm, and the gate passes it.
# rga_inexact keeps the product in float32: not byte-equal, and the gate
# fails it for lost bit-exactness (exit 1). Both forms of scenario (the
# python:FILE.py:NAME shortcut, an [arm NAME] section whose module is
# relative to the scenario); the provenance (module, sha256, interpreter,
# numpy); attribution (the call is one timed step); a module named by both
# arms is imported once. Fake timer: deterministic verdicts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1
SAMPLES=20 # the gate asks for 10 at least
export RGA_NUMPY_SAY_IMPORT=1 # rga_numpy.py says when it is imported
db="$T/p.db"
mod="$PYDATA/rga_numpy.py"
run() { "$AB" run "$@" --db "$db" --no-progress >"$T/out" 2>"$T/err"; }

py_scenario "$T/fused.ini" eager fused
py_scenario "$T/exact.ini" eager "python:$mod:rga_exact"
py_scenario "$T/inexact.ini" eager "python:$mod:rga_inexact"
check "baseline run with the built-in fused arm" run "$T/fused.ini" --label fused
expect_exit 0 "baseline set" "$AB" baseline set nightly fused --db "$db"

expect_exit 0 "the exact python arm runs" "$AB" run "$T/exact.ini" --db "$db" --label exact --no-progress
check "the module was imported once (its import line on stderr)" test "$(grep -c '^rga_numpy: imported' "$T/err")" -eq 1
"$AB" export exact --db "$db" --csv "$T/exact.csv" 2>/dev/null
check "its two B slots are byte-equal to A1 (export: bit_exact 1)" \
	test "$(awk -F, 'NR > 1 && $6 == "B" { print $12 }' "$T/exact.csv" | paste -sd' ')" = "1 1"
expect_exit 0 "show the exact run" "$AB" show exact --db "$db"
check "show: b byte-equal to a in both cases (special values too)" test "$(grep -c '^  b byte-equal to a: yes$' "$T/out")" -eq 2
check "show: the reference check passes" test "$(grep -cE '^  B +b +rga_exact .* yes +ok$' "$T/out")" -eq 2
check "show: the provenance names the module, its sha256, the interpreter and numpy" \
	grep -q "^arm b=rga_exact: python '$mod' sha256 $(sha256sum "$mod" | cut -c1-16)\.\.\. (function 'rga_exact'; python 3\.[0-9.]* ($PY; .*libpython3.*), numpy [0-9]" "$T/out"
arm_row() { sqlite3 "$db" "SELECT kind, sha256 FROM run_arms r JOIN runs u ON u.id = r.run_id WHERE u.label = '$1'"; }
check "the run_arms row: kind python, the module's sha256" test "$(arm_row exact)" = "python|$(sha256sum "$mod" | cut -d' ' -f1)"
check "attribution: the call is one timed step named after the function" \
	test "$(sqlite3 "$db" "SELECT DISTINCT k.name FROM kernel_times k JOIN slots s ON s.id = k.slot_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = 'exact' AND s.arm = 'b'")" = "python rga_exact"
b_md5() { sqlite3 "$db" "SELECT group_concat(o.md5) FROM outputs o JOIN slots s ON s.id = o.slot_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1' AND s.label = 'B' ORDER BY c.ordinal"; }
check "the md5s of B equal those of the built-in fused arm" test "$(b_md5 exact)" = "$(b_md5 fused)" -a -n "$(b_md5 fused)"
expect_exit 0 "the exact python arm passes the gate against the fused baseline" "$AB" gate exact --baseline nightly --db "$db"

expect_exit 0 "the inexact python arm runs (not byte-equal is a finding, not a failure)" \
	"$AB" run "$T/inexact.ini" --db "$db" --label inexact --no-progress
expect_exit 0 "show the inexact run" "$AB" show inexact --db "$db"
check "show: b not byte-equal to a in both cases" test "$(grep -c '^  b byte-equal to a: NO$' "$T/out")" -eq 2
check "show: how many elements differ" grep -Eq '^       out: [1-9][0-9]* of 16384 elements differ from A1' "$T/out"
expect_exit 1 "the gate fails the inexact python arm" "$AB" gate inexact --baseline nightly --db "$db"
check "for lost bit-exactness" grep -q '| \*\*LOST BIT-EXACTNESS\*\*' "$T/out"

# An [arm NAME] section, its module relative to the scenario's folder,
# run from another directory.
mkdir -p "$T/sub/py"
cp "$mod" "$T/sub/py/"
py_scenario "$T/sub/section.ini" eager mine "[arm mine]
type = python
site = residual_gate_add
module = py/rga_numpy.py
function = rga_exact"
(cd / && "$AB" run "$T/sub/section.ini" --db "$db" --label section --no-progress >"$T/out" 2>"$T/err")
check "an [arm] section with a relative module runs from another directory" test $? -eq 0
expect_exit 0 "show it" "$AB" show section --db "$db"
check "the variant is the section's name, byte-equal" grep -Eq '^  B +b +mine .* yes ' "$T/out"
check "the provenance names the copy the scenario points at" grep -q "^arm b=mine: python '$T/sub/py/rga_numpy.py'" "$T/out"

# Both arms from one module: imported once, two provenance lines.
py_scenario "$T/both.ini" "python:$mod:rga_exact" "python:$mod:rga_inexact"
expect_exit 0 "a and b both python arms of one module" "$AB" run "$T/both.ini" --db "$db" --label both --no-progress
check "the module was imported once for both arms" test "$(grep -c '^rga_numpy: imported' "$T/err")" -eq 1
expect_exit 0 "show the python/python run" "$AB" show both --db "$db"
check "two provenance lines, a and b" test "$(grep -c "^arm [ab]=rga_[a-z]*: python '$mod' " "$T/out")" -eq 2
expect_exit 0 "report of the exact run" "$AB" report exact --db "$db" --out "$T/rep" --no-plots
check "the report's provenance names the python arm" grep -q '^- arm B `rga_exact` is a python' "$T/rep/report.md"
finish
