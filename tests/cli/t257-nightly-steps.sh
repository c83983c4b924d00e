#!/usr/bin/env bash
# scripts/nightly.sh's steps apart (--step gate, recheck, verdict), as the
# GitHub workflow runs them on different machines, on the CPU backend's
# fake timer: a slowdown that the second measurement clears passes (the
# recheck measured with the good build: the first night was "noise"); a
# second measurement too thin to pass (--quick) is INCONCLUSIVE; slower
# cases never measured again are exit 3; lost bit-exactness beside slower
# cases fails whatever the second measurement says, the slower ones still
# measured again in one run; --init sets the baseline on the first night
# and gates on the next; bad step usage is exit 2. Each summary line is
# checked word for word.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH="$AB" ABBENCH_DB="$T/n.db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
n=$(grep -c '^\[case ' "$T/base.ini")
"$AB" run "$T/base.ini" --backend cpu --label main --no-progress >/dev/null 2>&1
"$AB" baseline set nightly main >/dev/null
"$AB" run "$T/reg.ini" --backend cpu --label slow --no-progress >/dev/null 2>&1
step() { # OUT-DIR STEP ARGS...
	local dir=$1
	shift
	env NIGHTLY_OUT="$T/$dir" scripts/nightly.sh --step "$@"
}
first="$n cases of 'slow' against baseline 'nightly': $n slower"

expect_exit 0 "gate step on a slower run" step s1 gate slow nightly
check "it lists the $n slower cases" test "$(grep -c . "$T/s1/failing-cases.txt")" -eq "$n"
check "and says so" grep -qx "nightly: 'slow' against baseline 'nightly': $n cases: $n slower" "$T/err"
check "its state: the run, the baseline, the recheck label, the first verdict" \
	test "$(cat "$T/s1/state")" = "$(printf 'run slow\nbaseline nightly\nrecheck slow-recheck\nfirst 1')"
expect_exit 0 "recheck step, measured with the good build" step s1 recheck "$T/base.ini" --backend cpu --no-progress
check "one run, slow-recheck" test "$("$AB" list --rechecks --label slow-recheck 2>/dev/null | tail -n +2 | grep -c .)" -eq 1
expect_exit 0 "verdict step: the slowdown did not come back, the night passes" step s1 verdict
check "each case cleared" test "$(grep -c "not confirmed: the first measurement was noise" "$T/err")" -eq "$n"
check "the summary line" test "$(tail -n 1 "$T/err")" = \
	"nightly: PASS: $first; measured again in one run ('slow-recheck'): 0 confirmed slower, $n cleared, 0 inconclusive"

expect_exit 0 "gate step again" step s2 gate slow nightly
expect_exit 0 "recheck with --quick (too few samples to pass)" step s2 recheck "$T/base.ini" --backend cpu --quick --no-progress
expect_exit 4 "verdict: a second measurement too thin to pass is INCONCLUSIVE" step s2 verdict
check "the summary line" test "$(tail -n 1 "$T/err")" = \
	"nightly: INCONCLUSIVE: $first; measured again in one run ('slow-recheck.2'): 0 confirmed slower, 0 cleared, $n inconclusive"

expect_exit 0 "gate step, then no recheck" step s3 gate slow nightly
expect_exit 3 "verdict: slower cases never measured again are a failure" step s3 verdict
check "which it says" grep -q "the slower cases were never measured again: no run 'slow-recheck.3' (run --step recheck)" "$T/err"

# Lost bit-exactness beside slower cases: b = twopass (slower under the
# fake timer, and not byte-equal on these inputs) against b = fused.
sed 's/^max_samples = .*/max_samples = 20/; s/^min_samples = .*/min_samples = 20/' tests/scenarios/twopass_smoke.ini >"$T/tp.ini"
sed 's/^b = twopass/b = fused/' "$T/tp.ini" >"$T/tp_base.ini"
"$AB" run "$T/tp_base.ini" --backend cpu --label tpbase --no-progress >/dev/null 2>&1
"$AB" run "$T/tp.ini" --backend cpu --label tp --no-progress >/dev/null 2>&1
expect_exit 0 "gate step on a run that lost bytes and time" step t gate tp tpbase
lost=$("$AB" gate tp --baseline tpbase --json 2>/dev/null | grep -c '"verdict": "lost_exact"' || true)
slower=$(grep -c . "$T/t/failing-cases.txt" || true)
check "some cases slower ($slower), some not bit-exact ($lost)" test "$slower" -ge 1 -a "$lost" -ge 1
expect_exit 0 "recheck step: the slower ones again" step t recheck "$T/tp.ini" --backend cpu --no-progress
expect_exit 1 "verdict: lost bit-exactness fails the night" step t verdict
check "the summary names both" grep -qx \
	"nightly: FAIL: 2 cases of 'tp' against baseline 'tpbase': .*$slower slower, $lost lost bit-exactness; measured again in one run ('tp-recheck'): $slower confirmed slower, 0 cleared, 0 inconclusive" "$T/err"

# --init: the first night sets the baseline, the next one gates.
expect_exit 0 "--init gate step with no baseline 'first'" env NIGHTLY_OUT="$T/i" scripts/nightly.sh --init --step gate main first
expect_exit 0 "its verdict" step i verdict
check "the summary line" test "$(tail -n 1 "$T/err")" = "nightly: BASELINE SET: no baseline 'first' yet: 'main' is now it; nothing gated"
expect_exit 0 "baseline 'first' exists" "$AB" baseline show first
expect_exit 0 "--init the next night: a gate like any other" env NIGHTLY_OUT="$T/i2" scripts/nightly.sh --init --step gate slow first
check "that gates" test "$(sed -n 's/^first //p' "$T/i2/state")" = 1
expect_exit 0 "whole-night --init on a new database" env ABBENCH_DB="$T/new.db" NIGHTLY_OUT="$T/i3" \
	scripts/nightly.sh --init "$T/base.ini" nightly --backend cpu --no-progress
check "says the baseline is set" grep -q "^nightly: BASELINE SET: no baseline 'nightly' yet: 'nightly-.*' is now it; nothing gated$" "$T/err"

expect_exit 2 "--step without NIGHTLY_OUT" scripts/nightly.sh --step verdict
expect_exit 2 "--step gate wants RUN and BASELINE" step u gate slow
expect_exit 2 "an unknown step" step u judge
check "which it names" grep -q "unknown step 'judge'" "$T/err"
expect_exit 2 "--step recheck before --step gate" step u recheck "$T/base.ini"
check "which it says" grep -q "run --step gate first" "$T/err"
finish
