#!/usr/bin/env bash
# `abbench history`: each case's trend over runs and the steps in it.
# Fourteen nightly runs of smoke.ini on the fake timer (20 samples a slot),
# given dates 2026-11-01.. and commits c0000000NNNN in the database, each
# run's samples moved by a deterministic -1.2..+1.2% (the nights differ a
# little, as real ones do), and ln_modulate's fused arm planted 25% slower
# from run 9 on. The answers are where the test put them:
#   - ln_modulate has one step, +25% at run 9, named with run 9's commit
#     and date; the other cases have none;
#   - with --metric speedup the same step is -20% (1 / 1.25 - 1), and so
#     with --metric gbps (bytes over the 25% slower median);
#   - the baseline is marked at its run; a quick run is marked quick; the
#     re-measurement run (run --recheck) is left out unless --rechecks;
#   - --last, --case, --scenario, --label and --device filter; nothing
#     matching is exit 2;
#   - --out writes one chart per case: a PNG, its data and script.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/h.db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/base.ini"
cases=$(grep -c '^\[case ' "$T/base.ini")
for i in $(seq 1 14); do
	"$AB" run "$T/base.ini" --backend cpu --no-progress --label "nightly-2026-11-$(printf %02d "$i")" >/dev/null 2>&1
done
"$AB" run "$T/base.ini" --backend cpu --no-progress --label nightly-2026-11-14-recheck --only ln_modulate --recheck \
	>/dev/null 2>&1
sqlite3 "$ABBENCH_DB" "
UPDATE runs SET started_at = printf('2026-11-%02dT02:00:00Z', min(id, 14)), git_commit = printf('c%011d', id * 7919);
UPDATE samples SET wall_ns = wall_ns * (1 + 0.006 * ((SELECT (r.id * 7) % 5 - 2 FROM slots s JOIN cases c ON c.id = s.case_id
	JOIN runs r ON r.id = c.run_id WHERE s.id = samples.slot_id)));
UPDATE samples SET wall_ns = wall_ns * 1.25 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	JOIN runs r ON r.id = c.run_id WHERE r.id >= 9 AND s.arm = 'b' AND c.name = 'ln_modulate');
UPDATE runs SET quick = 1 WHERE id = 5;"
"$AB" baseline set nightly 3 >/dev/null

expect_exit 0 "history" "$AB" history
check "a table per case" test "$(grep -c '^smoke / CPU fake timer (ABBENCH_FAKE_TIMER=1) / ' "$T/out")" -eq "$cases"
check "14 runs each (the recheck left out)" test "$(grep -c ': fused (B) median, 14 runs$' "$T/out")" -eq "$cases"
check "ln_modulate: one step, +25% at run 9, its commit and date" \
	grep -Eq '^  step: \+25\.[0-9]{2}% at run 9 \(commit c00000071271, 2026-11-09, label nightly-2026-11-09\): 4\.[0-9]{2} us -> 5\.[0-9]{2} us, a regression$' "$T/out"
check "only that step" test "$(grep -c '^  step: ' "$T/out")" -eq 1
check "the other cases have none" test "$(grep -c '^  steps: none beyond 5.00%' "$T/out")" -eq $((cases - 1))
check "run 9's row is marked" grep -Eq '^  9 +2026-11-09T02:00:00Z +c00000071271 +nightly-2026-11-09 +5\.[0-9]{2} us \[5\.[0-9]{2}, 5\.[0-9]{2}\] +20  <- step \+25\.[0-9]{2}%$' "$T/out"
check "the baseline is marked at run 3" test "$(grep -c "^  3 .*  baseline 'nightly'$" "$T/out")" -eq "$cases"
check "the quick run is marked" test "$(grep -c '^  5 .*  quick$' "$T/out")" -eq "$cases"
check "the method is named" grep -q '^# fused (B) median per run; steps by penalized L1 segmentation (asv-style), smallest step named 5.00%$' "$T/out"

expect_exit 0 "--metric speedup" "$AB" history --metric speedup --case ln_modulate
check "the speedup steps -20%" grep -Eq '^  step: -(19\.[5-9]|20\.[0-4])[0-9]% at run 9 \(commit c00000071271' "$T/out"
check "speedups with intervals, n the smaller arm's count" grep -Eq '^  1 +.* [0-9]\.[0-9]{3}x \[[0-9.]+, [0-9.]+\] +20  $' "$T/out"

expect_exit 0 "--metric gbps" "$AB" history --metric gbps --case ln_modulate
check "the fused bandwidth steps -20%" grep -Eq '^  step: -(19\.[5-9]|20\.[0-4])[0-9]% at run 9 \(commit c00000071271' "$T/out"
check "GB/s with intervals" grep -Eq '^  1 +.* [0-9]+\.[0-9] GB/s \[[0-9.]+, [0-9.]+\] +20  $' "$T/out"

expect_exit 0 "--rechecks" "$AB" history --rechecks --case ln_modulate
check "the recheck joins ln_modulate's history" grep -q ': fused (B) median, 15 runs$' "$T/out"
expect_exit 0 "--last 5" "$AB" history --last 5 --case 'ln_mod*'
check "the newest 5 runs of the two ln_mod* cases" test "$(grep -c '^  1[0-4] ' "$T/out")" -eq 10 -a "$(grep -c ', 5 runs$' "$T/out")" -eq 2
check "the step is past the window: none in it" bash -c "! grep -q '^  step: ' '$T/out'"
expect_exit 0 "--label" "$AB" history --label 'nightly-2026-11-0*' --case ln_modulate
check "nine runs" grep -q ': fused (B) median, 9 runs$' "$T/out"
expect_exit 0 "--min-step 30" "$AB" history --min-step 30 --case ln_modulate
check "a 25% step is not named under 30%" grep -q '^  steps: none beyond 30.00%' "$T/out"
expect_exit 2 "no matching case" "$AB" history --case nope
check "says so" grep -q 'no case matches in the 14 runs that do' "$T/err"
expect_exit 2 "no matching device" "$AB" history --device '*H200*'
check "says so" grep -q "no 'ok' run matches" "$T/err"
expect_exit 2 "no matching scenario" "$AB" history --scenario glm_1024
expect_exit 2 "a bad metric" "$AB" history --metric gbps2
expect_exit 2 "a bad --last" "$AB" history --last 100000
expect_exit 2 "a bad --min-step" "$AB" history --min-step -1

if command -v gnuplot >/dev/null; then
	expect_exit 0 "--out DIR" "$AB" history --out "$T/charts"
	check "one PNG per case" test "$(ls "$T"/charts/trend-*.png | wc -l)" -eq "$cases"
	png="$T/charts/trend-smoke-CPU_fake_timer__ABBENCH_FAKE_TIMER_1_-ln_modulate.png"
	check "ln_modulate's chart is a PNG" bash -c "head -c 8 '$png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
	gp="${png%.png}.gp"
	check "its script marks the step at run 9" grep -q "set label 'regression +25.[0-9]*%: run 9, c00000071'" "$gp"
	check "and the baseline at run 3" grep -q "set arrow from 3, graph 0 to 3, graph 1 nohead" "$gp"
	check "it redraws by hand" bash -c "cd '$T/charts' && gnuplot '$(basename "$gp")'"
	cp "$png" "$(dirname "$AB")/history-planted-step.png"
fi
expect_exit 0 "--out --no-plots" "$AB" history --out "$T/np" --no-plots --case ln_modulate
check "data and script, no PNG" test -s "$T/np/trend-smoke-CPU_fake_timer__ABBENCH_FAKE_TIMER_1_-ln_modulate.gp" -a ! -e "$T/np/trend-smoke-CPU_fake_timer__ABBENCH_FAKE_TIMER_1_-ln_modulate.png"
finish
