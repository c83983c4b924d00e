#!/usr/bin/env bash
# A gate that never passes on too little evidence (exit 4, INCONCLUSIVE):
#   - a planted 4x regression (b = eager against a baseline where b = fused)
#     measured with --quick: before, the gate passed it with exit 0 ("too
#     few samples to call it"); now INCONCLUSIVE, exit 4;
#   - an A/A pair of --quick runs: INCONCLUSIVE too, never PASS;
#   - the same pair with enough samples (20 a slot) passes, exit 0;
#   - run --only is recorded in the run (list and show say so) and the gate
#     calls the run partial, naming the cases it lacks;
#   - scripts/nightly.sh --init sets the baseline on the first night instead
#     of failing, then gates the next night against it; a --quick night is
#     INCONCLUSIVE (exit 4).
# Fake timer (ABBENCH_FAKE_TIMER=1): the same samples on any machine.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH="$AB" ABBENCH_DB="$T/g.db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
cases=$(grep -c '^\[case ' "$T/base.ini")
run() { "$AB" run "$@" --backend cpu --no-progress >/dev/null 2>"$T/run.err" || { cat "$T/run.err"; return 1; }; }

check "quick baseline" run "$T/base.ini" --quick --label qbase
check "quick planted regression" run "$T/reg.ini" --quick --label qreg
expect_exit 4 "a 4x regression under --quick is INCONCLUSIVE, not a pass" "$AB" gate qreg --baseline qbase
check "headline INCONCLUSIVE" grep -q '^## gate: INCONCLUSIVE: run 2 `qreg` against baseline run 1$' "$T/out"
check "it says the run was made with --quick" grep -q 'run 2 was made with `--quick`' "$T/out"
check "and that the baseline was too" grep -q 'the baseline, run 1, was made with `--quick`' "$T/out"
check "no case passes" bash -c "! grep -q '| pass' '$T/out'"
check "every case INCONCLUSIVE" test "$(grep -c '| INCONCLUSIVE (' "$T/out")" -eq "$cases"
check "the table comes before the rule" \
	test "$(grep -n '^| case |' "$T/out" | cut -d: -f1)" -lt "$(grep -n '^Each case.s B arm is judged' "$T/out" | cut -d: -f1)"
expect_exit 4 "an A/A pair of --quick runs is INCONCLUSIVE too" "$AB" gate qbase --baseline qbase

check "full baseline" run "$T/base.ini" --label base
check "full A/A run" run "$T/base.ini" --label aa
expect_exit 0 "with 20 samples a slot the A/A pair passes" "$AB" gate aa --baseline base
check "planted regression, 20 samples" run "$T/reg.ini" --label reg
expect_exit 1 "and the planted regression fails" "$AB" gate reg --baseline base
check "a --quick run of the regression against a full baseline" run "$T/reg.ini" --quick --label qreg2
# 3 samples are 3 blocks of the block bootstrap (analysis/blockboot.h) and
# 20 are 7: no p under 0.023 is within their reach, so even a 4x
# regression is not called on them: INCONCLUSIVE, never a pass.
expect_exit 4 "a regression on 3 samples against 20 is inconclusive (its p cannot reach 0.01)" "$AB" gate qreg2 --baseline base

# --only is recorded.
check "a partial run" run "$T/base.ini" --only qk_layernorm --label part
expect_exit 0 "list" "$AB" list
check "list marks it partial" grep -Eq '^[0-9]+ .* part +.* only qk_layernorm ' "$T/out"
expect_exit 0 "show" "$AB" show part
check "show says which case it was restricted to" grep -q 'only qk_layernorm' "$T/out"
check "the database holds it" test "$(sqlite3 "$ABBENCH_DB" "SELECT only_cases FROM runs WHERE label = 'part'")" = qk_layernorm
expect_exit 4 "gated whole, a partial run is INCONCLUSIVE" "$AB" gate part --baseline base
check "partial, naming what it lacks" grep -q 'is \*\*partial\*\* (`run --only qk_layernorm`): it lacks 4 of the baseline.s cases (`ln_modulate`, `ln_modulate_short`, `ln_continuous`, `residual_gate_add`)' "$T/out"
expect_exit 0 "gated on its case it passes" "$AB" gate part --baseline base --only qk_layernorm

# nightly --init: the first night sets the baseline.
export ABBENCH_DB="$T/n.db"
expect_exit 0 "the first night with --init sets the baseline" \
	env NIGHTLY_OUT="$T/n1" scripts/nightly.sh --init "$T/base.ini" nightly --backend cpu --no-progress
check "it says so" grep -q '^nightly: BASELINE SET: no baseline .nightly. yet: .nightly-.*. is now it; nothing gated$' "$T/err"
check "no gate ran" test ! -e "$T/n1/gate.md"
check "its report is written" test -s "$T/n1/report/report.md"
expect_exit 0 "baseline show names the run" "$AB" baseline show nightly
check "run 1" grep -qx "baseline 'nightly' -> run 1" "$T/out"
expect_exit 0 "the second night with --init gates against it and passes" \
	env NIGHTLY_OUT="$T/n2" scripts/nightly.sh --init "$T/base.ini" nightly --backend cpu --no-progress
check "its verdict is PASS" grep -q '^## gate: PASS: ' "$T/n2/gate.md"
expect_exit 0 "the baseline did not move" "$AB" baseline show nightly
check "still run 1" grep -qx "baseline 'nightly' -> run 1" "$T/out"
expect_exit 4 "a --quick night is INCONCLUSIVE" \
	env NIGHTLY_OUT="$T/n3" scripts/nightly.sh "$T/base.ini" nightly --backend cpu --no-progress --quick
check "the night says inconclusive" grep -q '^nightly: INCONCLUSIVE: .* (a --quick run or baseline cannot pass)$' "$T/err"
expect_exit 2 "without --init a missing baseline is still a data error" \
	env NIGHTLY_OUT="$T/n4" scripts/nightly.sh "$T/base.ini" other --backend cpu --no-progress
expect_exit 2 "baseline show of an unknown name" "$AB" baseline show other
check "names it" grep -q "no baseline 'other'" "$T/err"
finish
