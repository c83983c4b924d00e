#!/usr/bin/env bash
# Python arms timed on the GPU (issue 28), on the GPU machine, with build/
# made elsewhere by `make` (this script builds nothing):
#   1. do_bench: scripts/gpu/pytiming_bench.py times swiglu.ini's arms
#      (torch eager, the Triton kernels) with triton.testing.do_bench;
#   2. abbench runs scenarios/swiglu.ini as shipped (the default timing:
#      launch_gaps = hide since issue 28), then with `launch_gaps =
#      include` (the default before), `launch_gaps = hide` and `timing =
#      graph` written into a copy of it;
#   3. scenarios/python_glm.ini and scenarios/lineage.ini as shipped;
#   4. (pergpu) glm_1024.ini and glm_sweep.ini into pergpu.db, the
#      per-GPU report's runs of this card.
# Usage: scripts/gpu/pytiming.sh [STEP ...] (steps: dobench swiglu modes
# glm lineage pergpu; default all). PYTHON picks the interpreter (default
# the venv). Results: $OUT (or ./gpu-out) gets pytiming.db, pergpu.db and
# dobench.json; the table last (case, arms, slot medians, speedup,
# verdict, bytes, the host time of a call per slot and LAUNCH-BOUND where
# an arm's host time exceeds its GPU time). Exit 0 when every run ended 0,
# else 1.
. "$(dirname "$0")/lib.sh" pytiming "$@"
[ -n "$stages" ] || stages="dobench swiglu modes glm lineage pergpu"
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$AB" ] || { echo "pytiming.sh: no $AB: run make first"; exit 2; }
export ABBENCH_PYTHON=$PY PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR=$TMP/triton
DB=$RESULTS/pytiming.db
table=$TMP/table.txt
: >"$table"

# run TAG DB SCENARIO [abbench run options]: one run under a time limit, its table rows
run() {
	local tag=$1 db=$2 scn=$3
	shift 3
	step "$tag: $scn"
	local t0=$(date +%s)
	timeout -k 10 400 "$AB" run "$scn" --db "$db" --label "$tag" --no-progress "$@" 2>&1 | tail -25
	local rc=${PIPESTATUS[0]}
	echo "$tag: exit $rc in $(( $(date +%s) - t0 )) s"
	[ "$rc" -eq 0 ] || status=1
	"$AB" show "$tag" --db "$db" --format json 2>/dev/null | "$PY" scripts/gpu/table.py "$tag" >>"$table" ||
		echo "$tag: no table (exit $rc)" >>"$table"
}

# variant KEY_LINE: swiglu.ini with one line added to [scenario], beside it (its includes are relative)
variant() {
	local name=$1 line=$2 f=scenarios/.pytiming_$1.ini
	sed "s/^\[scenario\]\$/[scenario]\n$line/" scenarios/swiglu.ini >"$f"
	echo "$f"
}

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }
if want dobench; then
	step "do_bench ($PY)"
	"$PY" scripts/gpu/pytiming_bench.py --json "$RESULTS/dobench.json" | tee -a "$table" || status=1
fi
want swiglu && run default "$DB" scenarios/swiglu.ini
if want modes; then
	run include "$DB" "$(variant include 'launch_gaps = include')"
	run hide "$DB" "$(variant hide 'launch_gaps = hide')"
	run graph "$DB" "$(variant graph 'timing = graph')"
fi
want glm && run python_glm "$DB" scenarios/python_glm.ini
want lineage && run lineage "$DB" scenarios/lineage.ini
if want pergpu; then
	run glm_1024 "$RESULTS/pergpu.db" scenarios/glm_1024.ini
	run glm_sweep "$RESULTS/pergpu.db" scenarios/glm_sweep.ini
fi
rm -f scenarios/.pytiming_*.ini
echo
echo "=== pytiming: table ==="
cat "$table"
exit "$status"
