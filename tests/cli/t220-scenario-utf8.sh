#!/usr/bin/env bash
# A scenario is UTF-8 text (issue 19, row 6): a Latin-1 byte in the
# description, a case name or an [arm] value is refused at its FILE:LINE
# (exit 2, one line, no database made); before, it was stored and every
# JSON output of the run then failed with a false "out of memory". Valid
# UTF-8 (an e acute, a euro sign, an emoji) runs and reaches the JSON.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1

# scenario FILE DESCRIPTION CASE-NAME
scenario() {
	printf '[scenario]\nbackend = cpu\ndescription = %s\nwarmup = 0\nmin_samples = 3\nmax_samples = 3\nmin_time_ms = 0.001\n[case %s]\nsite = residual_gate_add\nshape = 1x16x256\n' \
		"$2" "$3" >"$1"
}
n=0
refused() { # DESCRIPTION LINE COLUMN BYTE
	n=$((n + 1))
	expect_exit 2 "$1 is refused" "$AB" run "$T/s.ini" --db "$T/new$n.db" --no-progress
	check "$1: names $T/s.ini:$2 and the byte" grep -q "^abbench: error: $T/s.ini:$2: byte $4 at column $3 is not UTF-8" "$T/err"
	check "$1: one line" test "$(wc -l <"$T/err")" -eq 1
	check "$1: no database file" test ! -e "$T/new$n.db"
}

scenario "$T/s.ini" "$(printf 'caf\xe9')" gate
refused "a Latin-1 description" 3 18 0xE9
scenario "$T/s.ini" "fine" "$(printf 'g\xe4te')"
refused "a Latin-1 case name" 8 8 0xE4
scenario "$T/s.ini" "$(printf 'over\xc0\xaflong')" gate
refused "an overlong '/'" 3 19 0xC0
scenario "$T/s.ini" fine gate
printf '[arms]\nb = mine\n[arm mine]\ntype = plugin\nlibrary = lib\xff.so\nname = x\n' >>"$T/s.ini"
refused "a byte 0xFF in an [arm] path" 15 14 0xFF

scenario "$T/s.ini" "$(printf 'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80')" gate
expect_exit 0 "valid UTF-8 runs" "$AB" run "$T/s.ini" --db "$T/ok.db" --no-progress --quick
expect_exit 0 "its JSON export works" "$AB" export last --json "$T/run.json" --db "$T/ok.db"
check "the description is in the JSON as written" grep -q "$(printf 'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80')" "$T/run.json"
check "there were bad scenarios to try" test "$n" -eq 4
finish
