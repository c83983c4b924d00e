#!/usr/bin/env bash
# scripts/nightly.sh and scripts/aa_check.sh end to end on the CPU backend.
# nightly: an A/A night passes; a planted regression (b = eager) is measured
# again, confirmed and fails; lost bit-exactness (b = twopass) fails without
# a second measurement; an unknown baseline is exit 2; the verdicts and the
# report are written. The nights run on the fake timer (ABBENCH_FAKE_TIMER=1,
# see t052-gate.sh), so each verdict is asserted once; the scenario copy
# takes exactly 20 samples a slot, enough for p < 0.01.
# aa_check measures real timing: only its output and its exit status are
# checked here, never how many false alarms it counted.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH="$AB" ABBENCH_DB="$T/n.db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
# 3 samples a slot: too few for p < 0.01, so that only bit-exactness can
# fail these nights (under the fake timer twopass is slower than fused too).
sed 's/^max_samples = .*/max_samples = 3/' tests/scenarios/twopass_smoke.ini >"$T/tp.ini"
sed 's/^b = twopass/b = fused/' "$T/tp.ini" >"$T/tp_base.ini"
cases=$(grep -c '^\[case ' "$T/base.ini")

"$AB" run "$T/base.ini" --backend cpu --label main --no-progress >/dev/null 2>&1
"$AB" baseline set nightly main >/dev/null

expect_exit 0 "an A/A night passes" \
	env NIGHTLY_OUT="$T/aa" scripts/nightly.sh "$T/base.ini" nightly --backend cpu --no-progress
check "with nothing measured again" bash -c "! grep -q 'measuring it again' '$T/err'"
check "its verdict is written" grep -q '^## gate: PASS: ' "$T/aa/gate.md"
check "no failing cases" test -e "$T/aa/failing-cases.txt" -a ! -s "$T/aa/failing-cases.txt"
check "its report is written" test -s "$T/aa/report/report.md"
check "the run is labelled nightly-DATE" grep -q "^## gate: .*run [0-9]* \`nightly-$(date -u +%Y-%m-%d)\`" "$T/aa/gate.md"

expect_exit 1 "a planted regression fails the night" \
	env NIGHTLY_OUT="$T/reg" scripts/nightly.sh "$T/reg.ini" nightly --backend cpu --no-progress
check "every case was measured again" test "$(grep -c "^nightly: '.*' looks slower: measuring it again$" "$T/err")" -eq "$cases"
check "and confirmed slower" test "$(grep -c "^nightly: '.*' confirmed slower$" "$T/err")" -eq "$cases"
check "ln_modulate among them" grep -qx "nightly: 'ln_modulate' confirmed slower" "$T/err"
check "the re-measured cases have their own verdicts" \
	test "$(ls "$T"/reg/gate-recheck-*.md | wc -l)" -eq "$cases"
check "ln_modulate's second verdict is REGRESSED" grep -q '^| `ln_modulate` |.*| \*\*REGRESSED\*\* |$' "$T/reg/gate-recheck-ln_modulate.md"
check "beyond the CPU profile's absolute floor, named in the verdict" \
	grep -q "absolute floor of 0.250 us (device profile 'CPU backend')" "$T/reg/gate.md"
check "the report is written even on failure" test -s "$T/reg/report/report.md"

# bit-exactness: a baseline of the twopass scenario's cases with b = fused
"$AB" run "$T/tp_base.ini" --backend cpu --quick --label tpbase --no-progress >/dev/null 2>&1
"$AB" baseline set nightly tpbase >/dev/null
expect_exit 1 "lost bit-exactness fails the night" env NIGHTLY_OUT="$T/tp" scripts/nightly.sh "$T/tp.ini" nightly --backend cpu --quick --no-progress
check "no second measurement for bit-exactness" bash -c "! grep -q 'measuring it again' '$T/err'"
check "the verdict names it" grep -q 'LOST BIT-EXACTNESS' "$T/tp/gate.md"

expect_exit 2 "an unknown baseline is a data error" env NIGHTLY_OUT="$T/x" scripts/nightly.sh scenarios/smoke.ini nosuch --backend cpu --quick --no-progress
expect_exit 2 "nightly without a baseline argument" scripts/nightly.sh scenarios/smoke.ini

# aa_check on real timing, even with the fake timer exported here.
rc=0
scripts/aa_check.sh -n 2 -s scenarios/smoke.ini -b cpu -- --quick >"$T/aa.out" 2>"$T/err" || rc=$?
check "aa_check ends with its false-alarm count" bash -c "tail -n 1 '$T/aa.out' | grep -Eqx 'false alarms: [0-2] of 2'"
alarms=$(sed -n 's/^false alarms: \([0-9]*\) of 2$/\1/p' "$T/aa.out")
check "aa_check exits 0 with no false alarm, 1 with some (got $rc, ${alarms:-no} alarms)" \
	test "$rc" -eq "$([ "${alarms:-x}" = 0 ] && echo 0 || echo 1)"
check "aa_check reports each pair" test "$(grep -c '^pair [12]: ' "$T/aa.out")" -eq 2
check "aa_check names its scenario and backend" grep -q '^aa_check: 2 A/A pairs of smoke.ini on backend cpu, device CPU' "$T/aa.out"
check "aa_check ignores ABBENCH_FAKE_TIMER" bash -c "! grep -q 'fake timer' '$T/aa.out'"
expect_exit 2 "aa_check with a bad count" scripts/aa_check.sh -n many
expect_exit 2 "aa_check with a count of 0" scripts/aa_check.sh -n 0
expect_exit 2 "aa_check with an unknown option" scripts/aa_check.sh -x
expect_exit 2 "aa_check with a scenario that does not exist" scripts/aa_check.sh -n 1 -s "$T/none.ini"
check "which it names" grep -q "none.ini" "$T/err"
finish
