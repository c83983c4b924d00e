#!/usr/bin/env bash
# An arm cannot end abbench silently (issue 31 row 2). `abbench run` is a
# supervisor and the process that runs (run/supervise.h): whatever ends
# the latter, the former marks the run and exits non-zero, naming the
# case, the arm and its slot. On the CPU backend, arm b of
# tests/data/python/stops.py (misbehaving from call STOPS_FROM on) and of
# the fault plugin:
#   os_exit     os._exit(0) in a call: SystemExit at the user's line (pyrt
#               makes os._exit raise, as sys.exit does), exit 3, 'failed'
#   libc_exit   _exit(0) through ctypes, which nothing in the process can
#               catch: the supervisor marks the run 'failed', exit 3
#   segfault    a read of address 0: 'failed', exit 3, the signal named
#   kills_self  SIGKILL to its own process: 'interrupted', exit 137
#   plugin exits  _exit(0) in C: 'failed', exit 3
# Each twice: in the run (STOPS_FROM=6: the first sample of case gate's
# slot B, after the 4 calls of the check of every arm before the run and
# the slot's first call), where the row is marked; and in that check
# before the run (run_case_preflight), where the same exit status and
# names come and nothing is stored (no database is made). And a module
# calling os._exit(0) at import: exit 2 at its line, no database made.
# Before: os_exit, libc_exit and exits ended abbench with exit 0 and the
# row 'running', with nothing printed; the import, exit 0 and no database.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3
db="$T/x.db"
mod="$PYDATA/stops.py"
lib="$(dirname "$AB")/examples/plugin/libfault_plugin.so"
status_of() { sqlite3 "$db" "SELECT status FROM runs WHERE label = '$1'"; }
# ends ARM LABEL EXIT STATUS MESSAGE-REGEX: in the run, the row marked
ends() {
	py_scenario "$T/$2.ini" eager "$1"
	expect_exit "$3" "$2: the run exits $3" env STOPS_FROM=6 timeout 60 "$AB" run "$T/$2.ini" --db "$db" --label "$2" --no-progress
	check "$2: the error names the case and the arm" grep -Eq "^abbench: error: case 'gate': arm '[a-z_]+'.*$5" "$T/err"
	check "$2: the run is marked $4" test "$(status_of "$2")" = "$4"
	check "$2: and says so" grep -q "^abbench: run [0-9]* marked $4 in '$db'" "$T/err"
	check "$2: no summary on stdout" test ! -s "$T/out"
}
# ends_before ARM LABEL EXIT MESSAGE-REGEX: in the check before the run, nothing stored
ends_before() {
	py_scenario "$T/$2.ini" eager "$1"
	expect_exit "$3" "$2 before the run: exits $3" timeout 60 "$AB" run "$T/$2.ini" --db "$T/$2.db" --no-progress
	check "$2 before the run: the error names the case and the arm" \
		grep -Eq "^abbench: error: (checking every arm before the run \(nothing measured or stored\): )?case 'gate': arm '[a-z_]+'.*$4" "$T/err"
	check "$2 before the run: no database made" test ! -e "$T/$2.db"
	check "$2 before the run: no run marked" bash -c "! grep -q '^abbench: run [0-9]* marked' '$T/err'"
	check "$2 before the run: no summary on stdout" test ! -s "$T/out"
}
line() { grep -n "MARK: $1\$" "$mod" | cut -d: -f1; }
os_exit_msg=": $mod:$(line os-exit): in os_exit: SystemExit: os._exit\(0\) in an arm: it must return, never end abbench$"
libc_exit_msg=" \(slot B\): abbench's run process exited with status 0 during a call of the arm, before it finished the run"
# (under ASan the sanitizer catches the SIGSEGV and exits 1: either way the supervisor answers)
segfault_msg=" \(slot B\): abbench's run process (was killed by signal 11 \(Segmentation fault\)|exited with status 1) during a call"
kills_self_msg=" \(slot B\): abbench's run process was killed by signal 9 \(Killed\)"
ends "python:$mod:os_exit" os_exit 3 failed "$os_exit_msg"
ends "python:$mod:libc_exit" libc_exit 3 failed "$libc_exit_msg"
ends "python:$mod:segfault" segfault 3 failed "$segfault_msg"
ends "python:$mod:kills_self" kills_self 137 interrupted "$kills_self_msg"
ends_before "python:$mod:os_exit" os_exit 3 "$os_exit_msg"
ends_before "python:$mod:libc_exit" libc_exit 3 "$libc_exit_msg"
ends_before "python:$mod:segfault" segfault 3 "$segfault_msg"
ends_before "python:$mod:kills_self" kills_self 137 "$kills_self_msg"
# the plugin's exits ends the process in its first call, the check's: so before the run
ends_before "plugin:$lib:exits" plugin_exits 3 " \(slot B\): abbench's run process exited with status 0 during a call of the arm"

printf 'import os\nos._exit(0)\n\ndef f(t, d):\n    pass\n' >"$T/at_import.py"
py_scenario "$T/import.ini" eager "python:$T/at_import.py:f"
expect_exit 2 "os._exit(0) at import: refused before the run" "$AB" run "$T/import.ini" --db "$T/new.db" --no-progress
check "at the module's line" grep -q "import.ini:9: arm 'f': $T/at_import.py:2: SystemExit: os._exit(0) in an arm" "$T/err"
check "no database made" test ! -e "$T/new.db"
finish
