#!/usr/bin/env bash
# A Python arm beside a plugin arm in one scenario, each way round: a =
# python rga_exact (numpy, an [arm py_exact]: two arms may not share the
# name), b = the example plugin's rga_exact (C): the two
# are byte-equal, the run stores both provenances (kind python and
# plugin), and both arms' calls are one timed step each. Then a = the
# plugin, b = python rga_inexact: not byte-equal, and the gate fails it
# against the first run for lost bit-exactness. merge copies the runs with
# their python provenance (run_arms.kind 'python', schema version 7 on).
# Fake timer: deterministic.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1
SAMPLES=20
db="$T/m.db"
mod="$PYDATA/rga_numpy.py"
lib="$(dirname "$AB")/examples/plugin/librga_plugin.so"
check "the example plugin is built beside abbench" test -f "$lib"
kinds() { sqlite3 "$2" "SELECT group_concat(x, ' ') FROM (SELECT r.arm || '=' || r.kind AS x FROM run_arms r JOIN runs u ON u.id = r.run_id WHERE u.label = '$1' ORDER BY x)"; }
steps() { sqlite3 "$db" "SELECT group_concat(x) FROM (SELECT DISTINCT s.arm || ':' || k.name AS x FROM kernel_times k JOIN slots s ON s.id = k.slot_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1' ORDER BY x)"; }

# Arms are told apart by name (a case stores the names it ran): two
# shortcuts both called rga_exact are refused, naming the first one's line.
py_scenario "$T/same_name.ini" "python:$mod:rga_exact" "plugin:$lib:rga_exact"
expect_exit 2 "a python and a plugin arm of one name" "$AB" run "$T/same_name.ini" --db "$db" --no-progress
check "the second named as the first's twin" grep -q "same_name.ini:9: b: 'plugin:.*:rga_exact': an arm named 'rga_exact' exists already (line 8): arms are told apart by name" "$T/err"
check "no database made" test ! -e "$db"
py_scenario "$T/py_plugin.ini" py_exact "plugin:$lib:rga_exact" "[arm py_exact]
type = python
module = $mod
function = rga_exact"
expect_exit 0 "a = python, b = plugin" "$AB" run "$T/py_plugin.ini" --db "$db" --label py_plugin --no-progress
expect_exit 0 "show it" "$AB" show py_plugin --db "$db"
check "the plugin arm is byte-equal to the python arm in both cases" test "$(grep -c '^  b byte-equal to a: yes$' "$T/out")" -eq 2
check "a's provenance: the python module" grep -q "^arm a=py_exact: python '$mod' sha256 " "$T/out"
check "b's provenance: the plugin library" grep -q "^arm b=rga_exact: plugin '.*librga_plugin.so' sha256 " "$T/out"
check "run_arms: a=python b=plugin" test "$(kinds py_plugin "$db")" = "a=python b=plugin"
check "one timed step each: the function and the plugin's cpu function" \
	test "$(steps py_plugin)" = "a:python rga_exact,b:plugin rga_exact (cpu)"
expect_exit 0 "baseline set" "$AB" baseline set ref py_plugin --db "$db"

py_scenario "$T/plugin_py.ini" "plugin:$lib:rga_exact" "python:$mod:rga_inexact"
expect_exit 0 "a = plugin, b = python (inexact)" "$AB" run "$T/plugin_py.ini" --db "$db" --label plugin_py --no-progress
expect_exit 0 "show it" "$AB" show plugin_py --db "$db"
check "the python arm is not byte-equal to the plugin arm" test "$(grep -c '^  b byte-equal to a: NO$' "$T/out")" -eq 2
check "run_arms: a=plugin b=python" test "$(kinds plugin_py "$db")" = "a=plugin b=python"
expect_exit 1 "the gate fails the inexact python arm against the first run" "$AB" gate plugin_py --baseline ref --db "$db"
check "for lost bit-exactness" grep -q '| \*\*LOST BIT-EXACTNESS\*\*' "$T/out"

expect_exit 0 "merge the database into a new one" "$AB" merge "$T/merged.db" "$db"
check "the merged copy is at schema version 8 or later" test "$(sqlite3 "$T/merged.db" 'PRAGMA user_version')" -ge 8
check "it keeps the python provenance" test "$(kinds plugin_py "$T/merged.db")" = "a=plugin b=python"
expect_exit 0 "merging it again adds nothing (the arm sources compare equal)" "$AB" merge "$T/merged.db" "$db"
check "still two runs" test "$(sqlite3 "$T/merged.db" 'SELECT count(*) FROM runs')" -eq 2
finish
