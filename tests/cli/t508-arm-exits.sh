#!/usr/bin/env bash
# An arm cannot end abbench silently (issue 31 row 2). `abbench run` is a
# supervisor and the process that runs (run/supervise.h): whatever ends
# the latter, the former marks the run and exits non-zero, naming the
# case, the arm and its slot. On the CPU backend, arm b of
# tests/data/python/stops.py (each copies x on its first call, the
# slot's warm-up, and misbehaves on its second) and of the fault plugin:
#   os_exit     os._exit(0) in a call: SystemExit at the user's line (pyrt
#               makes os._exit raise, as sys.exit does), exit 3, 'failed'
#   libc_exit   _exit(0) through ctypes, which nothing in the process can
#               catch: the supervisor marks the run 'failed', exit 3
#   segfault    a read of address 0: 'failed', exit 3, the signal named
#   kills_self  SIGKILL to its own process: 'interrupted', exit 137
#   plugin exits  _exit(0) in C: 'failed', exit 3
# and a module calling os._exit(0) at import: exit 2 at its line, no
# database made. Before: os_exit, libc_exit and exits ended abbench with
# exit 0 and the row 'running', with nothing printed; the import, exit 0
# and no database.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3
db="$T/x.db"
mod="$PYDATA/stops.py"
lib="$(dirname "$AB")/examples/plugin/libfault_plugin.so"
status_of() { sqlite3 "$db" "SELECT status FROM runs WHERE label = '$1'"; }
# ends ARM LABEL EXIT STATUS MESSAGE-REGEX
ends() {
	py_scenario "$T/$2.ini" eager "$1"
	expect_exit "$3" "$2: the run exits $3" timeout 60 "$AB" run "$T/$2.ini" --db "$db" --label "$2" --no-progress
	check "$2: the error names the case and the arm" grep -Eq "^abbench: error: case 'gate': arm '[a-z_]+'.*$5" "$T/err"
	check "$2: the run is marked $4" test "$(status_of "$2")" = "$4"
	check "$2: and says so" grep -q "^abbench: run [0-9]* marked $4 in '$db'" "$T/err"
	check "$2: no summary on stdout" test ! -s "$T/out"
}
line() { grep -n "MARK: $1\$" "$mod" | cut -d: -f1; }
ends "python:$mod:os_exit" os_exit 3 failed ": $mod:$(line os-exit): in os_exit: SystemExit: os._exit\(0\) in an arm: it must return, never end abbench$"
ends "python:$mod:libc_exit" libc_exit 3 failed " \(slot B\): abbench's run process exited with status 0 during a call of the arm, before it finished the run"
# (under ASan the sanitizer catches the SIGSEGV and exits 1: either way the supervisor answers)
ends "python:$mod:segfault" segfault 3 failed " \(slot B\): abbench's run process (was killed by signal 11 \(Segmentation fault\)|exited with status 1) during a call"
ends "python:$mod:kills_self" kills_self 137 interrupted " \(slot B\): abbench's run process was killed by signal 9 \(Killed\)"
ends "plugin:$lib:exits" plugin_exits 3 failed " \(slot B\): abbench's run process exited with status 0 during a call of the arm"

printf 'import os\nos._exit(0)\n\ndef f(t, d):\n    pass\n' >"$T/at_import.py"
py_scenario "$T/import.ini" eager "python:$T/at_import.py:f"
expect_exit 2 "os._exit(0) at import: refused before the run" "$AB" run "$T/import.ini" --db "$T/new.db" --no-progress
check "at the module's line" grep -q "import.ini:9: arm 'f': $T/at_import.py:2: SystemExit: os._exit(0) in an arm" "$T/err"
check "no database made" test ! -e "$T/new.db"
finish
