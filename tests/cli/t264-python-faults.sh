#!/usr/bin/env bash
# A Python arm that misbehaves while the run measures fails the run: exit
# 3, one line naming the user's FILE:LINE where there is one, the run row
# marked 'failed' with that message and no results kept, and the process
# ends (each run under timeout: no hang). The functions of
# tests/data/python/faults.py, as b on the CPU backend:
#   divides, bad_reshape  an exception: the innermost frame in the user's
#                         file, then the traceback's last frame elsewhere
#   wrong_dtype           np.copyto of float32 into the bf16 (uint16) output
#   replaces, returns, deletes   t['out'] rebound, a value returned,
#                         t['ff_gated'] deleted: seen after the call
#   into_input            the inputs are read-only arrays: ValueError at the line
#   reshapes, retypes     t['out'] reshaped or retyped in place: seen at the
#                         slot's end (pyrt_verify, the backend's slot_end)
#   keeps                 a view of t['out'] kept in a global: seen when the
#                         binding is released, before the buffers are freed
#   exits                 sys.exit() in the call ends the call, not abbench
#   fails_later           the first calls pass (the warm-up among them), the fourth raises
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1
SAMPLES=3
db="$T/f.db"
mod="$PYDATA/faults.py"
mark() { grep -n "MARK: $1\$" "$mod" | cut -d: -f1; }
cases_of() { sqlite3 "$db" "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.label = '$1'"; }
# fails FUNCTION MESSAGE-REGEX: the run of b = FUNCTION exits 3 with that message.
fails() {
	py_scenario "$T/$1.ini" eager "python:$mod:$1"
	expect_exit 3 "arm '$1' fails the run" timeout 120 "$AB" run "$T/$1.ini" --db "$db" --label "$1" --no-progress
	check "$1: the error says why" grep -Eq "^abbench: error: case 'gate': arm '$1': $2" "$T/err"
	check "$1: one line, then the run marked failed" test "$(grep -vc "^abbench: run [0-9]* marked failed in '$db'" "$T/err")" -eq 1
	check "$1: the run is marked failed" grep -q "^abbench: run [0-9]* marked failed in '$db'" "$T/err"
	expect_exit 0 "$1: show the failed run" "$AB" show "$1" --db "$db"
	check "$1: status failed, the message stored" grep -Eq "^error: .*$2" "$T/out"
	check "$1: no results kept" test "$(cases_of "$1")" -eq 0
}

fails divides "$mod:$(mark helper-raise): in helper: ZeroDivisionError: division by zero$"
fails bad_reshape "$mod:$(mark bad-reshape): in bad_reshape: ValueError: cannot reshape array of size 16384 into shape \(3,3\) \(raised at .*numpy.* in [_a-z]*\)$"
fails wrong_dtype "$mod:$(mark wrong-dtype): in wrong_dtype: TypeError: Cannot cast array data from dtype\('float32'\) to dtype\('uint16'\)"
fails replaces "$mod: function 'replaces' replaced t\['out'\] with another ndarray: write into the one t holds"
fails returns "$mod: function 'returns' returned a ndarray: write the outputs into t"
fails deletes "$mod: function 'deletes' deleted t\['ff_gated'\]$"
fails into_input "$mod:$(mark into-input): in into_input: ValueError: assignment destination is read-only$"
fails reshapes "$mod: function 'reshapes' changed t\['out'\] in place: it is now uint16 \(16384,\), abbench gave uint16 \(1, 64, 256\)$"
fails retypes "$mod: function 'retypes' changed t\['out'\] in place: it is now int16 \(1, 64, 256\), abbench gave uint16 \(1, 64, 256\)$"
fails keeps "$mod: function 'keeps' kept t\['out'\] after the case \(in a global or a cache\)"
fails exits "$mod:[0-9]*: in exits: SystemExit: 3$"
fails fails_later "$mod:$(mark fails-later): in fails_later: RuntimeError: the fourth call fails$"
expect_exit 0 "list" "$AB" list --db "$db"
check "list shows twelve failed runs" test "$(grep -c ' failed ' "$T/out")" -eq 12

# The same module's well-behaved neighbour (faults.py imports rga_numpy)
# still runs: the failures were the functions', not the module's.
py_scenario "$T/ok.ini" eager "python:$PYDATA/rga_numpy.py:rga_exact"
expect_exit 0 "a good arm after the failures" "$AB" run "$T/ok.ini" --db "$db" --no-progress
finish
