#!/usr/bin/env bash
# An arm that fails is refused before the run measures anything: every arm
# of every case is called once first (docs/PYTHON_ARMS.md, "Every arm once
# before the run"), so the fault shows there: exit 3, one line (the
# arm's message after "checking every arm before the run"), no run row, no
# database made, the process ends (under timeout). A fault that shows
# only later in a run marks that run failed (t264's fails_later). The
# fault plugin (examples/plugin/fault_plugin.c) on the CPU backend:
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
# fails ARM MESSAGE-REGEX: the run of b = ARM exits 3 with that message,
# before the run.
fails() {
	scenario "$T/$1.ini" "plugin:$fault:$1"
	expect_exit 3 "arm '$1' is refused before the run" timeout 120 "$AB" run "$T/$1.ini" --db "$db" --label "$1" --no-progress
	check "$1: the error says why, one line" grep -Eq \
		"^abbench: error: checking every arm before the run \(nothing measured or stored\): .*$2" "$T/err"
	check "$1: one line, no run marked" test "$(wc -l <"$T/err")" -eq 1
	check "$1: no database made" test ! -e "$db"
}

fails fail "arm 'fail': the plugin's cpu function failed \(status 1\): deliberate failure of the fault plugin \(case 'gate', cpu\)"
fails overrun "arm 'overrun': wrote outside tensor 'out': 2 of the 4096 guard bytes after its end changed \(the first at end\+0\)"
fails into_input "arm 'into_input' \(slot B\) wrote into its input 'x'"

# The same plugin's well-behaved neighbours still run: a failure is the
# arm's, not the library's.
scenario "$T/ok.ini" "plugin:$(dirname "$AB")/examples/plugin/librga_plugin.so:rga_exact"
expect_exit 0 "a good arm after the failures" "$AB" run "$T/ok.ini" --db "$db" --no-progress
finish
