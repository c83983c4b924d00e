#!/usr/bin/env bash
# Plugin libraries abbench must refuse by name, not crash on or guess at
# (issue 19, row 13): a table that names one arm twice (before: the last
# one silently ran) and a truncated copy of a library (before: dlopen
# died of SIGBUS, exit 135). Each is exit 2 with the [arm]'s FILE:LINE in
# one line and no database made; the whole library still loads.
. "$(dirname "$0")/lib.sh"
build=$(dirname "$AB")
rga="$build/examples/plugin/librga_plugin.so"
dup="$build/tests/plugins/libdup_arms.so"
export ABBENCH_FAKE_TIMER=1

scenario() { # FILE B_ARM: one residual_gate_add case, the arm on line 5
	printf '[scenario]\nbackend = cpu\n[arms]\na = eager\nb = %s\n[case gate]\nsite = residual_gate_add\nshape = 1x16x256\n' \
		"$2" >"$1"
}
n=0
refused() { # DESCRIPTION MESSAGE-REGEX
	n=$((n + 1))
	expect_exit 2 "$1 is refused" "$AB" run "$T/s.ini" --db "$T/new$n.db" --no-progress
	check "$1: the message names $T/s.ini:5" grep -Eq "^abbench: error: $T/s.ini:5: $2" "$T/err"
	check "$1: one line" test "$(wc -l <"$T/err")" -eq 1
	check "$1: no database file" test ! -e "$T/new$n.db"
}

scenario "$T/s.ini" "plugin:$dup:rga_exact"
refused "a table naming an arm twice" "arm 'rga_exact': '$dup' has two arms named 'rga_exact' \(entries 1 and 3 of its table\): rename one"
scenario "$T/s.ini" "plugin:$dup:rga_other"
refused "the same table, asked for its other arm" "arm 'rga_other': '$dup' has two arms named 'rga_exact' \(entries 1 and 3"

size=$(stat -c %s "$rga")
for cut in 40 100 2000 $((size / 3)) $((size - 100)); do
	head -c "$cut" "$rga" >"$T/cut.so"
	scenario "$T/s.ini" "plugin:$T/cut.so:rga_exact"
	refused "the library cut to $cut of $size bytes" "arm 'rga_exact': cannot load '$T/cut.so': damaged ELF file: .*$cut bytes"
done
check "there were bad libraries to try" test "$n" -eq 7

scenario "$T/s.ini" "plugin:$rga:rga_exact"
expect_exit 0 "the whole library still runs" "$AB" run "$T/s.ini" --db "$T/ok.db" --no-progress --quick
finish
