#!/usr/bin/env bash
# The kernels stage of a GPU session (issue 8 items 2, 3, 5; issue 10 item
# 4), on the GPU machine, with build/ made elsewhere (this script builds
# nothing):
#   1. selftest: build/gpu/test_cuda_kernels, every shipped variant of every
#      site (`fused` and each fused.<tuning>) byte-equal to eager, eager
#      equal to the host emulation, refusals as each tuning's rule says;
#   2. glm: scenarios/glm_1024.ini on cuda: every case's eager and fused
#      medians and the md5 of their outputs (the same md5 in every slot of a
#      case: fused byte-equal to eager);
#   3. tuning: scenarios/tuning_glm.ini on cuda, per case the winner (arm a)
#      against one contender (arm b) with abbench's own A/B/A measurement;
#      B/A > 1 means the winner stays; then every scenarios/tuning_glm_copy/
#      *.ini: the winner against a plain copy of the same bytes (the copy
#      floor, scripts/gpu/copy_floor.cu; its md5 differs by design);
#   4. sass: cuobjdump's SASS of the fused kernels (build/abbench) into
#      $OUT/kernels-sass.txt.gz, for reading here (no disassembler there).
# Last, a short table: run, case, arm (variant), median with events and
# CUPTI kernel time per slot, md5, and B/A for both, read from each run's
# export and show --format json (scripts/gpu/tables.py kernels): the md5
# agreement and B/A are the summary's (b_byte_equal and a_deterministic,
# 1 / speedup of the pooled medians), not recomputed.
# Usage: scripts/gpu/kernels.sh [STAGE ...]   (default: selftest glm tuning;
# selftest-quick instead of selftest runs the self-test's --quick set).
# Every abbench run is bounded (RUN_LIMIT seconds, default 90), the
# self-test too (SELFTEST_LIMIT, default 400): a kernel that hangs costs
# that, not the device call.
# Through scripts/gpu/session.sh: kernels:600 (the full self-test plus about
# 16 s of glm_1024 and 8 tuning runs of up to 15 s each).
# Results: $OUT (or ./gpu-out) gets kernels.db, json/ (the documents the
# table reads), kernels-logs.tar.gz (every log, the CSV exports) and
# kernels-summary.txt (the table).
# Exit status: 0 when every stage ran, the self-test passed and every
# case's md5 agreed across its slots; 1 otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" kernels "$@"
[ -n "$stages" ] || stages="selftest glm tuning"
DB="$RESULTS/kernels.db"
rm -f "$DB"
labels=()

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "kernels.sh: abbench does not start here"; exit 1; }
"$AB" backends

if want selftest || want selftest-quick; then
	step selftest
	quick=""
	want selftest-quick && ! want selftest && quick=--quick
	if timeout -k 5 "${SELFTEST_LIMIT:-400}" build/gpu/test_cuda_kernels $quick 2>&1 | tee "$LOGS/selftest.log"; then
		echo "selftest PASS" >"$LOGS/selftest.verdict"
	else
		echo "selftest FAIL" >"$LOGS/selftest.verdict"
		status=1
	fi
fi

# run LABEL SCENARIO: one abbench run on cuda, its show and its CSV; its
# show and export --format json for the table.
run() {
	step "$1 ($2)"
	if timeout -k 5 "${RUN_LIMIT:-90}" "$AB" run "$2" --backend cuda --db "$DB" --label "$1" --no-progress 2>&1 |
		tee "$LOGS/run_$1.log"; then
		"$AB" show "$1" --db "$DB" | tee "$LOGS/show_$1.txt"
		"$AB" export "$1" --csv "$LOGS/$1.csv" --db "$DB"
		ab_json export "$1" "$DB" >/dev/null && ab_json show "$1" "$DB" >/dev/null && labels+=("$1")
	else
		echo "kernels.sh: abbench run $2 failed"
		status=1
	fi
}

want glm && run kernels-glm scenarios/glm_1024.ini
if want tuning; then
	run tuning-glm scenarios/tuning_glm.ini
	for scn in scenarios/tuning_glm_copy/*.ini; do
		run "copy-$(basename "$scn" .ini)" "$scn"
	done
fi
if want sass; then
	step sass
	cuobjdump -sass build/abbench 2>&1 | awk '/Function : / { keep = ($0 ~ /ab_fused_/) } keep' |
		gzip >"$RESULTS/kernels-sass.txt.gz"
	echo "kernels.sh: $(zcat "$RESULTS/kernels-sass.txt.gz" | grep -c 'Function : ') fused kernels disassembled"
fi

step table
"$READ" scripts/gpu/tables.py kernels "$JSON" "${labels[@]}" >"$LOGS/table.txt" || status=1
[ -f "$LOGS/selftest.verdict" ] && cat "$LOGS/selftest.verdict" >>"$LOGS/table.txt" &&
	grep -E "^[0-9]+ passed" "$LOGS/selftest.log" >>"$LOGS/table.txt"
cp "$LOGS/table.txt" "$RESULTS/kernels-summary.txt"
tar -czf "$RESULTS/kernels-logs.tar.gz" -C "$TMP" logs
echo
echo "=== kernels summary ==="
cat "$LOGS/table.txt"
exit "$status"
