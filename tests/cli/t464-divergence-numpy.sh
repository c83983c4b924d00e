#!/usr/bin/env bash
# The GPU script's machinery on the CPU (issue 29's closing note):
# scripts/gpu/divergence.sh cpu runs scenarios/divergence_cpu.ini with
# --dump and --require-exact (exit 1 expected), writes each case's diff as
# text, markdown with heatmaps and JSON, and checks every figure against
# scripts/divergence_check.py's independent numpy computation from the
# .npy files: its table agrees (17 of 17 figures per tensor). The checker
# on the planted arms of every dtype (NaN, sign flips, f16, f32), and on a
# document with one figure changed: it disagrees, exit 1. Fake timer;
# Debian's python3 (numpy).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1
PY=/usr/bin/python3
expect_exit 0 "scripts/gpu/divergence.sh cpu" env OUT="$T/gpu" PYTHON=$PY scripts/gpu/divergence.sh cpu
check "--require-exact said 1 for the inexact cases" grep -q "^require-exact cpu: exit 1 (expected 1)$" "$T/out"
check "every figure of both cases agrees with numpy" \
	test "$(grep -c '^divergence_check: .*: every figure agrees with numpy$' "$T/out")" -eq 2
check "the table last: the two-pass LayerNorm's mean, out, rstd and the modulate's out, 17 of 17 each" \
	test "$(tail -4 "$T/out" | awk '$NF == "17/17" { print $1 ":" $2 }' | tr '\n' ' ')" = \
	"ln_twopass:mean ln_twopass:out ln_twopass:rstd mss_inexact:out "
check "a heatmap per differing tensor beside each diff.md" \
	test -s "$T/gpu/diff-ln_twopass/heatmap-B-rstd.png" -a -s "$T/gpu/diff-mss_inexact/heatmap-B-out.png" -a \
	-s "$T/gpu/diff-mss_inexact/diff.md"
check "the log holds the text diffs" grep -q "^B (mss_inexact): not byte-equal to the first A slot$" "$T/gpu/divergence.log"

db="$T/p.db"
plant_scenario "$T/p.ini"
expect_exit 0 "the planted arms, dumped" "$AB" run "$T/p.ini" --db "$db" --no-progress --dump "$T/dump"
n=0
for D in $PLANT_DTYPES; do
	for c in ulp1 sign nan rstd; do
		"$AB" diff last "${c}_$D" --db "$db" --format json --out "$T/$c$D.json"
		if $PY scripts/divergence_check.py "$T/dump/${c}_$D" "$T/$c$D.json" >"$T/chk" 2>&1 &&
			grep -q "every figure agrees" "$T/chk"; then n=$((n + 1)); else sed 's/^/    /' "$T/chk"; fi
	done
done
check "numpy agrees with every planted case of every dtype (12)" test "$n" -eq 12
$PY scripts/divergence_check.py "$T/dump/rstd_f32" "$T/rstdf32.json" >"$T/chk" 2>&1
check "and checked the byte-equal intermediates too (rstd_f32: mean and out byte-equal, rstd 17/17)" \
	test "$(grep -Ec '^rstd_f32 +(mean|out) .*byte-equal +1/1 *$|^rstd_f32 +rstd .* 17/17 *$' "$T/chk")" -eq 3
$PY -c "
import json, sys
d = json.load(open('$T/ulp1bf16.json'))
d['slots'][0]['tensors'][-1]['max_ulp']['ulp'] = 2
json.dump(d, open('$T/bad.json', 'w'))"
check "the tampered document differs from the real one" bash -c "! cmp -s '$T/bad.json' '$T/ulp1bf16.json'"
expect_exit 1 "a document whose max ULP was changed" $PY scripts/divergence_check.py "$T/dump/ulp1_bf16" "$T/bad.json"
check "the checker names the figure" grep -q "^divergence_check: ulp1_bf16: 1 figure(s) DISAGREE$" "$T/out"
expect_exit 2 "no dumps of the case" $PY scripts/divergence_check.py "$T/dump/nothing" "$T/bad.json"
finish
