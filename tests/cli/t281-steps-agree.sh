#!/usr/bin/env bash
# compare, history and publish agree on the same runs. Six runs of
# smoke.ini on the fake timer (20 samples a slot), dated 2026-11-01..;
# planted in the database:
#   - ln_modulate's fused arm 25% slower from run 4 on: 3 runs each side
#     of the change, beyond the CPU profile's 15% threshold;
#   - ln_continuous's fused arm 12% faster in the newest run only (run 6):
#     the issue's pair (compare said "no change beyond the floors
#     (-11.96%)" while the dashboard drew a red step).
# The answers: compare 3 4 calls ln_modulate slower; history names one
# step, +25% at run 4, a regression; publish shows it with the regression's
# class. compare 5 6 holds ln_continuous within the floors; history calls
# no step in it (one run after the change is not three); publish shows
# none. Before: with fewer than 3 runs on a side a step was called (noise
# fixed at 0.10%), and every step was drawn red.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/s.db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/base.ini"
for i in 1 2 3 4 5 6; do "$AB" run "$T/base.ini" --backend cpu --no-progress --label "n-$i" >/dev/null 2>&1; done
sqlite3 "$ABBENCH_DB" "
UPDATE runs SET started_at = printf('2026-11-%02dT02:00:00Z', id), git_commit = printf('c%011d', id * 7919);
UPDATE samples SET wall_ns = wall_ns * 1.25 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id >= 4 AND s.arm = 'b' AND c.name = 'ln_modulate');
UPDATE samples SET wall_ns = wall_ns * 0.88 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id = 6 AND s.arm = 'b' AND c.name = 'ln_continuous');"

expect_exit 0 "compare 3 4" "$AB" compare 3 4
check "compare: ln_modulate slower (+25%)" grep -Eq '^\| `ln_modulate` \|.*\| slower \(\+25\.[0-9]{2}%\) \|' "$T/out"
expect_exit 0 "compare 5 6" "$AB" compare 5 6
check "compare: ln_continuous within the floors (-12%)" \
	grep -Eq '^\| `ln_continuous` \|.*\| no change beyond the floors \(-12\.[0-9]{2}%, within the 15\.00% threshold\) \|' "$T/out"

expect_exit 0 "history" "$AB" history
check "history: one step in all, ln_modulate's +25% at run 4, a regression" \
	test "$(grep -c '^  step: ' "$T/out")" -eq 1 -a \
	"$(grep -Ec '^  step: \+25\.[0-9]{2}% at run 4 \(commit c00000031676, 2026-11-04, label n-4\): .*, a regression$' "$T/out")" -eq 1
check "history: ln_continuous's newest run is an outlier, not a step" grep -Eq '^  6 .* outlier$' "$T/out"

expect_exit 0 "publish" "$AB" publish "$T/site" --no-reports
page="$T/site/index.html"
check "publish: the step, as a regression" \
	grep -Eq '<li class="bad">Step \+25\.[0-9]{2}% at run 4 .*, a regression</li>' "$page"
check "publish: no other step" test "$(grep -c '<li class="[a-z]*">Step ' "$page")" -eq 1
check "publish: one card with the regression's edge" test "$(grep -c '<article class="card step">' "$page")" -eq 1

# an improvement is drawn as one: ln_modulate made faster instead
sqlite3 "$ABBENCH_DB" "UPDATE samples SET wall_ns = wall_ns / 1.25 / 1.25 WHERE slot_id IN (SELECT s.id FROM slots s
	JOIN cases c ON c.id = s.case_id WHERE c.run_id >= 4 AND s.arm = 'b' AND c.name = 'ln_modulate');"
expect_exit 0 "history of the improvement" "$AB" history --case ln_modulate --out "$T/ch"
check "named an improvement" grep -Eq '^  step: -20\.[0-9]{2}% at run 4 .*, an improvement$' "$T/out"
check "drawn green" grep -q 'lc rgb "#2a9d3a" dt 1' "$T"/ch/trend-*ln_modulate.gp
expect_exit 0 "publish the improvement" "$AB" publish "$T/site2" --no-reports --case ln_modulate
check "with the improvement's class and edge" \
	bash -c "grep -q '<li class=\"better\">Step -20' '$T/site2/index.html' && grep -q '<article class=\"card up\">' '$T/site2/index.html'"
finish
