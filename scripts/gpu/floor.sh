#!/usr/bin/env bash
# The floor stage of a GPU session (issue 24 items 1, 3, 4; the helper
# `floor`), on the GPU machine with build/ made elsewhere (this script
# builds nothing; it checks and times):
#   unit    build/tests/test_backend_cuda (test_gpu_graph among them: graph
#           replays, per-launch records; the span's floor in the notes)
#   glm     scenarios/glm_1024.ini on cuda, timed whole: every case's copy
#           floor (the best of the four streaming copies, wall and CUPTI
#           kernel time), the fused arm's kernel time over the floor's, the
#           md5 of every case's outputs against the ones docs/PERF_NOTES.md
#           recorded (they must not change), the stop reasons, the run's
#           phase times and the span's floor (its notes)
#   span    wall - kernel of the one-kernel fused arms (B slots) under the
#           sample order of issue 24.3 and under ABBENCH_SPAN=legacy (the
#           order before it), runs alternating legacy, new, legacy on the
#           four cases whose fused arm is one launch
#   graph   glm_1024 with timing = graph (max_time_ms 500 a slot): each
#           arm's launch-free time beside its events time and CUPTI kernel
#           time, and its md5s (the same kernels: the same bytes); the
#           four 4096-token cases only: the text stream's arms (3-6 us) are
#           within the noise of ten L2 flushes, which the backend refuses
#           to call a time (run 5 of the H200's call 4: the fused txt arm's
#           replay took 198.11 us, the flushes alone 199.36)
# Usage: scripts/gpu/floor.sh [STAGE ...] (default: unit glm span graph);
# through scripts/gpu/session.sh: floor:200 (about 80-120 s).
# Results: $OUT (or ./gpu-out): floor.db, the logs, json/ (each run's
# export, which the table reads: scripts/gpu/tables.py floor),
# floor-table.txt; the table is printed last.
# Exit status: 0 when every run succeeded and every md5 matched; 1 otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" floor "$@"
[ -n "$stages" ] || stages="unit glm span graph"
DB="$RESULTS/floor.db"
rm -f "$DB" "$DB"-*
export ABBENCH_DB="$DB"
lines=()
note() { lines+=("$(printf '%-34s %s' "$1" "$2")"); }
# run LABEL LIMIT ARGS...: one bounded abbench run, its wall time noted,
# its export read into $JSON
run() {
	local label=$1 limit=$2
	shift 2
	local t0 t1 rc=0
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "$AB" run "$@" --backend cuda --label "$label" --no-progress \
		>"$RESULTS/$label.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	note "run $label" "exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	[ "$rc" -eq 0 ] || status=1
	[ "$rc" -eq 0 ] && ab_json export "$label" >/dev/null
	return "$rc"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "floor.sh: abbench does not start here"; exit 1; }

if want unit; then
	if [ -x build/tests/test_backend_cuda ]; then
		timeout -k 5 90 build/tests/test_backend_cuda >"$RESULTS/unit.log" 2>&1
		rc=$?
		note "test_backend_cuda" "exit $rc ($(grep -c '^\[       OK \]' "$RESULTS/unit.log") ok, $(grep -c '^\[  FAILED  \] test' "$RESULTS/unit.log") failed)"
		[ "$rc" -eq 0 ] || status=1
		grep -m1 'graph: first wall' "$RESULTS/unit.log" | sed 's/^/  /' | cut -c1-200
	else
		note "test_backend_cuda" "not built"
	fi
fi

want glm && run glm 120 scenarios/glm_1024.ini

if want span; then
	one=img_ln_modulate,txt_ln_modulate,ln_continuous,img_gate_add,txt_gate_add
	ABBENCH_SPAN=legacy run span-legacy1 60 scenarios/glm_1024.ini --only "$one"
	run span-new 60 scenarios/glm_1024.ini --only "$one"
	ABBENCH_SPAN=legacy run span-legacy2 60 scenarios/glm_1024.ini --only "$one"
fi

if want graph; then
	sed 's/^launch_gaps = include$/launch_gaps = include\ntiming = graph/; s/^max_time_ms = .*/max_time_ms = 500/' \
		scenarios/glm_1024.ini >"$RESULTS/glm_1024_graph.ini"
	run graph 150 "$RESULTS/glm_1024_graph.ini" --only img_ln_modulate,qk_layernorm,ln_continuous,img_gate_add
fi

"$READ" scripts/gpu/tables.py floor "$JSON" >"$RESULTS/floor-table.txt" || status=1
cat "$RESULTS/floor-table.txt"
echo
printf '%s\n' "${lines[@]}"
exit $status
