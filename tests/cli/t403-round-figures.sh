#!/usr/bin/env bash
# The round's figures as rows of the table of figures (issues 28, 29), with
# values planted in advance, in every view that prints them:
#   host time   a fake smoke run with host times planted in its database as
#               the CUDA backend stores them (plant_lib.sh's plant_host): 1 us
#               a call for every arm, 5 ms for ln_modulate's B (launch-bound
#               against its 4.05 us), its last case measured again by --resume
#               on the CPU (no host time): the closing table, show's slot
#               table and lines, the CSV, abbench.show, the report's Summary
#               and its launch-bound note, worded as the issue words it
#   CPU         the same run unplanted: no host column in any table, and
#               said once in show and the report
#   divergence  the div_plant arms in bf16 (plant_lib.sh): ulp1 (1 of 128
#               elements of out, 1 ULP at [b=0, t=3, w=5]), nan (a class
#               mismatch), rstd (departs at rstd, outputs equal), nondet (4
#               of 7 calls differ), rowvar (row 0 breaks batch invariance):
#               show's two lines, the CSV's columns, abbench.show and
#               abbench.export (both validated against docs/JSON.md), the
#               report's Where the bits differ table, its heatmaps (PNG
#               where gnuplot is here) and the speedup chart's inexact marks
# and no nan where a figure exists.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1 ABBENCH_DB="$T/r.db"
PY=/usr/bin/python3
have_plots=0
command -v gnuplot >/dev/null 2>&1 && have_plots=1
csv_get() { # file case slot column
	"$PY" - "$@" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r["case"] == sys.argv[2] and r["slot"] == sys.argv[3]:
        print(r[sys.argv[4]])
PY
}
json_get() { # file case path
	"$PY" -c 'import json, sys
c = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == sys.argv[2])
for k in sys.argv[3].split("."):
    c = c[int(k)] if isinstance(c, list) else c[k]
print(json.dumps(c))' "$@"
}

# ---- host time a call ------------------------------------------------------
expect_exit 0 "a fake smoke run" "$AB" run scenarios/smoke.ini --backend cpu --label cpu --no-progress
cp "$T/out" "$T/cpu.run"
expect_exit 0 "a second, for planted host times" "$AB" run scenarios/smoke.ini --backend cpu --label host --no-progress
id=$(plant_host "$ABBENCH_DB" host ln_modulate) || fail "plant host times"
expect_exit 0 "its last case measured again (--resume)" "$AB" run scenarios/smoke.ini --resume "$id" --backend cpu \
	--no-progress
cp "$T/out" "$T/host.run"
"$AB" show "$id" >"$T/host.show" && "$AB" show "$id" --format csv >"$T/host.csv" &&
	"$AB" show "$id" --format json >"$T/host.json" || fail "show the host run"
"$AB" report "$id" --no-plots --out "$T/host-rep" >/dev/null 2>&1 || fail "report the host run"
check "the closing table: host time beside the GPU time, and the launch-bound mark with both" grep -Eq \
	'^ln_modulate +1x16x256 +16\.19 us +4\.05 us +1\.00 us, p90 1\.00 us +5\.000 ms, p90 5\.000 ms .* faster +GPU 4\.05 us, host 5\.000 ms$' \
	"$T/host.run"
check "a case the CPU measured again: not measured, never nan" grep -Eq \
	'^residual_gate_add .* +not measured +not measured .* faster +not measured$' "$T/host.run"
check "a case within its GPU time: no" grep -Eq '^ln_continuous .* faster +no$' "$T/host.run"
check "show: the slot's host column" grep -Eq '^  B +b +fused .* 4\.05 us +5\.000 ms +max_samples' "$T/host.show"
check "show: both arms' host time a call beside the GPU's" grep -q \
	'^  host a call: a 1.00 us, p90 1.00 us; b 5.000 ms, p90 5.000 ms (GPU a call: a 16.19 us, b 4.05 us)$' \
	"$T/host.show"
check "show: the launch-bound mark, worded as issue 28 words it" grep -q \
	"^  launch-bound: fused: GPU 4.05 us, host 5.000 ms a call: a model calling it eagerly waits on the host (the verdict is the GPU's)$" \
	"$T/host.show"
check "and never as the kernel being slower (its verdict stays faster)" \
	test "$(sed -n '/^case ln_modulate /,/^case /p' "$T/host.show" | grep -c '^  verdict: faster$')" = 1
check "CSV: B's host median, p90, GPU time and the mark" test \
	"$(csv_get "$T/host.csv" ln_modulate B arm_host_median_ns) $(csv_get "$T/host.csv" ln_modulate B arm_host_p90_ns) $(csv_get "$T/host.csv" ln_modulate B arm_gpu_ns) $(csv_get "$T/host.csv" ln_modulate B launch_bound)" = \
	"5000000 5000000 4048 1"
check "CSV: unknown host time is an empty cell" test \
	"$(csv_get "$T/host.csv" residual_gate_add B arm_host_median_ns)|$(csv_get "$T/host.csv" residual_gate_add B launch_bound)" = "|"
check "JSON: summary.host_median_b_ns, gpu_b_ns, launch_bound" test \
	"$(json_get "$T/host.json" ln_modulate summary.host_median_b_ns) $(json_get "$T/host.json" ln_modulate summary.gpu_b_ns) $(json_get "$T/host.json" ln_modulate summary.launch_bound)" = \
	"5000000.0 4048.0 true"
check "JSON: null where not measured" test "$(json_get "$T/host.json" residual_gate_add summary.host_p90_a_ns)" = null
check "abbench.show with host times validates" "$PY" tests/tools/json_check.py docs/JSON.md abbench.show "$T/host.json"
check "report: the Summary's host and launch-bound columns" grep -q \
	'| `ln_modulate` | 1x16x256 | .* | 1.00 us, p90 1.00 us | 5.000 ms, p90 5.000 ms | .* | faster | GPU 4.05 us, host 5.000 ms |$' \
	"$T/host-rep/report.md"
check "report: the launch-bound note" grep -q \
	'^- `ln_modulate`: fused: GPU 4.05 us, host 5.000 ms a call: a model calling it eagerly waits on the host$' \
	"$T/host-rep/report.md"

# ---- the CPU: no host time, said once --------------------------------------
"$AB" show cpu >"$T/cpu.show" && "$AB" report cpu --no-plots --out "$T/cpu-rep" >/dev/null 2>&1 || fail "show, report cpu"
check "CPU: no host column in run's table, show's or the report's" \
	bash -c "! grep -q 'host a call\|  host  \|launch-bound' '$T/cpu.run' && ! grep -q ' host  ' '$T/cpu.show' && ! grep -q 'host a call |' '$T/cpu-rep/report.md'"
check "CPU: show says it once" test "$(grep -c '^host time a call: not measured (the CPU backend: its call is the work)$' "$T/cpu.show")" = 1
check "CPU: the report says it" grep -q '^Host time a call: not measured (the CPU backend: its call is the work).$' \
	"$T/cpu-rep/report.md"

# ---- where the bits differ -------------------------------------------------
PLANT_DTYPES=bf16
plant_scenario "$T/plants.ini"
expect_exit 0 "the planted divergences (bf16)" "$AB" run "$T/plants.ini" --label plants --no-progress
cp "$T/out" "$T/plants.run"
"$AB" show plants >"$T/p.show" && "$AB" show plants --format csv >"$T/p.csv" &&
	"$AB" show plants --format json >"$T/p.json" && "$AB" export plants --format json >"$T/p.export.json" ||
	fail "show and export the plants"
"$AB" report plants --out "$T/p-rep" >/dev/null 2>&1 || fail "report the plants"
check "the closing line counts lost bit-exactness, the nondeterministic among them" \
	grep -q 'lost bit-exactness 6 (1 nondeterministic)' "$T/plants.run"
check "show: ulp1's two lines" bash -c "grep -A1 -x \"  B: 1 of 128 elements of 'out' differ (0.78%), max 1 ULP; departs at 'out'; deterministic\" '$T/p.show' |
	grep -qx '     first at out\[b=0, t=3, w=5\], largest ULP at out\[b=0, t=3, w=5\]; rows touched 1/8; B nearer the reference: no reference'"
check "show: nan's class mismatch" grep -qx \
	"  B: 1 of 128 elements of 'out' differ (0.78%), 1 NaN/Inf where the other side is of another class; departs at 'out'; deterministic" \
	"$T/p.show"
check "show: rstd departs at rstd, its outputs equal" grep -qx "  B: byte-equal to A1; departs at 'rstd'; deterministic" "$T/p.show"
check "show: nondet, 4 of 7 calls" grep -qx "  B: byte-equal to A1; NONDETERMINISTIC: B, 4 of 7 calls differed" "$T/p.show"
check "show: rowvar's batch invariance" grep -qx \
	"     batch-invariant: NO: arm b's row 0 of 'out' at T = 5 differs from the same row at T = 1" "$T/p.show"
check "CSV: ulp1's elements, %, max ULP and where" test \
	"$(for k in diff_tensor diff_elements diff_tensor_elements diff_pct diff_max_ulp diff_max_ulp_at departure deterministic batch_invariant; do csv_get "$T/p.csv" ulp1_bf16 B $k; done | paste -sd' ')" = \
	"out 1 128 0.78125 1 out[b=0, t=3, w=5] out 1 not_checked"
check "CSV: nondet's calls" test \
	"$(for k in deterministic calls_differ calls_hashed nondeterministic_slot; do csv_get "$T/p.csv" nondet_bf16 A1 $k; done | paste -sd' ')" = "0 4 7 B"
check "CSV: rowvar's broken row" test \
	"$(for k in batch_invariant invariance_row invariance_other; do csv_get "$T/p.csv" 'rowvar_bf16[T=5]' B $k; done | paste -sd' ')" = "no 0 1"
check "JSON: ulp1's divergence object" test "$(json_get "$T/p.json" ulp1_bf16 summary.divergence)" = \
	'{"slot": "B", "tensor": "out", "elements": 1, "tensor_elements": 128, "pct": 0.78125, "max_ulp": 1, "max_ulp_at": "out[b=0, t=3, w=5]", "first_at": "out[b=0, t=3, w=5]", "class_mismatches": 0, "rows_touched": 1, "rows": 8, "departure": "out", "b_nearer_pct": null}'
check "JSON: nondet's determinism" test "$(json_get "$T/p.json" nondet_bf16 summary.determinism)" = \
	'{"deterministic": false, "calls_differ": 4, "calls": 7, "slot": "B"}'
check "JSON: rowvar's invariance" test "$(json_get "$T/p.json" 'rowvar_bf16[T=9]' summary.invariance)" = \
	'{"batch_invariant": "no", "first_row": 0, "other_value": 1}'
check "export: the stored divergence of ulp1's B, and its check" test \
	"$(json_get "$T/p.export.json" ulp1_bf16 slots.1.divergences.0.tensor) $(json_get "$T/p.export.json" ulp1_bf16 slots.1.divergences.0.first.index) $(json_get "$T/p.export.json" ulp1_bf16 slots.1.check.compared)" = \
	'"out" 53 "mean,rstd,out"'
check "abbench.show of the plants validates" "$PY" tests/tools/json_check.py docs/JSON.md abbench.show "$T/p.json"
check "abbench.export of the plants validates" "$PY" tests/tools/json_check.py docs/JSON.md abbench.export "$T/p.export.json"
check "report: the table of where the bits differ" grep -q \
	'^| `ulp1_bf16` (a `ref_bf16`, b `ulp1_bf16`) | `out` | 1/128 | 0.78% | 1 | out\\\[b=0, t=3, w=5\\\] | out\\\[b=0, t=3, w=5\\\] | 0 | 1/8 | `out` | no reference | yes | not checked |$' \
	"$T/p-rep/report.md"
check "report: nondet and rowvar in it" bash -c "grep -q '| NO: B, 4 of 7 calls differ | not checked |\$' '$T/p-rep/report.md' &&
	grep -q \"| NO: arm b's row 0 of 'out' differs from the same row at T = 1 |\$\" '$T/p-rep/report.md'"
check "report: the sweeps' batch invariance" bash -c "grep -qx -- '- \`inv_bf16\`: batch-invariant: yes across T = 1, 5, 9' '$T/p-rep/report.md'"
check "report: a heatmap per case that differs, beside report.md" \
	test "$(ls "$T/p-rep" | grep -c '^heatmap-.*\.gp$')" = 5
if [ "$have_plots" = 1 ]; then
	check "and drawn" test "$(ls "$T/p-rep" | grep -c '^heatmap-.*\.png$')" = 5
	check "and shown" grep -q '^!\[ulp1\\_bf16: where .out. of slot B differs, per row\](heatmap-ulp1_bf16-B-out.png)$' \
		"$T/p-rep/report.md"
fi
# speedup.dat: per row "name note value low high marked-value inexact-value ...", ? where unset: the
# inexact value is set for exactly the cases whose verdict is not_exact (nondet's bytes are A's, its
# calls disagree)
marked=$(awk '!/^#/ && NF { if ($7 != "?") n++ } END { print n }' "$T/p-rep/speedup.dat")
check "the speedup chart marks every case not bit-exact (6: the verdict's count)" test "$marked" = 6
for f in "$T/host.run" "$T/host.show" "$T/host.csv" "$T/host-rep/report.md" "$T/plants.run" "$T/p.show" "$T/p.csv" \
	"$T/p-rep/report.md"; do
	# a figure's nan, not a name (nan_bf16, nan\_bf16) nor NaN/Inf
	if grep -Eiq '(^|[^a-z_])nan([^a-z_/\\]|$)' "$f"; then
		fail "$(basename "$f") prints nan"
		grep -Ein '(^|[^a-z_])nan([^a-z_/\\]|$)' "$f" | head -3
	fi
done
ok "no nan printed in show, run, the CSV or the report"
finish
