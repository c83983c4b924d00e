#!/usr/bin/env bash
# Python arms that can be seen to be wrong before the run are bad input:
# exit 2, one line naming the scenario's FILE:LINE (the b line of a
# shortcut, the [arm] key at fault) and, where the fault is in the user's
# file, that FILE:LINE too; no database made, an existing one unchanged.
# Plan time covers the interpreter (found, a Python, numpy importable), the
# module (there, imports: a syntax error, an exception at import, a missing
# import) and the function (there, a function, callable as fn(t, d)), and
# the section's keys. (torch missing on a cuda run is scripts/gpu/python.sh's.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
db="$T/keep.db"
expect_exit 0 "a first good run" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick --no-progress
sum_before=$(md5sum "$db" | cut -d' ' -f1)
mark() { grep -n "MARK: $2\$" "$PYDATA/$1" | cut -d: -f1; } # the line of a marked statement

n=0
# refused DESCRIPTION LINE MESSAGE-REGEX [ENV=VALUE...]: the scenario in $T/s.ini.
refused() {
	local desc=$1 line=$2 msg=$3
	shift 3
	n=$((n + 1))
	expect_exit 2 "$desc is refused" env "$@" "$AB" run "$T/s.ini" --db "$db" --no-progress
	check "$desc: the message names $T/s.ini:$line" grep -Eq "^abbench: error: $T/s.ini:$line: $msg" "$T/err"
	check "$desc: one line" test "$(wc -l <"$T/err")" -eq 1
	expect_exit 2 "$desc is refused before a database is made" env "$@" "$AB" run "$T/s.ini" --db "$T/new$n.db" --no-progress
	check "$desc: no database file" test ! -e "$T/new$n.db"
}
arm() { py_scenario "$T/s.ini" eager "python:$PYDATA/$1" "${2:-}"; }

# The interpreter.
arm rga_numpy.py:rga_exact
mkdir -p "$T/empty"
refused "no python on PATH and no ABBENCH_PYTHON" 9 "arm 'rga_exact': no python interpreter: 'python3' is not on PATH \(install python3, or pick one with ABBENCH_PYTHON" \
	-u ABBENCH_PYTHON PATH="$T/empty"
refused "ABBENCH_PYTHON naming nothing" 9 "arm 'rga_exact': python '$T/empty/python3' \(from ABBENCH_PYTHON\): No such file or directory" \
	ABBENCH_PYTHON="$T/empty/python3"
refused "ABBENCH_PYTHON naming another program" 9 "arm 'rga_exact': '/bin/true' \(from ABBENCH_PYTHON\) is not a python interpreter" \
	ABBENCH_PYTHON=/bin/true
mkdir -p "$T/hide/numpy"
echo "raise ImportError('numpy hidden by t263')" >"$T/hide/numpy/__init__.py"
refused "an interpreter without numpy" 9 "arm 'rga_exact': python '$PY' cannot import numpy \(ImportError: numpy hidden by t263\): install it for that interpreter" \
	PYTHONPATH="$T/hide"

# The module.
arm nothere.py:f
refused "a module that is not there" 9 "arm 'f': cannot open '$PYDATA/nothere.py': No such file or directory"
arm syntax_error.py:f
refused "a module with a syntax error" 9 "arm 'f': $PYDATA/syntax_error.py:$(mark syntax_error.py syntax): SyntaxError: '\(' was never closed$"
arm import_raises.py:f
refused "a module whose import raises" 9 "arm 'f': $PYDATA/import_raises.py:$(mark import_raises.py import-neighbour): ValueError: the neighbour refuses \(raised at $PYDATA/pyrt_neighbour.py:$(mark pyrt_neighbour.py neighbour-raise) in <module>\)$"
arm import_missing.py:f
refused "a module importing one that is missing" 9 "arm 'f': $PYDATA/import_missing.py:$(mark import_missing.py import-missing): ModuleNotFoundError: No module named 'abbench_no_such_module'$"

# The function.
arm rga_numpy.py:nope
refused "a function the module lacks" 9 "arm 'nope': '$PYDATA/rga_numpy.py' has no function 'nope' \(its functions: counted, rga_exact, rga_inexact, slow_first, to_bf16, to_f32\)$"
arm arms.py:NOT_A_FUNCTION
refused "a name that is not a function" 9 "arm 'NOT_A_FUNCTION': '$PYDATA/arms.py': 'NOT_A_FUNCTION' is a int, not a function$"
arm arms.py:one_arg
refused "a function that cannot be called as fn(t, d)" 9 "arm 'one_arg': $PYDATA/arms.py:[0-9]*: function 'one_arg'\(t\) cannot be called as one_arg\(t, d\)$"
arm rga_numpy.py:2fast
refused "a shortcut whose function is not a Python name" 9 "b: '2fast' is not a Python function name"

# The section's keys.
py_scenario "$T/s.ini" eager mine "[arm mine]
type = python
function = rga_exact"
refused "a section without a module" 17 "\[arm mine\]: missing key 'module' \(the Python file that defines the function\)"
py_scenario "$T/s.ini" eager mine "[arm mine]
type = python
module = $PYDATA/rga_numpy.py"
refused "a section without a function" 17 "\[arm mine\]: missing key 'function' \(the name of fn\(t, d\) in the module\)"
py_scenario "$T/s.ini" eager mine "[arm mine]
type = python
module = $PYDATA/rga_numpy.py
function = rga_exact
library = x.so"
refused "a plugin key in a python section" 21 "library: not a key of python arms"
py_scenario "$T/s.ini" eager mine "[arm mine]
type = python
modul = $PYDATA/rga_numpy.py
function = rga_exact"
refused "a misspelt key" 19 "modul: unknown key in \[arm mine\] \(did you mean 'module'\?\)"
py_scenario "$T/s.ini" eager mine "[arm mine]
type = python
module = $PYDATA/rga_numpy.py
function = rga exact"
refused "a section's function with a blank" 20 "function: 'rga exact' is not a Python function name"

check "there were bad python arms to try" test "$n" -eq 17
check "the database file is unchanged" test "$(md5sum "$db" | cut -d' ' -f1)" = "$sum_before"
finish
