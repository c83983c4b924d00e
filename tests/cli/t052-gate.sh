#!/usr/bin/env bash
# `abbench baseline` and `abbench gate`: the exit status is the contract.
#   0  an A/A pair (two runs of one build and scenario) passes
#   1  a regression planted honestly through the scenario (b = eager
#      against a baseline where b = fused), lost bit-exactness (b = twopass),
#      a case missing from the run
# The time verdict is B relative to its own run's A arm (harness/analysis/gate.h):
# a run whose samples, both arms, are all 25% slower passes; a baseline with
# another A variant makes the gate fall back to raw B times and say so.
# A change must also exceed an absolute floor in ns (the CPU profile's
# gate_min_change_ns, 250 ns, or --min-change-ns): the planted regressions
# here are 4.0-12.1 us, far above it; --min-change-ns between them fails
# exactly the cases whose csv B medians moved by more.
#   2  unknown baseline, different scenario or device, a run that does not
#      exist, bad options
#
# Every run here uses the CPU backend's fake timer (ABBENCH_FAKE_TIMER=1,
# see harness/backend/backend_cpu.c): the steps still compute their outputs, but a
# step's time is a cost model of its size with seeded noise keyed by the
# sample id. Two runs of one scenario give the same samples, and the eager
# chain of a case (2 or 4 steps in smoke.ini) costs 2x or 4x the one fused
# step on any machine, so each verdict is asserted once. How often the gate
# false-alarms on real timing is a benchmark, not a test:
# scripts/aa_check.sh.
# The scenario copies take exactly 20 samples a slot (min = max = 20, a time
# limit no slow build reaches): 3 against 3 samples, which smoke.ini may stop
# at, can never reach p < 0.01 (checked below).
. "$(dirname "$0")/lib.sh"
set -e
db="$T/g.db"
export ABBENCH_DB="$db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
sed 's/^max_samples = .*/max_samples = 3/; s/^min_samples = .*/min_samples = 3/' "$T/base.ini" >"$T/base3.ini"
sed 's/^b = fused/b = eager/' "$T/base3.ini" >"$T/reg3.ini"
sed 's/^a = eager/a = fused/' "$T/base.ini" >"$T/ff.ini"
sed 's/^b = twopass/b = fused/' tests/scenarios/twopass_smoke.ini >"$T/tp_base.ini"
sed -n 's/^\[case \(.*\)\]$/\1/p' "$T/base.ini" >"$T/cases.txt"
cases=$(wc -l <"$T/cases.txt")

run() { "$AB" run "$@" --backend cpu --no-progress >/dev/null 2>"$T/run.err" || { cat "$T/run.err"; return 1; }; }
# CASE,MEDIAN_NS of the B slot of a run, sorted by case
b_medians() { "$AB" export "$1" --csv - | awk -F, '$6 == "B" { print $1 "," $8 }' | sort; }

check "baseline run" run "$T/base.ini" --label base
expect_exit 0 "baseline set" "$AB" baseline set nightly base
check "set prints the pointer" grep -qx "baseline 'nightly' -> run 1" "$T/out"
expect_exit 0 "baseline list" "$AB" baseline list
check "list shows nightly -> run 1, scenario smoke" grep -Eq '^nightly +1 +[0-9TZ:-]+ +smoke +' "$T/out"

expect_exit 0 "a run gated against itself passes" "$AB" gate base --baseline nightly
check "verdict headline PASS" grep -q '^## gate: PASS: run 1 `base` against baseline `nightly` (run 1)$' "$T/out"
check "a row per case" test "$(grep -c '| pass |$' "$T/out")" -eq "$cases"
check "the device names the fake timer" grep -q '^Scenario `smoke`, device CPU fake timer' "$T/out"

# A/A: a second run of the same build and scenario, gated against the first.
check "A/A run" run "$T/base.ini" --label aa
check "the fake timer gives the A/A run the baseline's samples" \
	bash -c "cmp -s <('$AB' export base --csv - | cut -d, -f1-10) <('$AB' export aa --csv - | cut -d, -f1-10)"
expect_exit 0 "an A/A pair passes" "$AB" gate aa --baseline base
check "A/A: every case passes with a change of +0.00%" \
	test "$(grep -c '| +0.00% \[.*| pass |$' "$T/out")" -eq "$cases"

# A planted regression: the B arm runs the eager chain instead of the fused
# kernel (20 samples a side, 7 blocks of the block bootstrap: p ~ 0.002).
check "regression run" run "$T/reg.ini" --label reg
expect_exit 1 "a planted regression fails" \
	"$AB" gate reg --baseline base --failing-cases "$T/failing.txt" --out "$T/reg.md"
check "nothing on stdout with --out" test ! -s "$T/out"
check "the headline says FAIL" grep -q '^## gate: FAIL: run ' "$T/reg.md"
check "every case is REGRESSED (every eager chain has 2 or more steps)" \
	test "$(grep -c '| \*\*REGRESSED\*\* |$' "$T/reg.md")" -eq "$cases"
check "ln_modulate is +300% +-4 (4 eager steps against 1 fused)" \
	grep -Eq '^\| `ln_modulate` \|.*\| \+(29[6-9]|30[0-4])\.[0-9]+% \[' "$T/reg.md"
check "failing cases: every case of the scenario, one per line, in its order" cmp -s "$T/cases.txt" "$T/failing.txt"
check "the rule names the absolute floor and its source" \
	grep -q "exceeds the absolute floor of 0.250 us (device profile 'CPU backend'), with p < 0.01" "$T/reg.md"
check "the table shows each change in us under the floor used" \
	grep -q '| noise floor | change in us (floor 0.250) | p (block bootstrap) |' "$T/reg.md"
check "ln_modulate moved +12.1 us (3 of its 4 eager steps of 2 us + 0.5 ns x 4096 elements)" \
	grep -Eq '^\| `ln_modulate` \|.*\| \+12\.1[0-9]{2} \| [0-9.]+e-0[3-9] \| yes \| \*\*REGRESSED\*\* \|$' "$T/reg.md"
expect_exit 0 "the same run under a 1000% threshold passes" "$AB" gate reg --baseline base --max-regression 1000
expect_exit 0 "excluding the failing cases leaves nothing failing" \
	"$AB" gate reg --baseline base --exclude-cases "$T/failing.txt" --failing-cases "$T/f2.txt"
check "and no failing cases then" test ! -s "$T/f2.txt"

# The threshold is per case: at 200% only the cases whose B median more than
# tripled fail; which ones is read independently from the csv export.
join -t, <(b_medians base) <(b_medians reg) | awk -F, '$3 / $2 - 1 > 2 && $3 - $2 > 250 { print $1 }' | sort >"$T/want200.txt"
expect_exit 1 "a 200% threshold fails some cases" \
	"$AB" gate reg --baseline base --max-regression 200 --failing-cases "$T/f200.txt"
check "the ones whose csv B median more than tripled ($(paste -sd' ' "$T/want200.txt"))" \
	bash -c "test -s '$T/want200.txt' && test \$(wc -l <'$T/want200.txt') -lt $cases && cmp -s '$T/want200.txt' <(sort '$T/f200.txt')"
check "the threshold from the option, the floor still from the profile" \
	grep -q "exceeds 200.00% (--max-regression) and the noise floor, .* absolute floor of 0.250 us (device profile 'CPU backend')" "$T/out"

# The absolute floor is per case too: at 5 us only the cases whose B median
# moved by more than 5000 ns fail (read from the csv export); at 1 s none.
join -t, <(b_medians base) <(b_medians reg) | awk -F, '$3 - $2 > 5000 { print $1 }' | sort >"$T/want5us.txt"
expect_exit 1 "--min-change-ns 5000 fails some cases" \
	"$AB" gate reg --baseline base --min-change-ns 5000 --failing-cases "$T/f5us.txt"
check "the ones whose csv B median moved by more than 5 us ($(paste -sd' ' "$T/want5us.txt"))" \
	bash -c "test -s '$T/want5us.txt' && test \$(wc -l <'$T/want5us.txt') -lt $cases && cmp -s '$T/want5us.txt' <(sort '$T/f5us.txt')"
check "the floor's source is the option" grep -q "absolute floor of 5.000 us (--min-change-ns)" "$T/out"
check "the others say they are within it" \
	test "$(grep -c '| pass (slower beyond the threshold, by 4\.0[0-9]* us, within the absolute floor of 5\.000 us) |$' "$T/out")" -eq $((cases - $(wc -l <"$T/want5us.txt")))
expect_exit 0 "--min-change-ns 1e9: nothing moved by a second" "$AB" gate reg --baseline base --min-change-ns 1e9
expect_exit 1 "--min-change-ns 0: no absolute floor, every case fails" "$AB" gate reg --baseline base --min-change-ns 0
check "every case REGRESSED" test "$(grep -c '| \*\*REGRESSED\*\* |$' "$T/out")" -eq "$cases"

# 3 samples a side: even a 4x slowdown cannot reach p < 0.01.
check "run of 3 samples a slot, b = fused" run "$T/base3.ini" --label base3
check "run of 3 samples a slot, b = eager" run "$T/reg3.ini" --label reg3
expect_exit 4 "a 4x slowdown on 3 against 3 samples is INCONCLUSIVE, never a pass" "$AB" gate reg3 --baseline base3
check "each case marked too few samples to call it" \
	test "$(grep -c '| INCONCLUSIVE (slower beyond the threshold, too few samples to call it; too few samples: baseline A1 has 3, the gate needs 10 a slot) |$' "$T/out")" -eq "$cases"
check "the headline says INCONCLUSIVE" grep -q '^## gate: INCONCLUSIVE: run ' "$T/out"
check "stderr says so" grep -q '^gate: INCONCLUSIVE (0 of 5 cases failed, 5 inconclusive, 0 not measured)$' "$T/err"
expect_exit 0 "--min-samples 3 accepts them (the old rule: a pass)" "$AB" gate reg3 --baseline base3 --min-samples 3

# The A arm's variant differs (a = b = eager against a = b = fused): dividing
# by median(A) would compare different kernels, so the gate falls back to raw
# B times, fails on them and says so.
check "run with a = b = fused" run "$T/ff.ini" --label ff
expect_exit 1 "a different A arm: judged on raw B times, fails" "$AB" gate reg --baseline ff
check "the verdict names the fallback and both A variants" grep -Eq '^\| `ln_modulate` \|.*\| \+(29[6-9]|30[0-4])\.[0-9]+% \[.*\| n/a \(A arm differs\) \|.*\*\*REGRESSED\*\*; judged on raw B times: the A arm is `fused` in the baseline, `eager` in the run \|$' "$T/out"
check "the headline names both A arms" grep -q '^Scenario `smoke`, .*, A arm `eager` (baseline: `fused`), B arm `eager` (baseline: `fused`)\.$' "$T/out"
check "the tally counts the fallbacks" grep -qx "$cases cases were judged on raw B times: the A arm differs between the runs, so normalising by it would compare different kernels." "$T/out"
expect_exit 0 "the same B arm with a different A arm passes on raw B times" "$AB" gate ff --baseline base
check "every case says so" test "$(grep -c '| pass; judged on raw B times: the A arm is `eager` in the baseline, `fused` in the run |$' "$T/out")" -eq "$cases"

# The whole machine 25% slower (every sample of a copy of the baseline, both
# arms, scaled in the database): the raw B change is +25%, beyond the CPU
# profile's 15%, but B against its own A arm did not move, so the gate
# passes and says the machine may have changed. Needs the sqlite3 shell.
if command -v sqlite3 >/dev/null; then
	check "a run to slow down" run "$T/base.ini" --label slow
	check "every sample and slot statistic of it scaled by 1.25" sqlite3 "$db" "
		UPDATE samples SET wall_ns = wall_ns * 1.25 WHERE slot_id IN (SELECT s.id FROM slots s
			JOIN cases c ON s.case_id = c.id JOIN runs r ON c.run_id = r.id WHERE r.label = 'slow');
		UPDATE slots SET median_ns = median_ns * 1.25, p10_ns = p10_ns * 1.25, p90_ns = p90_ns * 1.25,
			min_ns = min_ns * 1.25, max_ns = max_ns * 1.25, mean_ns = mean_ns * 1.25 WHERE case_id IN
			(SELECT c.id FROM cases c JOIN runs r ON c.run_id = r.id WHERE r.label = 'slow');"
	expect_exit 0 "both arms 25% slower: B against its A did not move, passes" "$AB" gate slow --baseline base
	# (B/A is 0 to the last bit or two of the products: +0.00% or -0.00%)
	check "raw +25.00%, B/A 0.00%, the A arm moved +25.00% too" test "$(grep -Ec '\| \+25\.00% \[.*\| [+-]0\.00% \[.*\| pass; the A arm moved \+25\.00% too: the machine may have changed \|$' "$T/out")" -eq "$cases"
	expect_exit 1 "the same run judged on raw B times fails (the old rule's false alarm)" "$AB" gate slow --baseline ff
else
	ok "machine slowdown through the database skipped: no sqlite3 shell"
fi

# A fake-timed run is never gated against a real one: the device differs.
check "a real-timer run" env -u ABBENCH_FAKE_TIMER bash -c '"$0" run "$1" --backend cpu --quick --label real --no-progress >/dev/null' "$AB" "$T/base.ini"
expect_exit 2 "gating it against the fake-timed baseline is a data error" "$AB" gate real --baseline base
check "the message names both devices" grep -q "ran on 'CPU .*', the baseline (run 1) on 'CPU fake timer (ABBENCH_FAKE_TIMER=1)'" "$T/err"

# Lost bit-exactness: b = twopass, against the same cases with b = fused.
check "bit-exact baseline run" run "$T/tp_base.ini" --quick --label tpbase
check "twopass run" run tests/scenarios/twopass_smoke.ini --quick --label tp
expect_exit 1 "lost bit-exactness fails" "$AB" gate tp --baseline tpbase --failing-cases "$T/f3.txt"
check "verdict LOST BIT-EXACTNESS" grep -q '| \*\*LOST BIT-EXACTNESS\*\*' "$T/out"
check "the cell says what differs: how many elements, their %, the largest ULP" \
	grep -q "| \*\*no\*\*: B 'q\?_\?out' not byte-equal to A1: [0-9]* of [0-9]* elements ([0-9.]*%), max [0-9]* ULP |" "$T/out"
check "nothing to re-measure for bit-exactness" bash -c "! grep -qx ln_modulate '$T/f3.txt'"

# A partial run (run --only, recorded in the run): the other cases are not
# measured, the gate is INCONCLUSIVE and names them.
check "a run of one case" run "$T/base.ini" --label partial --only ln_modulate
expect_exit 4 "a partial run gated on every case is INCONCLUSIVE" "$AB" gate partial --baseline nightly
check "verdict: not measured" test "$(grep -c '| not measured (partial run) |$' "$T/out")" -eq $((cases - 1))
check "the headline says which cases it lacks" \
	grep -q "^Run [0-9]* is \*\*partial\*\* (\`run --only ln_modulate\`): it lacks $((cases - 1)) of the baseline's cases (\`ln_modulate_short\`, " "$T/out"
# A case missing from a run of the whole scenario fails.
awk '/^\[case ln_continuous\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip' "$T/base.ini" >"$T/fewer.ini"
check "a run of the scenario without ln_continuous" run "$T/fewer.ini" --label fewer
expect_exit 1 "a baseline case missing from the run fails" "$AB" gate fewer --baseline nightly
check "verdict MISSING" test "$(grep -c '| \*\*MISSING from the run\*\* |' "$T/out")" -eq 1
expect_exit 0 "gated --only on its one case it passes" "$AB" gate partial --baseline nightly --only ln_modulate
expect_exit 2 "--only a case the baseline lacks" "$AB" gate partial --baseline nightly --only nope
{ echo "# the cases this run left out"; echo; grep -vx ln_modulate "$T/cases.txt"; } >"$T/others.txt"
expect_exit 0 "--exclude-cases the absent ones (comments and blank lines skipped)" \
	"$AB" gate partial --baseline nightly --exclude-cases "$T/others.txt"
printf '%0100d\n' 0 >"$T/long.txt"
expect_exit 2 "an exclude file with a line too long to be a case name" \
	"$AB" gate partial --baseline nightly --exclude-cases "$T/long.txt"
check "its message names file:line" grep -q "long.txt:1: case name too long" "$T/err"

# Data and usage errors: exit 2, never a verdict.
expect_exit 2 "unknown baseline" "$AB" gate base --baseline nosuch
check "message names it" grep -q "no baseline or run 'nosuch'" "$T/err"
check "other scenario run" run scenarios/aa_smoke.ini --quick --label other
expect_exit 2 "different scenario" "$AB" gate other --baseline nightly
check "message names both scenarios" grep -q "measured scenario 'aa_smoke', the baseline (run 1) 'smoke'" "$T/err"
expect_exit 2 "run id that does not exist" "$AB" gate 999 --baseline nightly
expect_exit 2 "baseline run id that does not exist" "$AB" gate base --baseline 999
expect_exit 2 "no --baseline" "$AB" gate base
expect_exit 2 "negative threshold" "$AB" gate base --baseline nightly --max-regression -5
expect_exit 2 "negative absolute floor" "$AB" gate base --baseline nightly --min-change-ns -1
check "which it names" grep -q "gate: --min-change-ns must be 0 or more nanoseconds, not -1" "$T/err"
expect_exit 2 "an absolute floor that is not a number" "$AB" gate base --baseline nightly --min-change-ns 1us
expect_exit 2 "baseline set on a run that does not exist" "$AB" baseline set x 999
expect_exit 2 "baseline with an unknown action" "$AB" baseline drop nightly
expect_exit 2 "gate on a database that does not exist" "$AB" gate --baseline nightly --db "$T/none.db"
finish
