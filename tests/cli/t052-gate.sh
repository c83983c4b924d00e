#!/usr/bin/env bash
# `abbench baseline` and `abbench gate`: the exit status is the contract.
#   0  an A/A pair (two runs of one build and scenario) passes
#   1  a regression planted honestly through the scenario (b = eager
#      against a baseline where b = fused), lost bit-exactness (b = twopass),
#      a case missing from the run
#   2  unknown baseline, different scenario, a run that does not exist, bad
#      options
#
# Timing on a shared CPU is noisy: a whole run can be 30% slower than the
# one before it when another process wakes up (measured on a 2-core VM: an
# A/A false alarm in about one pair of three). The A/A pair gets up to five
# fresh pairs and the planted regression three, as the nightly job
# re-measures before it believes a slowdown. Each attempt measures its own
# baseline: a baseline run that happened to be fast (or slow) would bias
# every later attempt the same way. The verdicts that do not depend on time
# (bit-exactness, missing cases, data errors) get one try.
# The scenario copies ask for 20 samples a slot: with the 3 that smoke.ini
# may stop at, no difference can reach p < 0.01.
. "$(dirname "$0")/lib.sh"
set -e
db="$T/g.db"
export ABBENCH_DB="$db"
sed 's/^min_samples = .*/min_samples = 20/' scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
sed 's/^b = twopass/b = fused/' tests/scenarios/twopass_smoke.ini >"$T/tp_base.ini"
cases=$(grep -c '^\[case ' "$T/base.ini")

run() { "$AB" run "$@" --backend cpu --no-progress >/dev/null 2>"$T/run.err" || { cat "$T/run.err"; return 1; }; }

check "baseline run" run "$T/base.ini" --label base
expect_exit 0 "baseline set" "$AB" baseline set nightly base
check "set prints the pointer" grep -qx "baseline 'nightly' -> run 1" "$T/out"
expect_exit 0 "baseline list" "$AB" baseline list
check "list shows nightly -> run 1, scenario smoke" grep -Eq '^nightly +1 +[0-9TZ:-]+ +smoke +' "$T/out"

expect_exit 0 "a run gated against itself passes" "$AB" gate base --baseline nightly
check "verdict headline PASS" grep -q '^## gate: PASS: run 1 `base` against baseline `nightly` (run 1)$' "$T/out"
check "a row per case" test "$(grep -c '| pass |$' "$T/out")" -eq "$cases"

# A/A: two fresh runs of the same build and scenario, the second gated
# against the first. A new pair per attempt: a baseline run that happened to
# be fast would make every later run look slow.
aa=1
for attempt in 1 2 3 4 5; do
	run "$T/base.ini" --label "aa$attempt-a"
	run "$T/base.ini" --label "aa$attempt-b"
	aa=0
	"$AB" gate "aa$attempt-b" --baseline "aa$attempt-a" >"$T/aa.md" 2>/dev/null || aa=$?
	[ "$aa" -eq 0 ] && break
	echo "    A/A attempt $attempt: exit $aa"
	grep '\*\*' "$T/aa.md" | sed 's/^/      /'
done
check "an A/A pair passes (exit 0, attempt $attempt of 5)" test "$aa" -eq 0

# A planted regression: the B arm runs the eager chain instead of the fused
# kernel, gated against a fresh bit-for-bit baseline run each attempt.
reg=0
for attempt in 1 2 3; do
	run "$T/base.ini" --label "regbase$attempt"
	run "$T/reg.ini" --label "reg$attempt"
	reg=0
	"$AB" gate "reg$attempt" --baseline "regbase$attempt" --failing-cases "$T/failing.txt" --out "$T/reg.md" \
		>"$T/out" 2>"$T/err" || reg=$?
	[ "$reg" -eq 1 ] && break
	echo "    regression attempt $attempt: exit $reg"
done
check "a planted regression fails (exit 1, attempt $attempt of 3)" test "$reg" -eq 1
check "nothing on stdout with --out" test ! -s "$T/out"
check "the verdict says REGRESSED" grep -q '| \*\*REGRESSED\*\*' "$T/reg.md"
check "the headline says FAIL" grep -q '^## gate: FAIL: run ' "$T/reg.md"
check "failing cases: one known case name per line" \
	bash -c "test -s '$T/failing.txt' && ! grep -vxFf <(sed -n 's/^\[case \(.*\)\]$/\1/p' '$T/base.ini') '$T/failing.txt'"
check "every failing case is a REGRESSED row" \
	bash -c "while read -r c; do grep -q \"^| \\\`\$c\\\` |.*REGRESSED\" '$T/reg.md' || exit 1; done <'$T/failing.txt'"
expect_exit 0 "the same run under a 1000% threshold passes" "$AB" gate "reg$attempt" --baseline "regbase$attempt" --max-regression 1000
expect_exit 0 "excluding the failing cases leaves nothing failing" \
	"$AB" gate "reg$attempt" --baseline "regbase$attempt" --exclude-cases "$T/failing.txt" --failing-cases "$T/f2.txt"
check "and no failing cases then" test ! -s "$T/f2.txt"

# Lost bit-exactness: b = twopass, against the same cases with b = fused.
check "bit-exact baseline run" run "$T/tp_base.ini" --quick --label tpbase
check "twopass run" run tests/scenarios/twopass_smoke.ini --quick --label tp
expect_exit 1 "lost bit-exactness fails" "$AB" gate tp --baseline tpbase --failing-cases "$T/f3.txt"
check "verdict LOST BIT-EXACTNESS" grep -q '| \*\*LOST BIT-EXACTNESS\*\*' "$T/out"
check "the cell says what differs" grep -q "| \*\*no\*\*: B 'q\?_\?out' not byte-equal to A1 |" "$T/out"
check "nothing to re-measure for bit-exactness" bash -c "! grep -qx ln_modulate '$T/f3.txt'"

# A case missing from the run.
check "a run of one case" run "$T/base.ini" --label partial --only ln_modulate
expect_exit 1 "a baseline case missing from the run fails" "$AB" gate partial --baseline nightly --max-regression 1000
check "verdict MISSING" test "$(grep -c '| \*\*MISSING from the run\*\* |' "$T/out")" -eq $((cases - 1))
expect_exit 0 "gated --only on its one case it passes" "$AB" gate partial --baseline nightly --only ln_modulate --max-regression 1000
expect_exit 2 "--only a case the baseline lacks" "$AB" gate partial --baseline nightly --only nope --max-regression 1000
{ echo "# the cases this run left out"; echo; sed -n 's/^\[case \(.*\)\]$/\1/p' "$T/base.ini" | grep -vx ln_modulate; } >"$T/others.txt"
expect_exit 0 "--exclude-cases the absent ones (comments and blank lines skipped)" \
	"$AB" gate partial --baseline nightly --exclude-cases "$T/others.txt" --max-regression 1000
printf '%0100d\n' 0 >"$T/long.txt"
expect_exit 2 "an exclude file with a line too long to be a case name" \
	"$AB" gate partial --baseline nightly --exclude-cases "$T/long.txt" --max-regression 1000
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
expect_exit 2 "baseline set on a run that does not exist" "$AB" baseline set x 999
expect_exit 2 "baseline with an unknown action" "$AB" baseline drop nightly
expect_exit 2 "gate on a database that does not exist" "$AB" gate --baseline nightly --db "$T/none.db"
finish
