#!/usr/bin/env bash
# An arm that fails while the run measures fails the run: exit 3, the run
# row marked 'failed' with the message, the process ends (under timeout).
# The fault plugin (examples/plugin/fault_plugin.c) on the CPU backend:
#   fail        its cpu function returns an error with a message
#   overrun     writes one element past the end of 'out': the guard bytes
#               after 'out' name the arm and the tensor
#   into_input  changes x[0]: the input check after the slot names it
# (The CUDA twins, and a kernel storing to an illegal address, run in
# scripts/gpu/plugins.sh.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
fault="$(dirname "$AB")/examples/plugin/libfault_plugin.so"
db="$T/f.db"

scenario() { # FILE B_ARM
	printf '[scenario]\nbackend = cpu\nmin_samples = 3\nmax_samples = 3\n[arms]\na = eager\nb = %s\n[case gate]\nsite = residual_gate_add\nshape = 1x16x256\n' \
		"$2" >"$1"
}
cases_of() { sqlite3 "$db" "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.label = '$1'"; }
# fails ARM MESSAGE-REGEX: the run of b = ARM exits 3 with that message.
fails() {
	scenario "$T/$1.ini" "plugin:$fault:$1"
	expect_exit 3 "arm '$1' fails the run" timeout 120 "$AB" run "$T/$1.ini" --db "$db" --label "$1" --no-progress
	check "$1: the error says why" grep -Eq "^abbench: error: .*$2" "$T/err"
	check "$1: the run is marked failed" grep -q "^abbench: run [0-9]* marked failed in '$db'" "$T/err"
	expect_exit 0 "$1: show the failed run" "$AB" show "$1" --db "$db"
	check "$1: status failed, the message stored" grep -Eq "^error: .*$2" "$T/out"
	check "$1: no results kept" test "$(cases_of "$1")" -eq 0
}

fails fail "arm 'fail': the plugin's cpu function failed \(status 1\): deliberate failure of the fault plugin \(case 'gate', cpu\)"
fails overrun "arm 'overrun': wrote outside tensor 'out': 2 of the 4096 guard bytes after its end changed \(the first at end\+0\)"
fails into_input "arm 'into_input' \(slot B\) wrote into its input 'x'"
expect_exit 0 "list" "$AB" list --db "$db"
check "list shows three failed runs" test "$(grep -c ' failed ' "$T/out")" -eq 3

# The same plugin's well-behaved neighbours still run: a failure is the
# arm's, not the library's.
scenario "$T/ok.ini" "plugin:$(dirname "$AB")/examples/plugin/librga_plugin.so:rga_exact"
expect_exit 0 "a good arm after the failures" "$AB" run "$T/ok.ini" --db "$db" --no-progress
finish
