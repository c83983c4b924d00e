#!/usr/bin/env bash
# Where the bits differ, on the GPU (issue 29): real inexact kernels, run
# with --dump, their `abbench diff` (text, markdown with a heatmap per
# differing output, JSON), every figure checked against an independent
# numpy computation from the dumped .npy files (scripts/divergence_check.py):
#   1. scenarios/swiglu.ini's mlp_777_f32: examples/python/swiglu.py's
#      silu_mul_triton_f32 (silu kept in f32, one rounding) against
#      PyTorch's eager silu(a) * b, 777 x 11008 bf16;
#   2. scenarios/lineage.ini's mod_f32 (modulate_scale_shift in f32, 1 x
#      4096 x 3072) and qk_f32 (qk RMSNorm in f32, 1 x 4096 x 24 x 128:
#      4-D, so its map is per head).
# Every run uses --require-exact, which must exit 1 (the cases are not
# byte-equal). The script builds nothing (build/ made by `make`).
# Usage: scripts/gpu/divergence.sh [swiglu] [lineage] [cpu] (default the
# first two; cpu: scenarios/divergence_cpu.ini on the CPU backend, the same
# machinery without a GPU, which tests/cli/t464 runs).
# PYTHON picks the interpreter (default /opt/torch/.venv/bin/python3).
# Results: $OUT (or ./gpu-out) gets divergence.db, diff-CASE/ (diff.md,
# heatmap-B-*.png), CASE.json and divergence.log (the dumps, hundreds of
# MB, stay in a temporary directory removed at exit); the table last
# (a row per case and output: elements differing, %, max ULP, first index,
# histogram, figures agreeing with numpy). Exit 0 when every figure agrees
# and --require-exact said 1, else 1.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
RESULTS=${OUT:-$ROOT/gpu-out}
mkdir -p "$RESULTS"
AB=$ROOT/build/abbench
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$AB" ] || { echo "divergence.sh: no $AB: run make first"; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/abbench-divergence.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
export ABBENCH_PYTHON=$PY PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$TMP/triton
DB=$RESULTS/divergence.db
LOG=$RESULTS/divergence.log
table=$TMP/table.txt
: >"$table"
: >"$LOG"
status=0
steps=${*:-swiglu lineage}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
say() { echo "$*" | tee -a "$LOG"; }

# check TAG CASE: the case's diff in three formats and the numpy check.
check() {
	local tag=$1 case=$2 json=$RESULTS/$2.json
	say "=== diff $case ==="
	"$AB" diff "$tag" "$case" --db "$DB" 2>&1 | tee -a "$LOG"
	"$AB" diff "$tag" "$case" --db "$DB" --format markdown --out "$RESULTS/diff-$case/" 2>&1 | tee -a "$LOG"
	if ! "$AB" diff "$tag" "$case" --db "$DB" --format json --out "$json" 2>>"$LOG"; then
		echo "$case: no diff json" >>"$table"
		status=1
		return
	fi
	"$PY" scripts/divergence_check.py "$TMP/dump-$tag/$case" "$json" >"$TMP/check.txt" 2>&1
	local rc=$?
	cat "$TMP/check.txt" >>"$LOG"
	grep "^$case " "$TMP/check.txt" >>"$table"
	grep '^MISMATCH' "$TMP/check.txt" >>"$TMP/verdicts.txt"
	grep '^divergence_check:' "$TMP/check.txt" >>"$TMP/verdicts.txt"
	[ "$rc" -eq 0 ] || status=1
}

# run TAG SCENARIO CASES: one run of those cases with --dump and --require-exact.
run() {
	local tag=$1 scn=$2 cases=$3 t0=$(date +%s)
	say "=== run $tag: $scn --only $cases ==="
	timeout -k 10 240 "$AB" run "$scn" --db "$DB" --label "$tag" --only "$cases" --dump "$TMP/dump-$tag" --no-progress \
		--require-exact >>"$LOG" 2>&1
	local rc=$?
	say "$tag: exit $rc in $(($(date +%s) - t0)) s (--require-exact: 1 expected, the cases are not byte-equal)"
	tail -6 "$LOG" | grep -E '^(verdict|abbench)' || true
	[ "$rc" -eq 1 ] || status=1
	echo "require-exact $tag: exit $rc (expected 1)" >>"$TMP/verdicts.txt"
	local c
	for c in ${cases//,/ }; do
		check "$tag" "$c"
	done
}

say "=== device ==="
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv 2>&1 |
	tee -a "$LOG"
"$AB" --version | head -3 | tee -a "$LOG"
: >"$TMP/verdicts.txt"
want swiglu && run swiglu scenarios/swiglu.ini mlp_777_f32
want lineage && run lineage scenarios/lineage.ini mod_f32,qk_f32
want cpu && run cpu scenarios/divergence_cpu.ini ln_twopass,mss_inexact
echo
echo "=== divergence: abbench diff against numpy (results in $RESULTS) ==="
cat "$TMP/verdicts.txt"
printf '%-12s %-7s %-10s %-8s %-8s %-7s %-28s %s\n' case tensor differing % "max ULP" first "ULPs 1/2/3-10/11-1000/>1000" \
	"figures agree"
awk '{ printf "%-12s %-7s %-10s %-8s %-8s %-7s %-28s %s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$table"
exit "$status"
