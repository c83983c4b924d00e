#!/usr/bin/env bash
# One GPU session, on the GPU machine, with a build made elsewhere (this
# script builds nothing): checks, oracle, sanitizers, timings; a short table
# last. Usage: scripts/gpu_check.sh [STAGE ...]   (default: all)
#   selftest  tests/gpu self-test: fused vs eager bytes, eager mean vs host
#   smoke     smoke scenario on cuda with --dump, PyTorch oracle
#   glm       glm_1024 on cuda with --dump, oracle, CPU mean cross-check
#   hostile   hostile.ini and qk_heads.ini on cuda with --dump, oracle
#   torch     PyTorch's eager chain timed with the same protocol
#   sanitize  compute-sanitizer memcheck and racecheck on smoke
#   unit      build/tests/test_backend_cuda (the backend's own GPU tests)
#   overhead  the LayerNorm and qk slots of glm_1024 again without CUPTI
#   gaps      glm_1024 with launch_gaps = hide, beside the default include
#   aa        scripts/aa_check.sh: 20 A/A gate pairs of smoke on the GPU
#   aaglm     scripts/aa_check.sh: 10 A/A gate pairs of glm_1024's img_ln_modulate
#   report    abbench report of the glm_1024 run (markdown only: no gnuplot there)
# Results: $OUT (or ./gpu-out) gets gpu.db and logs.tar.gz (every log, the
# CSVs and summary.txt): few files, as the device tool brings back at most 8.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-$PWD/gpu-out}
mkdir -p "$RESULTS"
TMP=${TMPDIR:-/tmp}/abbench-gpu
rm -rf "$TMP" && mkdir -p "$TMP/logs"
OUT="$TMP/logs"
AB=build/abbench
DB="$RESULTS/gpu.db"
stages=${*:-unit selftest smoke glm hostile torch sanitize overhead gaps aa aaglm report}
summary="$OUT/summary.txt"
: >"$summary"
row() { printf '%-34s %s\n' "$1" "$2" | tee -a "$summary"; }
step() { echo; echo "=== $* ==="; }
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }

oracle() { # dump-dir log-name [cpu-dump]
	python3 scripts/torch_oracle.py "$1" ${3:+--cpu-dump "$3"} 2>&1 | tee "$OUT/$2"
	return "${PIPESTATUS[0]}"
}

if want unit; then
	step unit
	if build/tests/test_backend_cuda 2>&1 | tee "$OUT/test_backend_cuda.log"; then row "test_backend_cuda" PASS; else row "test_backend_cuda" FAIL; fi
fi
if want selftest; then
	step selftest
	if build/gpu/test_cuda_kernels 2>&1 | tee "$OUT/selftest.log"; then row selftest PASS; else row selftest FAIL; fi
	tail -15 "$OUT/selftest.log" | sed "s/^/    /" | tee -a "$summary"
fi
if want smoke; then
	step smoke
	if "$AB" run scenarios/smoke.ini --backend cuda --db "$DB" --dump "$TMP/smoke" --label gpu-smoke --no-progress; then
		"$AB" show --db "$DB" | tee "$OUT/smoke_show.txt"
		if oracle "$TMP/smoke" oracle_smoke.log; then row "smoke oracle" PASS; else row "smoke oracle" FAIL; fi
	else row "smoke run" FAIL; fi
fi
if want glm; then
	step glm_1024
	start=$(date +%s)
	if "$AB" run scenarios/glm_1024.ini --backend cuda --db "$DB" --dump "$TMP/glm" --label gpu-glm --no-progress; then
		row "glm_1024 run (s)" "$(( $(date +%s) - start ))"
		"$AB" show --db "$DB" | tee "$OUT/glm_show.txt"
		"$AB" export --csv "$OUT/glm.csv" --db "$DB"
		"$AB" run scenarios/glm_1024.ini --backend cpu --quick --db "$TMP/cpu.db" --dump "$TMP/glm_cpu" --no-progress \
			--only img_ln_modulate && "$AB" run scenarios/glm_1024.ini --backend cpu --quick --db "$TMP/cpu.db" \
			--dump "$TMP/glm_cpu_qk" --no-progress --only qk_layernorm
		python3 - "$TMP" <<'PY'
import json, os, sys
t = sys.argv[1]
m = {"format": "merged", "cases": []}
for d in ("glm_cpu", "glm_cpu_qk"):
    j = json.load(open(os.path.join(t, d, "manifest.json")))
    for c in j["cases"]:
        for s in c["slots"]:
            s["files"] = {k: os.path.join("..", d, v) for k, v in s["files"].items()}
        m["cases"].append(c)
os.makedirs(os.path.join(t, "cpu_merged"), exist_ok=True)
json.dump(m, open(os.path.join(t, "cpu_merged", "manifest.json"), "w"))
PY
		if oracle "$TMP/glm" oracle_glm.log "$TMP/cpu_merged"; then row "glm_1024 oracle" PASS; else row "glm_1024 oracle" FAIL; fi
	else row "glm_1024 run" FAIL; fi
fi
if want hostile; then
	step hostile
	for s in hostile qk_heads; do
		if "$AB" run scenarios/$s.ini --backend cuda --db "$DB" --dump "$TMP/$s" --label gpu-$s --no-progress --quick; then
			"$AB" show --db "$DB" >"$OUT/${s}_show.txt"
			n_no=$(grep -c 'byte-equal to a: NO' "$OUT/${s}_show.txt")
			row "$s fused byte-equal" "$([ "$n_no" -eq 0 ] && echo PASS || echo "FAIL ($n_no cases)")"
			if oracle "$TMP/$s" oracle_$s.log; then row "$s oracle" PASS; else row "$s oracle" FAIL; fi
		else row "$s run" FAIL; fi
	done
fi
if want torch; then
	step torch timing
	python3 scripts/torch_timing.py scenarios/glm_1024.ini --csv "$OUT/torch_timing.csv" | tee "$OUT/torch_timing.log"
fi
if want sanitize; then
	step compute-sanitizer
	for tool in memcheck racecheck; do
		if compute-sanitizer --tool $tool --error-exitcode 9 "$AB" run scenarios/smoke.ini --backend cuda --quick \
			--db "$TMP/san.db" --no-progress >"$OUT/sanitizer_$tool.log" 2>&1; then
			row "compute-sanitizer $tool" "PASS ($(grep -m1 'ERROR SUMMARY' "$OUT/sanitizer_$tool.log"))"
		else
			row "compute-sanitizer $tool" "FAIL (see sanitizer_$tool.log)"; tail -20 "$OUT/sanitizer_$tool.log"
		fi
	done
fi
if want overhead; then
	step cupti overhead
	for c in img_ln_modulate qk_layernorm; do
		"$AB" run scenarios/glm_1024.ini --backend cuda --db "$DB" --only $c --label cupti-on-$c --no-progress >/dev/null &&
		"$AB" run scenarios/glm_1024.ini --backend cuda --db "$DB" --only $c --label cupti-off-$c --no-progress --no-cupti >/dev/null
		on=$("$AB" export cupti-on-$c --csv - --db "$DB" | awk -F, 'NR > 1 { printf "%s=%.2f ", $6, $8 / 1000 }')
		off=$("$AB" export cupti-off-$c --csv - --db "$DB" | awk -F, 'NR > 1 { printf "%s=%.2f ", $6, $8 / 1000 }')
		row "cupti on  $c (us)" "$on"
		row "cupti off $c (us)" "$off"
	done
fi
if want gaps; then
	step launch gaps hidden
	sed 's/^launch_gaps = include/launch_gaps = hide/' scenarios/glm_1024.ini >"$TMP/glm_hide.ini"
	if "$AB" run "$TMP/glm_hide.ini" --backend cuda --db "$DB" --label gaps-hidden --no-progress >/dev/null; then
		"$AB" export gaps-hidden --csv "$OUT/glm_hide.csv" --db "$DB"
		row "launch_gaps=hide (A1/B us)" "$(awk -F, 'NR > 1 && $6 != "A2" { printf "%s:%s=%.2f ", $1, $6, $8 / 1000 }' "$OUT/glm_hide.csv")"
	else row "launch_gaps=hide run" FAIL; fi
fi
if want aa; then
	step A/A gate
	scripts/aa_check.sh -n 20 -s scenarios/smoke.ini -b cuda 2>&1 | tee "$OUT/aa_check.log" | tail -3
	row "A/A gate on smoke (cuda)" "$(tail -1 "$OUT/aa_check.log")"
fi
if want aaglm; then
	step A/A gate on the real shape
	scripts/aa_check.sh -n 10 -s scenarios/glm_1024.ini -b cuda -- --only img_ln_modulate 2>&1 | tee "$OUT/aa_check_glm.log" | tail -3
	row "A/A gate on img_ln_modulate" "$(tail -1 "$OUT/aa_check_glm.log")"
fi
if want report; then
	"$AB" report gpu-glm --db "$DB" --out "$OUT/report_glm" --no-plots >/dev/null 2>&1 && row "report (markdown)" written
fi
tar -czf "$RESULTS/logs.tar.gz" -C "$TMP" logs
echo
echo "=== summary ==="
cat "$summary"
