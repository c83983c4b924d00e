#!/usr/bin/env bash
# The GPU self-check of Python arms (harness/arms/python_arm.c,
# docs/PYTHON_ARMS.md) on the GPU machine, with build/ made elsewhere by
# `make` (this script builds nothing; it needs build/abbench). The venv's
# Python (torch with CUDA) runs tests/data/python/torch_rga.py's functions
# as arm b of residual_gate_add on the CUDA backend, a = the built-in
# eager arm:
#   eager      PyTorch's eager chain (torch.mul, torch.add) under the
#              default launch_gaps (hide): exit 0, B byte-equal to A1 in
#              both cases, CUPTI names aten kernels (at::native, demangled
#              or not) for b and none of abbench's own (ab_eager_*); the
#              host time of a call stored for every slot, A's and B's
#   inexact    the product kept in float32: exit 0, B NOT byte-equal
#   include    launch_gaps = include (the host's gaps in the time): exit
#              0, byte-equal
#   syncs      an arm that calls torch.cuda.synchronize() while queueing,
#              under hide: refused before the run (exit 3) within 60 s,
#              the message says the call waits for the GPU and names
#              launch_gaps = include; no run stored
#   item       the same through .item()
#   warmup     a function whose first call of each slot sleeps 0.3 s:
#              exit 0, every B sample under 0.1 s (the warm-up call is
#              untimed), the sleep seen once per B slot and once per case
#              in the call every arm gets before the run (4)
#   provenance show names the module, the venv's python and torch's version
#   raises     an exception in a call: exit 3 before the run (every arm is
#              called once first), nothing stored, the message names
#              torch_rga.py:LINE
#   into_input a write into input x: exit 3 before the run, the input check
#              names 'x'
#   hosttime   the eager run's show JSON: every slot, A's and B's, has the
#              host time of a call (host_median_ns > 0)
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

step "include: launch_gaps = include"
run include "$(scenario include rga_eager 'launch_gaps = include')"
[ "$rc" -eq 0 ] && [ "$(exact_lines include yes)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
row include "exit 0, byte-equal, the host's gaps in the time" "$v"
timed+=(include)

# refused_before LABEL FUNCTION EXPECTED REGEX...: b = FUNCTION is refused
# by the call every arm gets before the run: exit 3 within 60 s, no run
# stored under LABEL, every REGEX in the message.
refused_before() {
	local label=$1 fn=$2 expected=$3 t0 secs ok=1 re
	shift 3
	t0=$(date +%s)
	timeout 240 "$AB" run "$(scenario "$label" "$fn")" --backend cuda --db "$DB" --label "$label" --no-progress \
		>"$LOGS/$label.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	cat "$LOGS/$label.log"
	grep -q "checking every arm before the run (nothing measured or stored)" "$LOGS/$label.log" || ok=0
	for re in "$@"; do grep -Eq "$re" "$LOGS/$label.log" || ok=0; done
	"$AB" show "$label" --db "$DB" >/dev/null 2>&1 && ok=0 # no run under that label
	[ "$rc" -eq 3 ] && [ "$ok" -eq 1 ] && [ "$secs" -lt 60 ] && v="PASS (${secs}s)" || v="FAIL (exit $rc, ${secs}s)"
	row "$label" "$expected" "$v"
}

step "syncs: torch.cuda.synchronize() in the call, under hide"
refused_before syncs syncs "exit 3 before the run in < 60 s, 'waits for the GPU', no hang" \
	"arm 'syncs'.*the arm's call returned after [0-9.]+ s, only once the spin kernel" \
	"the call waits for the GPU while queueing" "launch_gaps = include"

step "item: .item() in the call, under hide"
refused_before item item "exit 3 before the run in < 60 s, 'waits for the GPU', no hang" \
	"arm 'item'.*the call waits for the GPU while queueing"

step "warmup: the first call of each slot sleeps 0.3 s"
run warmup "$(scenario warmup slow_first)"
longest=$("$READ" scripts/gpu/abjson.py longest "$JSON/warmup.export.json" b 2>/dev/null)
sleeps=$(grep -c '^slow_first: first call of a slot' "$LOGS/warmup.log")
[ "$rc" -eq 0 ] && [ "$sleeps" -eq 4 ] && awk -v t="$longest" 'BEGIN { exit !(t > 0 && t < 1e8) }' &&
	v="PASS (longest B sample $longest ns)" || v="FAIL (exit $rc, $sleeps sleeps, longest B sample '$longest' ns)"
row warmup "exit 0, 4 sleeps (2 slots + 2 before the run), B samples < 0.1 s" "$v"

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
line=$(grep -n 'MARK: raises$' "$MOD" | cut -d: -f1)
refused_before raises raises "exit 3 before the run, torch_rga.py:LINE: in raises: RuntimeError" \
	"arm 'raises': $MOD:$line: in raises: RuntimeError: "

step "into_input: a write into input x"
refused_before into_input into_input "exit 3 before the run, the input check names 'x'" "wrote into its input 'x'"

step "hosttime: the host time of a call, stored for every slot of the eager run"
host=$("$READ" scripts/gpu/abjson.py hosttime "$JSON/eager.show.json" 2>/dev/null | grep -v '^launch-bound ')
missing=$(awk -F'\t' '$4 == "n/a" || !($4 > 0)' <<<"$host" | grep -c .)
host_line=$(awk -F'\t' '{ printf "%s%s %s %s us (GPU %s)", (NR > 1 ? ", " : ""), $1, $2, $4, $5 }' <<<"$host")
echo "host median per slot: $host_line"
[ "$(grep -c . <<<"$host")" -eq 6 ] && [ "$missing" = 0 ] && v="PASS ($host_line)" ||
	v="FAIL ($missing slots without a host time: $host_line)"
row hosttime "every slot (2 cases x A1 B A2): a host median > 0" "$v"

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
