#!/usr/bin/env bash
# An A/A run is byte-equal everywhere; a run with the deliberately
# different 'twopass' variant as b is reported as not bit-exact (and the
# run itself still succeeds: measuring worked, the verdict is the gate's).
. "$(dirname "$0")/lib.sh"
db="$T/aa.db"

expect_exit 0 "A/A run" "$AB" run scenarios/aa_smoke.ini --backend cpu --db "$db" --quick
expect_exit 0 "show A/A" "$AB" show --db "$db"
check "A/A b is eager" grep -Eq '^  B +b +eager' "$T/out"
check "A/A never reports a difference" bash -c "! grep -q 'byte-equal to a: NO' '$T/out'"

expect_exit 0 "twopass run" "$AB" run tests/scenarios/twopass_smoke.ini --backend cpu --db "$db" --quick
expect_exit 0 "show twopass" "$AB" show --db "$db"
check "twopass reported not byte-equal" grep -q 'b byte-equal to a: NO' "$T/out"
check "twopass slot marked NO" grep -Eq '^  B +b +twopass .* NO ' "$T/out"
expect_exit 0 "export twopass" "$AB" export --csv "$T/t.csv" --db "$db"
check "csv marks the ln_modulate B row bit_exact 0" test "$(awk -F, '$1 == "ln_modulate" && $6 == "B" { print $12 }' "$T/t.csv")" = 0
check "csv marks A rows bit_exact 1" test "$(awk -F, '$5 == "a" { print $12 }' "$T/t.csv" | sort -u)" = 1
finish
