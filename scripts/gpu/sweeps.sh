#!/usr/bin/env bash
# The GPU stages of issue 11 (sweeps, bandwidth, --device, the stopping rule
# on the median), on the GPU machine, with a build made elsewhere: this
# script builds nothing and runs build/abbench. A short table comes last.
#
#   scripts/gpu/sweeps.sh [STAGE ...]        (default: all, in this order)
#
#   device    --device: 0 recorded; an index past the device count is exit 2
#             before any run row; with 2+ GPUs, --device 1 is another uuid
#   stopping  glm_1024 with noise_measure = mean (the old rule) and with the
#             default median rule: samples per slot, stop reasons, wall time
#             of each run, every slot's median, and `abbench compare old new`
#             (are the medians unchanged within noise?)
#   sweep     glm_sweep.ini on cuda: the case table (speedup, B GB/s, % of
#             copy), `abbench report` markdown with the sweep charts' .dat
#             and .gp (no gnuplot there: render them with `gnuplot
#             sweep-NAME.gp`, or `abbench report` from sweeps.db, elsewhere)
#   aa        scripts/aa_check.sh: 20 A/A gate pairs of smoke.ini on cuda
#             under the new rule (the false-alarm rate re-measured)
#   aaglm     scripts/aa_check.sh: 10 A/A pairs of glm_1024's img_ln_modulate
#
# Device time, roughly (glm_1024 took 16 s in session 4; glm_sweep's 84
# slots stop by 2 s each): device 0.5 min, stopping 1-2 min, sweep 3-5 min,
# aa 3-5 min, aaglm 1-2 min. Within scripts/gpu/session.sh's limits, e.g.
#   scripts/gpu/session.sh sweeps=device,stopping,sweep:540 sweeps=aa,aaglm:540
# Results: $OUT (else ./gpu-out) gets sweeps.db (every stage's runs, by
# label), summary-STAGES.txt and sweeps-STAGES.tar.gz (every log, CSV and
# the reports), STAGES the stages run joined by '-': two calls in one
# folder keep both.
set -uo pipefail
cd "$(dirname "$0")/../.."
RESULTS=${OUT:-$PWD/gpu-out}
mkdir -p "$RESULTS"
TMP=${TMPDIR:-/tmp}/abbench-sweeps
rm -rf "$TMP" && mkdir -p "$TMP/logs"
LOGS="$TMP/logs"
AB=build/abbench
DB="$RESULTS/sweeps.db"
stages=${*:-device stopping sweep aa aaglm}
tag=$(printf '%s' "$stages" | tr ' ' '-')
summary="$RESULTS/summary-$tag.txt"
: >"$summary"
row() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }
step() { echo; echo "=== $* ==="; }
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
# One query of the results database, a line per row (python3's sqlite3:
# the GPU machine has no sqlite3 program).
q() {
	python3 -c 'import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print(" ".join("" if v is None else str(v) for v in row))' "$DB" "$1"
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
unset ABBENCH_FAKE_TIMER

step device
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }
n_gpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')

if want device; then
	step "--device"
	"$AB" run scenarios/smoke.ini --backend cuda --db "$DB" --device 0 --label dev0 --quick --no-progress \
		>"$LOGS/device0.log" 2>&1
	row "--device 0: exit, device_index" "$? $(q "SELECT device_index FROM runs WHERE label = 'dev0'")"
	before=$(q "SELECT count(*) FROM runs")
	"$AB" run scenarios/smoke.ini --backend cuda --db "$DB" --device "$n_gpu" --quick --no-progress >"$LOGS/device_bad.log" 2>&1
	rc=$?
	after=$(q "SELECT count(*) FROM runs")
	row "--device $n_gpu (of $n_gpu): exit, rows added" "$rc $((after - before)) (want 2 0)"
	sed 's/^/    /' "$LOGS/device_bad.log" | tee -a "$summary"
	if [ "$n_gpu" -ge 2 ]; then
		"$AB" run scenarios/smoke.ini --backend cuda --db "$DB" --device 1 --label dev1 --quick --no-progress \
			>"$LOGS/device1.log" 2>&1
		row "--device 1: exit, index, other uuid" "$? $(q "SELECT r.device_index, d.uuid != (SELECT d0.uuid FROM runs r0 JOIN devices d0 ON d0.id = r0.device_id WHERE r0.label = 'dev0') FROM runs r JOIN devices d ON d.id = r.device_id WHERE r.label = 'dev1'")"
	else
		row "--device 1" "skipped: one GPU"
	fi
fi

if want stopping; then
	step "stopping rule: glm_1024, mean (old) then median (new)"
	sed 's/^\[scenario\]$/[scenario]\nnoise_measure = mean/' scenarios/glm_1024.ini >"$TMP/glm_1024_mean.ini"
	for rule in mean median; do
		ini=scenarios/glm_1024.ini
		[ "$rule" = mean ] && ini="$TMP/glm_1024_mean.ini"
		t0=$(now)
		if "$AB" run "$ini" --backend cuda --db "$DB" --label "glm-$rule" --no-progress >"$LOGS/glm_$rule.log" 2>&1; then
			row "glm_1024 $rule: wall s, samples, at cap" "$(since "$t0") $(q "SELECT sum(s.n_samples), sum(s.stopping_reason = 'max_samples') || '/' || count(*) FROM slots s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = 'glm-$rule'")"
			"$AB" export "glm-$rule" --db "$DB" --csv "$LOGS/glm_$rule.csv"
		else
			row "glm_1024 $rule run" "FAIL (see glm_$rule.log)"; tail -5 "$LOGS/glm_$rule.log"
		fi
	done
	if [ -s "$LOGS/glm_mean.csv" ] && [ -s "$LOGS/glm_median.csv" ]; then
		echo "per slot: samples mean->median, stop reason mean->median, median us mean->median (change)" | tee -a "$summary"
		python3 - "$LOGS/glm_mean.csv" "$LOGS/glm_median.csv" <<'PY' | tee -a "$summary"
import csv, sys
old = {(r["case"], r["slot"]): r for r in csv.DictReader(open(sys.argv[1]))}
for r in csv.DictReader(open(sys.argv[2])):
    o = old.get((r["case"], r["slot"]))
    if not o:
        continue
    mo, mn = float(o["median_ns"]) / 1e3, float(r["median_ns"]) / 1e3
    print(f"  {r['case']:<20} {r['slot']:<3} {o['samples']:>5} -> {r['samples']:<5} "
          f"{o['stopping_reason']:>15} -> {r['stopping_reason']:<15} {mo:9.3f} -> {mn:9.3f} us ({100 * (mn / mo - 1):+.2f}%)")
PY
		"$AB" compare glm-mean glm-median --db "$DB" >"$LOGS/compare_rules.md" 2>&1
		row "compare B arm mean vs median run" "$(grep -Ec '\| no (significant difference|change beyond the floors)' "$LOGS/compare_rules.md") same, $(grep -Ec '\| (faster|slower) ' "$LOGS/compare_rules.md") differ (compare_rules.md)"
	fi
fi

if want sweep; then
	step "glm_sweep on cuda"
	t0=$(now)
	if "$AB" run scenarios/glm_sweep.ini --backend cuda --db "$DB" --label gpu-sweep --no-progress >"$LOGS/sweep.log" 2>&1; then
		row "glm_sweep run (s)" "$(since "$t0")"
		"$AB" show gpu-sweep --db "$DB" >"$LOGS/sweep_show.txt"
		"$AB" export gpu-sweep --db "$DB" --csv "$LOGS/sweep.csv"
		"$AB" report gpu-sweep --db "$DB" --out "$LOGS/report_sweep" --no-plots >/dev/null 2>&1 && row "sweep report (markdown, .dat, .gp)" written
		echo "sweep T: speedup [95% CI], B GB/s (% of copy) (the report's Sweeps tables)" | tee -a "$summary"
		md="$LOGS/report_sweep/report.md"
		[ -f "$LOGS/report_sweep/report-full.md" ] && md="$LOGS/report_sweep/report-full.md" # over the PR budget
		python3 - "$md" <<'PY' | tee -a "$summary"
import re, sys
name, on = "", False
for line in open(sys.argv[1]):
    if line.startswith("## "):
        on = line.startswith("## Sweeps")
    elif on and line.startswith("### "):
        name = line.split("`")[1]
    elif on and re.match(r"^\| [0-9]+ \|", line):
        f = [x.strip() for x in line.strip().strip("|").split("|")]
        print(f"  {name:<14} T={f[0]:<6} {f[3].replace('**', ''):<28} B {f[5]}")
PY
		row "sweep cases byte-equal" "$(grep -c 'b byte-equal to a: yes' "$LOGS/sweep_show.txt") of $(grep -c '^case ' "$LOGS/sweep_show.txt")"
	else
		row "glm_sweep run" "FAIL (see sweep.log)"; tail -5 "$LOGS/sweep.log"
	fi
fi

if want aa; then
	step "A/A gate, smoke, median rule"
	scripts/aa_check.sh -n 20 -s scenarios/smoke.ini -b cuda 2>&1 | tee "$LOGS/aa_check.log" | tail -3
	row "A/A gate on smoke (cuda, median rule)" "$(tail -1 "$LOGS/aa_check.log")"
fi
if want aaglm; then
	step "A/A gate, glm_1024 img_ln_modulate, median rule"
	scripts/aa_check.sh -n 10 -s scenarios/glm_1024.ini -b cuda -- --only img_ln_modulate 2>&1 |
		tee "$LOGS/aa_check_glm.log" | tail -3
	row "A/A gate on img_ln_modulate (median)" "$(tail -1 "$LOGS/aa_check_glm.log")"
fi

cp "$summary" "$LOGS/"
tar -czf "$RESULTS/sweeps-$tag.tar.gz" -C "$TMP" logs
echo
echo "=== summary ==="
cat "$summary"
