#!/usr/bin/env bash
# scripts/nightly.sh end to end on the CPU backend: an A/A night passes; a
# planted regression (b = eager) is measured again, every slower case in
# ONE run (run --only with all of them: sweep names with [ ] included),
# confirmed and fails; lost bit-exactness fails without a second
# measurement; an unknown baseline is exit 2; --help prints the usage and
# exits 0. Each night ends with one summary line that counts what
# happened (never "0 of 0 cases"); labels are unique even for nights
# started in the same second (a stand-in `date` that always says the same
# second) or given the same NIGHTLY_LABEL (a .N suffix). The nights run on
# the fake timer (ABBENCH_FAKE_TIMER=1, see t052-gate.sh), so each verdict
# is asserted once; the scenario copy takes exactly 20 samples a slot,
# enough for p < 0.01. The steps apart (--step): t257-nightly-steps.sh.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH="$AB" ABBENCH_DB="$T/n.db" ABBENCH_FAKE_TIMER=1
sweep='\n[case sw]\nsite = ln_modulate\nshape = 1x{4,8}x256\ncount = 1\n'
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/base.ini"
printf "$sweep" >>"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
# 3 samples a slot: too few for p < 0.01, so that only bit-exactness can
# fail these nights (under the fake timer twopass is slower than fused too).
sed 's/^max_samples = .*/max_samples = 3/' tests/scenarios/twopass_smoke.ini >"$T/tp.ini"
sed 's/^b = twopass/b = fused/' "$T/tp.ini" >"$T/tp_base.ini"
cases=$(($(grep -c '^\[case ' "$T/base.ini") + 1)) # sw is two cases: sw[T=4], sw[T=8]
label_of() { sed -n 's/^run //p' "$1/state"; }

"$AB" run "$T/base.ini" --backend cpu --label main --no-progress >/dev/null 2>&1
"$AB" baseline set nightly main >/dev/null

expect_exit 0 "an A/A night passes" \
	env NIGHTLY_OUT="$T/aa" scripts/nightly.sh "$T/base.ini" nightly --backend cpu --no-progress
aa=$(label_of "$T/aa")
check "with nothing measured again" grep -qx "nightly: nothing slower to measure again" "$T/err"
check "its verdict is written" grep -q '^## gate: PASS: ' "$T/aa/gate.md"
check "no failing cases" test -e "$T/aa/failing-cases.txt" -a ! -s "$T/aa/failing-cases.txt"
check "its report is written" test -s "$T/aa/report/report.md"
check "the run is labelled nightly-DATE-HHMMSS-PID (got $aa)" bash -c "[[ '$aa' =~ ^nightly-$(date -u +%Y-%m-%d)-[0-9]{6}-[0-9]+\$ ]]"
check "the gate names that label" grep -q "^## gate: .*run [0-9]* \`$aa\`" "$T/aa/gate.md"
check "the summary line, last, counts the $cases cases" \
	test "$(tail -n 1 "$T/err")" = "nightly: PASS: $cases cases of '$aa' against baseline 'nightly': $cases passed"
check "and is kept in summary.txt" test "$(cat "$T/aa/summary.txt")" = "PASS: $cases cases of '$aa' against baseline 'nightly': $cases passed"

expect_exit 1 "a planted regression fails the night" \
	env NIGHTLY_OUT="$T/reg" scripts/nightly.sh "$T/reg.ini" nightly --backend cpu --no-progress
reg=$(label_of "$T/reg")
check "the first gate lists every case as slower" test "$(grep -c . "$T/reg/failing-cases.txt")" -eq "$cases"
check "one line says they are measured again in one run" \
	grep -q "^nightly: measuring the $cases slower case(s) again in one run, as '$reg-recheck': ln_modulate " "$T/err"
"$AB" list --rechecks --label "$reg-recheck" >"$T/rechecks" 2>/dev/null
check "the database has ONE re-measurement run" test "$(tail -n +2 "$T/rechecks" | grep -c .)" -eq 1
check "that run measured all $cases cases" grep -q "^[0-9]* .* $reg-recheck .* $cases  *ok " "$T/rechecks"
check "the sweep's names went to --only escaped, as exact names" grep -qF 'sw\[T=4\],sw\[T=8\]' "$T/rechecks"
check "every case confirmed slower" test "$(grep -c "^nightly: '.*' confirmed slower$" "$T/err")" -eq "$cases"
check "ln_modulate and sw[T=8] among them" grep -qx "nightly: 'sw\[T=8\]' confirmed slower" "$T/err"
check "the re-measured cases have their own verdicts" \
	test "$(ls "$T"/reg/gate-recheck-*.md | wc -l)" -eq "$cases"
check "ln_modulate's second verdict is REGRESSED" grep -q '^| `ln_modulate` |.*| \*\*REGRESSED\*\* |$' "$T/reg/gate-recheck-ln_modulate.md"
check "beyond the CPU profile's absolute floor, named in the verdict" \
	grep -q "absolute floor of 0.250 us (device profile 'CPU backend')" "$T/reg/gate.md"
check "the report is written even on failure" test -s "$T/reg/report/report.md"
check "the summary line counts the first and the second measurement" test "$(tail -n 1 "$T/err")" = \
	"nightly: FAIL: $cases cases of '$reg' against baseline 'nightly': $cases slower; measured again in one run ('$reg-recheck'): $cases confirmed slower, 0 cleared, 0 inconclusive"
check "no line tells of 0 of 0 cases" bash -c "! grep -q '0 of 0 cases' '$T/err'"
check "the gates' own lines are in gate.log" grep -q '^gate: FAIL (1 of 1 cases failed' "$T/reg/gate.log"

# Labels: nights in the same second (a `date` that always answers 02:00:00)
# and nights given one NIGHTLY_LABEL get labels of their own.
mkdir -p "$T/bin"
printf '#!/bin/sh\necho 2026-12-01-020000\n' >"$T/bin/date"
chmod +x "$T/bin/date"
# (--only: a partial night, INCONCLUSIVE, and short)
for k in 1 2; do
	expect_exit 4 "a partial night at 02:00:00 ($k)" env PATH="$T/bin:$PATH" NIGHTLY_OUT="$T/same$k" \
		scripts/nightly.sh "$T/base.ini" nightly --backend cpu --no-progress --only ln_modulate
done
s1=$(label_of "$T/same1") s2=$(label_of "$T/same2")
check "its summary line counts what was not measured" grep -qx \
	"nightly: INCONCLUSIVE: $cases cases of '$s2' against baseline 'nightly': 1 passed, $((cases - 1)) not measured" "$T/err"
check "two nights of the same second have different labels ($s1, $s2)" \
	bash -c "[[ '$s1' == nightly-2026-12-01-020000-* && '$s2' == nightly-2026-12-01-020000-* && '$s1' != '$s2' ]]"
for k in 1 2; do
	expect_exit 4 "a partial night labelled fixed ($k)" env NIGHTLY_LABEL=fixed NIGHTLY_OUT="$T/fixed$k" \
		scripts/nightly.sh "$T/base.ini" nightly --backend cpu --no-progress --only ln_modulate
done
check "NIGHTLY_LABEL taken: the second night is fixed.2" test "$(label_of "$T/fixed1") $(label_of "$T/fixed2")" = "fixed fixed.2"
check "and the database holds both" test "$("$AB" list --label 'fixed*' 2>/dev/null | tail -n +2 | grep -c .)" -eq 2

# bit-exactness: a baseline of the twopass scenario's cases with b = fused
"$AB" run "$T/tp_base.ini" --backend cpu --quick --label tpbase --no-progress >/dev/null 2>&1
"$AB" baseline set nightly tpbase >/dev/null
expect_exit 1 "lost bit-exactness fails the night" env NIGHTLY_OUT="$T/tp" scripts/nightly.sh "$T/tp.ini" nightly --backend cpu --quick --no-progress
tp=$(label_of "$T/tp")
check "no second measurement for bit-exactness" bash -c "! grep -q 'again in one run' '$T/err'"
check "the verdict names it" grep -q 'LOST BIT-EXACTNESS' "$T/tp/gate.md"
check "the summary line counts it" grep -qx "nightly: FAIL: 2 cases of '$tp' against baseline 'nightly': .*lost bit-exactness.*" "$T/err"

expect_exit 2 "an unknown baseline is a data error" env NIGHTLY_OUT="$T/x" scripts/nightly.sh scenarios/smoke.ini nosuch --backend cpu --quick --no-progress
check "the gate's message shown, not only logged" grep -q "no baseline or run 'nosuch'" "$T/err"
expect_exit 2 "nightly without a baseline argument" scripts/nightly.sh scenarios/smoke.ini
check "prints the usage on stderr" grep -q '^usage: scripts/nightly.sh \[--init\] SCENARIO BASELINE' "$T/err"
expect_exit 0 "nightly --help" scripts/nightly.sh --help
check "prints the usage and the exit statuses on stdout" \
	bash -c "grep -q '^  scripts/nightly.sh \[--init\] SCENARIO BASELINE' '$T/out' && grep -q '^  4  inconclusive' '$T/out'"
expect_exit 0 "nightly -h" scripts/nightly.sh -h
finish
