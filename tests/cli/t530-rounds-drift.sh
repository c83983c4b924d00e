#!/usr/bin/env bash
# Brackets measured in rounds cancel a drift of the machine (issue 33 item
# 1), end to end on the fake timer with a drift planted into it
# (ABBENCH_FAKE_DRIFT, backend_cpu.c): a step of +30% at 0.4 ms of each
# case's modelled time lands inside A1 of a plain A/B/A bracket, whose
# cases are then drifted (not trusted) and the run INCONCLUSIVE; measured in
# 10 interleaved rounds (rounds = 10) every slot sees the step alike, every
# case is trusted and faster, the run's notes say how it was measured, and
# the gate passes it against an undrifted baseline (B/A +-1%) while a real
# regression under the same drift (b = eager) still fails. Bad values of
# rounds, timing and ABBENCH_FAKE_DRIFT are one-line errors, exit 2, and
# nothing is stored. Every verdict comes from the cost model, none from
# this machine's clock.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
cat >"$T/aba.ini" <<'EOF'
[scenario]
name = drifting
backend = cpu
bracket = ABA
seed = 3
warmup = 1
min_samples = 10
max_samples = 40
min_time_ms = 0.001
max_time_ms = 60000
target_noise = 0.0000001
l2_flush = false
[arms]
a = eager
b = fused
[case ln]
site = ln_modulate
shape = 1x16x256
[case gate]
site = residual_gate_add
shape = 1x16x256
EOF
sed 's/^bracket = ABA$/bracket = ABA\nrounds = 10/' "$T/aba.ini" >"$T/rounds.ini"
sed 's/^b = fused$/b = eager/' "$T/rounds.ini" >"$T/slow.ini"

expect_exit 0 "the baseline: rounds, no drift" "$AB" run "$T/rounds.ini" --label base --no-progress
expect_exit 0 "baseline set" "$AB" baseline set nightly base

export ABBENCH_FAKE_DRIFT=step:30@0.4
expect_exit 0 "A/B/A under a step" "$AB" run "$T/aba.ini" --label aba --no-progress
expect_exit 0 "show it" "$AB" show aba
check "both cases drifted by about 30%" test "$(grep -Ec '^  verdict: drifted (29|30)\.[0-9]+% \(not trusted\)$' "$T/out")" = 2
expect_exit 0 "its report" "$AB" report aba --no-plots --out "$T/r-aba"
check "the report's verdict: INCONCLUSIVE" grep -q '^\*\*INCONCLUSIVE\*\*' "$T/r-aba/report.md"

expect_exit 0 "10 rounds under the same step" "$AB" run "$T/rounds.ini" --label rounds --no-progress
expect_exit 0 "show it" "$AB" show rounds
check "both cases trusted: faster" test "$(grep -c '^  verdict: faster$' "$T/out")" = 2
check "drift A under 1% in both" test "$(grep -Ec 'drift A 0\.[0-9]+%$' "$T/out")" = 2
check "the notes say how the brackets were measured" grep -q '^notes: bracket ABA measured in up to 10 interleaved rounds$' "$T/out"
check "every slot 40 samples" test "$(grep -Ec '^  (A1|B |A2) .* 40 ' "$T/out")" = 6
expect_exit 0 "its report" "$AB" report rounds --no-plots --out "$T/r-rounds"
check "the report's verdict: FASTER" grep -q '^\*\*FASTER\*\*: B `fused` vs A `eager`: faster in 2 of 2 cases' \
	"$T/r-rounds/report.md"
expect_exit 0 "the gate passes the drifted rounds against the undrifted baseline" "$AB" gate rounds \
	--baseline nightly --format json --out "$T/g.json"
check "its B/A changes within 1%" python3 - "$T/g.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(abs(c["change"]) < 0.01 for c in d["cases"]), [c["change"] for c in d["cases"]]
PY
expect_exit 0 "a real regression under the same drift: b = eager" "$AB" run "$T/slow.ini" --label slow --no-progress
expect_exit 1 "the gate fails it" "$AB" gate slow --baseline nightly
check "both cases regressed" test "$(grep -c 'REGRESSED' "$T/out")" -ge 2

count_runs() { sqlite3 "$ABBENCH_DB" 'SELECT count(*) FROM runs'; }
if command -v sqlite3 >/dev/null; then before=$(count_runs); else before=; fi
for bad in linear:5 wave:5@1 step:5@0; do
	expect_exit 2 "ABBENCH_FAKE_DRIFT=$bad refused" env ABBENCH_FAKE_DRIFT="$bad" "$AB" run "$T/rounds.ini" --no-progress
	check "  says what it takes" grep -q "ABBENCH_FAKE_DRIFT='$bad' is not linear:PCT@MS or step:PCT@MS" "$T/err"
done
expect_exit 2 "a drift without the fake timer refused" env -u ABBENCH_FAKE_TIMER "$AB" run "$T/rounds.ini" --no-progress
check "  says so" grep -q 'set ABBENCH_FAKE_TIMER=1 too' "$T/err"
unset ABBENCH_FAKE_DRIFT
sed 's/^rounds = 10$/rounds = 0/' "$T/rounds.ini" >"$T/zero.ini"
expect_exit 2 "rounds = 0 refused" "$AB" run "$T/zero.ini" --no-progress
check "  at its line" grep -q 'zero.ini:5: rounds' "$T/err"
sed 's/^rounds = 10$/rounds = 1001/' "$T/rounds.ini" >"$T/many.ini"
expect_exit 2 "rounds = 1001 refused" "$AB" run "$T/many.ini" --no-progress
sed 's/^rounds = 10$/timing = wall/' "$T/rounds.ini" >"$T/timing.ini"
expect_exit 2 "timing = wall refused" "$AB" run "$T/timing.ini" --no-progress
check "  naming cpu among the words it takes" grep -q "cpu" "$T/err"
[ -z "$before" ] || check "nothing stored by the refused runs" test "$(count_runs)" = "$before"

# timing = cpu: the process's CPU clock (under the fake timer the model
# still decides; the run records the timing)
sed 's/^rounds = 10$/timing = cpu/' "$T/rounds.ini" >"$T/cpu.ini"
expect_exit 0 "timing = cpu runs on the cpu backend" "$AB" run "$T/cpu.ini" --label cpu --no-progress
expect_exit 0 "its JSON" "$AB" show cpu --format json
check "records timing cpu" python3 -c "import json, sys; assert json.load(open('$T/out'))['run']['timing'] == 'cpu'"
check "  a valid abbench.show (docs/JSON.md)" python3 tests/tools/json_check.py docs/JSON.md abbench.show "$T/out"
finish
