#!/usr/bin/env bash
# The declared-sites stage of a GPU session (issue 20 item 6), on the GPU
# machine, with build/ made elsewhere by `make` (this script builds
# nothing: it needs build/abbench, build/examples/plugin/libdeclared_plugin.so
# and build/examples/cubin/mss_*, which make builds when nvcc is found):
#   cubin       examples/cubin/mss_cubin.ini: a site abbench does not have
#               built in (modulate_scale_shift, declared in scenarios/sites/),
#               the example plugin's eager chain as arm a, as b an nvcc cubin,
#               a Triton-shaped cubin read through its metadata .json, and the
#               plugin's fused kernel: every case byte-equal, and its GB/s
#               against the device's copy bandwidth
#   inexact     the plugin's mss_inexact as b: runs, NOT byte-equal
#   triton      scripts/triton/export_mss.py exports the site's real Triton
#               kernels (scripts/triton/modulate_scale_shift.py), then
#               examples/cubin/mss_triton.ini: the exact one byte-equal, the
#               f32 one not (skipped, with the reason, when $PY has no torch
#               and Triton)
#   triton_glm  scripts/triton/export.py --no-bench, then scenarios/triton_glm.ini,
#               one scenario whose cases name the Triton kernels of two sites
#               (ln_modulate and qk_layernorm) as their own b: the exact
#               kernels byte-equal, the naive ones not (skipped like triton)
# Results: $OUT (or ./gpu-out) gets sites.db, json/ (each run's show
# --format json, which the table reads: scripts/gpu/tables.py sites),
# sites-logs.tar.gz (logs, show and report of each run) and prints a table
# last: run, case, arms, B median, B GB/s and % of copy (the summary's),
# byte-equal, PASS/FAIL against what is expected.
# Usage: scripts/gpu/sites.sh [STAGE ...] (default: all; about 4 minutes,
# 8 with the exports). PY (default /opt/torch/.venv/bin/python3,
# else python3) runs the exporters. Exit status 0 when every stage that ran
# passed, 1 otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" sites "$@"
[ -n "$stages" ] || stages="cubin inexact triton triton_glm"
DB="$RESULTS/sites.db"
rm -f "$DB"
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=python3
notes="$LOGS/notes.txt"
: >"$notes"
labels=()

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "sites.sh: abbench does not start here"; exit 1; }
"$AB" sites scenarios/sites/modulate_scale_shift.ini | sed -n '/^modulate_scale_shift/,/^$/p'

# run LABEL SCENARIO [args]: one abbench run on cuda, its show and report.
run() {
	local label=$1 scn=$2; shift 2
	step "$label ($scn $*)"
	if timeout -k 5 "${RUN_LIMIT:-300}" "$AB" run "$scn" --backend cuda --db "$DB" --label "$label" --no-progress "$@" \
		>"$LOGS/run_$label.log" 2>&1; then
		tail -12 "$LOGS/run_$label.log"
		"$AB" show "$label" --db "$DB" >"$LOGS/show_$label.txt"
		ab_json show "$label" "$DB" >/dev/null && labels+=("$label")
		"$AB" report "$label" --db "$DB" --out "$LOGS/report_$label" >/dev/null 2>&1 ||
			echo "sites.sh: no report for $label" | tee -a "$notes"
	else
		cat "$LOGS/run_$label.log"
		echo "sites.sh: abbench run $scn failed (exit $?)" | tee -a "$notes"
		status=1
	fi
}

# Whether $PY has torch and Triton (the exporters' needs).
has_triton() { "$PY" -c 'import torch, triton' 2>/dev/null; }

want cubin && run sites-cubin examples/cubin/mss_cubin.ini

if want inexact; then
	# the inexact arm on the first case only: a copy of mss_cubin.ini with its b replaced
	sed -e "s|\.\./\.\./|$ROOT/|g" -e 's|^b = mss_cubin$|b = plugin:'"$ROOT"'/build/examples/plugin/libdeclared_plugin.so:mss_inexact|' \
		examples/cubin/mss_cubin.ini >"$TMP/scn/mss_inexact.ini"
	run sites-inexact "$TMP/scn/mss_inexact.ini" --only img_3072
fi

if want triton; then
	if has_triton; then
		step "export_mss ($PY)"
		if "$PY" scripts/triton/export_mss.py --out triton-out 2>&1 | tee "$LOGS/export_mss.log"; then
			run sites-triton examples/cubin/mss_triton.ini
		else
			echo "sites.sh: export_mss.py failed (see export_mss.log)" | tee -a "$notes"
			status=1
		fi
	else
		echo "sites.sh: triton skipped: $PY cannot import torch and triton" | tee -a "$notes"
	fi
fi

if want triton_glm; then
	if has_triton; then
		step "export ($PY, --no-bench)"
		"$PY" scripts/triton/export.py --out triton-out --no-bench >"$LOGS/export.log" 2>&1 ||
			echo "sites.sh: export.py reported failures (see export.log)" | tee -a "$notes"
		only=
		for arm in $(sed -n 's/^\[arm \(.*\)\]$/\1/p' scenarios/triton_glm.ini); do
			[ -f "triton-out/$arm.json" ] && only="${only:+$only,}$arm.*"
		done
		if [ -n "$only" ]; then
			run sites-triton-glm scenarios/triton_glm.ini --only "$only"
		else
			echo "sites.sh: no GLM kernel exported: triton_glm.ini not run" | tee -a "$notes"
			status=1
		fi
	else
		echo "sites.sh: triton_glm skipped: $PY cannot import torch and triton" | tee -a "$notes"
	fi
fi

step table
"$READ" scripts/gpu/tables.py sites "$JSON" "${labels[@]}" >"$LOGS/table.txt" || status=1
tar -czf "$RESULTS/sites-logs.tar.gz" -C "$TMP" logs
cat "$notes"
echo
cat "$LOGS/table.txt"
echo "sites.sh: exit $status"
exit "$status"
