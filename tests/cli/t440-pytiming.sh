#!/usr/bin/env bash
# Python arms timed as GPU work (issue 28), the parts a CPU can show, on
# the CPU backend with the fake timer:
#   default     a scenario without launch_gaps is stored as `hide` (the
#               kernel question by default); one that says include keeps it
#   host time   the host-time columns are there (migration 13) and NULL on
#               the CPU, whose call is the work (docs/CUDA_BACKEND.md)
#   fail fast   every arm of every case is called once before the run: a B
#               arm that raises stops the run before A1 is measured (A's
#               function called twice, its call before the run), exit 3,
#               one line, no run row, a new database not made, an existing
#               one byte for byte as it was
#   hint        python3 on PATH without numpy (a venv of Debian's python,
#               without its system packages) while /usr/bin/python3 has it:
#               the error names ABBENCH_PYTHON=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1
SAMPLES=3
db="$T/p.db"

# The default and an explicit include, as stored.
py_scenario "$T/default.ini" eager "python:$PYDATA/rga_numpy.py:rga_exact"
expect_exit 0 "a run under the default launch_gaps" "$AB" run "$T/default.ini" --db "$db" --label dflt --no-progress
py_scenario "$T/include.ini" eager "python:$PYDATA/rga_numpy.py:rga_exact"
sed -i 's/^\[arms\]$/launch_gaps = include\n[arms]/' "$T/include.ini"
expect_exit 0 "a run that says launch_gaps = include" "$AB" run "$T/include.ini" --db "$db" --label incl --no-progress
gaps() { "$AB" show "$1" --db "$db" --format json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["run"]["launch_gaps"])'; }
check "the default is stored as hide" test "$(gaps dflt)" = hide
check "an explicit include is stored as include" test "$(gaps incl)" = include

# The host-time columns: there, and NULL on the CPU backend.
q() { sqlite3 "$db" "$1"; }
cols=$(q "SELECT group_concat(name) FROM (SELECT name FROM pragma_table_info('samples') UNION ALL SELECT name FROM pragma_table_info('slots')) WHERE name LIKE 'host%'")
check "samples.host_ns, slots.host_median_ns and host_p90_ns exist" test "$cols" = "host_ns,host_median_ns,host_p90_ns"
with_host=$(q "SELECT count(*) FROM samples WHERE host_ns IS NOT NULL")
samples=$(q "SELECT count(*) FROM samples")
check "every sample of the CPU runs ($samples) has no host time (NULL)" test "$with_host" = 0 -a "$samples" -gt 0
slots_with=$(q "SELECT count(*) FROM slots WHERE host_median_ns IS NOT NULL OR host_p90_ns IS NOT NULL")
check "every slot of them neither" test "$slots_with" = 0

# Fail fast: b raises; a counts its calls.
py_scenario "$T/raises.ini" "python:$PYDATA/rga_numpy.py:counted" "python:$PYDATA/faults.py:divides"
sum_before=$(md5sum "$db" | cut -d' ' -f1)
runs_before=$(q "SELECT count(*) FROM runs")
expect_exit 3 "a B arm that raises is refused before the run" timeout 60 "$AB" run "$T/raises.ini" --db "$db" --no-progress
line=$(grep -n 'MARK: helper-raise$' "$PYDATA/faults.py" | cut -d: -f1)
check "one line: the arm's error, before the run, nothing stored" grep -Eq \
	"^abbench: error: checking every arm before the run \(nothing measured or stored\): case 'gate': arm 'divides': $PYDATA/faults.py:$line: in helper: ZeroDivisionError: division by zero$" "$T/err"
check "only that line besides A's own prints" test "$(grep -vc '^counted: a call$' "$T/err")" -eq 1
check "A was called twice (its call before the run), A1 never measured" test "$(grep -c '^counted: a call$' "$T/err")" -eq 2
runs_after=$(q "SELECT count(*) FROM runs")
check "no run row was written" test "$runs_after" = "$runs_before"
check "the database is byte for byte as it was" test "$(md5sum "$db" | cut -d' ' -f1)" = "$sum_before"
expect_exit 3 "the same into a new database" timeout 60 "$AB" run "$T/raises.ini" --db "$T/new.db" --no-progress
check "the new database was not made" test ! -e "$T/new.db"

# An arm that writes into its input is caught by the same call (numpy's
# read-only inputs), and a tensor reshaped in place by the slot's check.
py_scenario "$T/into.ini" eager "python:$PYDATA/faults.py:reshapes"
expect_exit 3 "a B arm that reshapes its output in place is refused before the run" "$AB" run "$T/into.ini" --db "$T/new.db" --no-progress
check "it says so, before the run" grep -q "^abbench: error: checking every arm before the run (nothing measured or stored): case 'gate': arm 'reshapes': .*changed t\['out'\] in place" "$T/err"
check "no database made" test ! -e "$T/new.db"

# The interpreter hint: python3 on PATH lacks numpy, /usr/bin/python3 has it.
if "$PY" -m venv --without-pip "$T/venv" 2>/dev/null && ! "$T/venv/bin/python3" -c 'import numpy' 2>/dev/null; then
	expect_exit 2 "python3 without numpy first on PATH" env -u ABBENCH_PYTHON PATH="$T/venv/bin:$PATH" \
		"$AB" run "$T/default.ini" --db "$T/new.db" --no-progress
	check "the error names the interpreter that has it" grep -q \
		"arm 'rga_exact': python '$T/venv/bin/python3' cannot import numpy (ModuleNotFoundError: No module named 'numpy'): python '$PY' has it: run with ABBENCH_PYTHON=$PY (or install it" "$T/err"
	check "one line, no database made" test "$(wc -l <"$T/err")" -eq 1 -a ! -e "$T/new.db"
	hide="$T/hide"
	mkdir -p "$hide/numpy" && echo "raise ImportError('numpy hidden by t440')" >"$hide/numpy/__init__.py"
	expect_exit 2 "no interpreter has numpy (hidden from all)" env -u ABBENCH_PYTHON PATH="$T/venv/bin:$PATH" \
		PYTHONPATH="$hide" "$AB" run "$T/default.ini" --db "$T/new.db" --no-progress
	check "then no interpreter is named, the advice is to install it" grep -q \
		"cannot import numpy (ImportError: numpy hidden by t440): install it for that interpreter (Debian" "$T/err"
else
	echo "SKIP: no venv of $PY without numpy could be made (python3-venv)"
fi
finish
