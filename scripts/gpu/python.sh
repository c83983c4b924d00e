#!/usr/bin/env bash
# The GPU self-check of Python arms (harness/arms/python_arm.c,
# docs/PYTHON_ARMS.md) on the GPU machine, with build/ made elsewhere by
# `make` (this script builds nothing; it needs build/abbench). The venv's
# Python (torch with CUDA) runs tests/data/python/torch_rga.py's functions
# as arm b of residual_gate_add on the CUDA backend, a = the built-in
# eager arm:
#   eager      PyTorch's eager chain (torch.mul, torch.add): exit 0, B
#              byte-equal to A1 in both cases, CUPTI names aten kernels
#              (at::native, demangled or not) for b and none of abbench's
#              own (ab_eager_*)
#   inexact    the product kept in float32: exit 0, B NOT byte-equal
#   hide       launch_gaps = hide (the launches queued behind the spin
#              kernel): exit 0, byte-equal, no hang
#   warmup     a function whose first call of each slot sleeps 0.3 s:
#              exit 0, every B sample under 0.1 s (the warm-up call is
#              untimed), the sleep seen once per B slot
#   provenance show names the module, the venv's python and torch's version
#   raises     an exception in a call: exit 3, the run marked failed, the
#              message names torch_rga.py:LINE
#   into_input a write into input x: exit 3, the input check names 'x'
#   notorch    torch hidden (PYTHONPATH): exit 2 before the run, 'cannot
#              import torch', no database made
# Usage: scripts/gpu/python.sh [PYTHON] (default /opt/torch/.venv/bin/python3;
# about two minutes: torch is imported once per run). Each run is under
# `timeout` (240 s: a hang shows as exit 124). Results: $OUT (or ./gpu-out)
# gets python.db, json/ (each run's show and export --format json, which
# the checks read: scripts/gpu/abjson.py) and python-logs.tar.gz. The last lines printed are the
# times (A1 and B medians, B's kernel sum, CUPTI kernel names of b) and
# the table: stage, what was expected, PASS/FAIL. Exit status 0 when
# every stage passed, 1 otherwise, 2 when there is nothing to run.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" python
mkdir -p "$TMP/scn"
PY=${1:-/opt/torch/.venv/bin/python3}
MOD=$ROOT/tests/data/python/torch_rga.py
DB=$RESULTS/python.db
rm -f "$DB"
export ABBENCH_PYTHON=$PY
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
[ -x "$AB" ] || { echo "python.sh: no $AB: run make first"; exit 2; }
table=$LOGS/table.txt
: >"$table"
row() { # stage expected verdict
	printf '%-12s %-60s %s\n' "$1" "$2" "$3" | tee -a "$table"
	case "$3" in PASS*) ;; *) status=1 ;; esac
}

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }
"$PY" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' ||
	{ echo "python.sh: $PY cannot import torch"; exit 2; }

scenario() { # NAME FUNCTION [EXTRA SCENARIO LINES]: the file's path on stdout
	cat >"$TMP/scn/$1.ini" <<EOF
[scenario]
name = python_gpu
backend = cuda
min_samples = 10
max_samples = 2000
min_time_ms = 200
max_time_ms = 1000
${3:-}
[arms]
a = eager
b = python:$MOD:$2
[case gate_glm]
site = residual_gate_add
shape = 1x4096x4096
[case gate_special]
site = residual_gate_add
shape = 2x1024x4096
input = special
EOF
	echo "$TMP/scn/$1.ini"
}
# run LABEL SCENARIO [extra args]: exit status in $rc, output in
# $LOGS/LABEL.log; its show (text, for the log) and its show and export as
# JSON (what the checks read)
run() {
	local label=$1 scn=$2
	shift 2
	timeout 240 "$AB" run "$scn" --backend cuda --db "$DB" --label "$label" --no-progress "$@" >"$LOGS/$label.log" 2>&1
	rc=$?
	cat "$LOGS/$label.log"
	"$AB" show "$label" --db "$DB" >"$LOGS/show_$label.txt" 2>&1 && cat "$LOGS/show_$label.txt"
	ab_json show "$label" "$DB" >/dev/null
	ab_json export "$label" "$DB" >/dev/null
}
# exact_lines LABEL yes|no: the cases whose B is (not) byte-equal to A1
exact_lines() { "$READ" scripts/gpu/abjson.py exact "$JSON/$1.show.json" "$2" 2>/dev/null; }
# kernels LABEL: the CUPTI kernel names of the run's B slots
kernels() { "$READ" scripts/gpu/abjson.py kernels "$JSON/$1.export.json" b 2>/dev/null || echo "(none)"; }
# run_status LABEL: the stored run's status
run_status() { "$READ" scripts/gpu/abjson.py get "$JSON/$1.show.json" run.status 2>/dev/null; }
timed=()

step "eager: PyTorch's eager chain as arm b"
run eager "$(scenario eager rga_eager)"
k=$(kernels eager)
[ "$rc" -eq 0 ] && [ "$(exact_lines eager yes)" = 2 ] && [[ $k == *at::native* || $k == *2at6native* ]] && [[ $k != *ab_eager* ]] &&
	v=PASS || v="FAIL (exit $rc, kernels '${k:0:120}')"
row eager "exit 0, B byte-equal in both cases, CUPTI names at::native" "$v"
timed+=(eager)

step "inexact: the product kept in float32"
run inexact "$(scenario inexact rga_inductor)"
[ "$rc" -eq 0 ] && [ "$(exact_lines inexact no)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
row inexact "exit 0, B NOT byte-equal in both cases" "$v"
timed+=(inexact)

step "hide: launch_gaps = hide"
run hide "$(scenario hide rga_eager 'launch_gaps = hide')"
[ "$rc" -eq 0 ] && [ "$(exact_lines hide yes)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
row hide "exit 0, byte-equal, behind the spin kernel, no hang" "$v"
timed+=(hide)

step "warmup: the first call of each slot sleeps 0.3 s"
run warmup "$(scenario warmup slow_first)"
longest=$("$READ" scripts/gpu/abjson.py longest "$JSON/warmup.export.json" b 2>/dev/null)
sleeps=$(grep -c '^slow_first: first call of a slot' "$LOGS/warmup.log")
[ "$rc" -eq 0 ] && [ "$sleeps" -eq 2 ] && awk -v t="$longest" 'BEGIN { exit !(t > 0 && t < 1e8) }' &&
	v="PASS (longest B sample $longest ns)" || v="FAIL (exit $rc, $sleeps sleeps, longest B sample '$longest' ns)"
row warmup "exit 0, 2 sleeps, every B sample < 0.1 s (warm-up untimed)" "$v"

step "provenance"
src() { "$READ" scripts/gpu/abjson.py get "$JSON/eager.export.json" "run.arm_sources.0.$1" 2>/dev/null; }
echo "arm $(src arm)=$(src name): $(src kind) '$(src path)' sha256 $(src sha256) ($(src detail))"
detail_re="^function 'rga_eager'; python 3\.[0-9.]* \(.*\), numpy [^,]*, torch [0-9]"
[ "$(src arm)$(src name)$(src kind)" = brga_eagerpython ] && [ "$(src path)" = "$MOD" ] &&
	[[ $(src sha256) =~ ^[0-9a-f]{64}$ ]] &&
	[[ $(src detail) =~ $detail_re ]] &&
	v=PASS || v=FAIL
row provenance "export: module, sha256, the venv's python, numpy and torch" "$v"

step "raises: an exception in a call"
run raises "$(scenario raises raises)"
line=$(grep -n 'MARK: raises$' "$MOD" | cut -d: -f1)
[ "$rc" -eq 3 ] && grep -q "arm 'raises': $MOD:$line: in raises: RuntimeError: " "$LOGS/raises.log" &&
	[ "$(run_status raises)" = failed ] && v=PASS || v="FAIL (exit $rc)"
row raises "exit 3, run failed, torch_rga.py:LINE: in raises: RuntimeError" "$v"

step "into_input: a write into input x"
run into_input "$(scenario into_input into_input)"
[ "$rc" -eq 3 ] && grep -q "wrote into its input 'x'" "$LOGS/into_input.log" && v=PASS || v="FAIL (exit $rc)"
row into_input "exit 3, run failed, the input check names 'x'" "$v"

step "notorch: torch hidden from the interpreter"
mkdir -p "$TMP/hide/torch"
echo "raise ImportError('torch hidden by scripts/gpu/python.sh')" >"$TMP/hide/torch/__init__.py"
PYTHONPATH=$TMP/hide timeout 240 "$AB" run "$(scenario notorch rga_eager)" --backend cuda --db "$TMP/notorch.db" --no-progress \
	>"$LOGS/notorch.log" 2>&1
rc=$?
cat "$LOGS/notorch.log"
[ "$rc" -eq 2 ] && grep -q "cannot import torch (ImportError: torch hidden by scripts/gpu/python.sh)" "$LOGS/notorch.log" &&
	[ ! -e "$TMP/notorch.db" ] && v=PASS || v="FAIL (exit $rc)"
row notorch "exit 2 before the run, 'cannot import torch', no database" "$v"

tar -czf "$RESULTS/python-logs.tar.gz" -C "$TMP" logs scn
echo
echo "=== times (A1 and B medians, B kernel sum) and CUPTI kernel names of arm b ==="
for label in "${timed[@]}"; do
	"$READ" scripts/gpu/abjson.py times "$JSON/$label.export.json" "$label"
	echo "         kernels: $(kernels "$label" | cut -c1-200)"
done
echo
echo "=== python.sh: stage, expected, verdict ==="
cat "$table"
exit $status
