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
# label), json/ (the show, export and compare --format json documents the
# tables read: scripts/gpu/tables.py, abjson.py), summary-STAGES.txt and
# sweeps-STAGES.tar.gz (every log, CSV and the reports), STAGES the stages
# run joined by '-': two calls in one folder keep both.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" sweeps "$@"
[ -n "$stages" ] || stages="device stopping sweep aa aaglm"
DB="$RESULTS/sweeps.db"
tag=$(printf '%s' "$stages" | tr ' ' '-')
summary="$RESULTS/summary-$tag.txt"
: >"$summary"
row() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }
# What the database holds, through abbench's JSON (abjson.py), never SQL:
# field RUN PATH: a field of `abbench show RUN`; n_runs: how many runs
field() { "$AB" show "$1" --db "$DB" --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py get - "$2" 2>/dev/null; }
n_runs() { "$AB" list --rechecks --db "$DB" --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py count - runs 2>/dev/null || echo 0; }
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
	row "--device 0: exit, device_index" "$? $(field dev0 run.device_index)"
	before=$(n_runs)
	"$AB" run scenarios/smoke.ini --backend cuda --db "$DB" --device "$n_gpu" --quick --no-progress >"$LOGS/device_bad.log" 2>&1
	rc=$?
	after=$(n_runs)
	row "--device $n_gpu (of $n_gpu): exit, rows added" "$rc $((after - before)) (want 2 0)"
	sed 's/^/    /' "$LOGS/device_bad.log" | tee -a "$summary"
	if [ "$n_gpu" -ge 2 ]; then
		"$AB" run scenarios/smoke.ini --backend cuda --db "$DB" --device 1 --label dev1 --quick --no-progress \
			>"$LOGS/device1.log" 2>&1
		rc=$?
		row "--device 1: exit, index, other uuid" "$rc $(field dev1 run.device_index) $([ "$(field dev1 run.device.uuid)" != "$(field dev0 run.device.uuid)" ] && echo 1 || echo 0)"
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
			secs=$(since "$t0")
			ab_json export "glm-$rule" "$DB" >/dev/null
			read -r n_slots n_samples n_capped < <("$READ" scripts/gpu/abjson.py slots "$JSON/glm-$rule.export.json")
			row "glm_1024 $rule: wall s, samples, at cap" "$secs $n_samples $n_capped/$n_slots"
		else
			row "glm_1024 $rule run" "FAIL (see glm_$rule.log)"; tail -5 "$LOGS/glm_$rule.log"
		fi
	done
	if [ -s "$JSON/glm-mean.export.json" ] && [ -s "$JSON/glm-median.export.json" ]; then
		echo "per slot: samples mean->median, stop reason mean->median, median us mean->median (change)" | tee -a "$summary"
		"$READ" scripts/gpu/tables.py stopping "$JSON" glm-mean glm-median | tee -a "$summary"
		"$AB" compare glm-mean glm-median --db "$DB" >"$LOGS/compare_rules.md" 2>&1
		"$AB" compare glm-mean glm-median --db "$DB" --format json --out "$JSON/compare_rules.json" 2>/dev/null
		row "compare B arm mean vs median run" "$("$READ" scripts/gpu/abjson.py verdicts "$JSON/compare_rules.json") (compare_rules.md)"
	fi
fi

if want sweep; then
	step "glm_sweep on cuda"
	t0=$(now)
	if "$AB" run scenarios/glm_sweep.ini --backend cuda --db "$DB" --label gpu-sweep --no-progress >"$LOGS/sweep.log" 2>&1; then
		row "glm_sweep run (s)" "$(since "$t0")"
		"$AB" show gpu-sweep --db "$DB" >"$LOGS/sweep_show.txt"
		"$AB" export gpu-sweep --db "$DB" --csv "$LOGS/sweep.csv"
		ab_json show gpu-sweep "$DB" >/dev/null
		ab_json export gpu-sweep "$DB" >/dev/null
		"$AB" report gpu-sweep --db "$DB" --out "$LOGS/report_sweep" --no-plots >/dev/null 2>&1 && row "sweep report (markdown, .dat, .gp)" written
		echo "sweep T: speedup [95% CI], B GB/s (% of copy) (show --format json's figures)" | tee -a "$summary"
		"$READ" scripts/gpu/tables.py sweep "$JSON" gpu-sweep | tee -a "$summary"
		row "sweep cases byte-equal" "$("$READ" scripts/gpu/abjson.py exact "$JSON/gpu-sweep.show.json" yes) of $("$READ" scripts/gpu/abjson.py count "$JSON/gpu-sweep.show.json" cases)"
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
