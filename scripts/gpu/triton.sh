#!/usr/bin/env bash
# The Triton stage of a GPU session (issue 10 item 3), on the GPU machine,
# with build/abbench made elsewhere (this script builds nothing):
#   1. scripts/triton/export.py: compiles the Triton kernels of
#      scripts/triton/, checks their bytes against PyTorch's eager chain and
#      their driver-API launch against Triton's, exports NAME.cubin +
#      NAME.json to triton-out/ (where scenarios/triton_glm.ini looks);
#   2. abbench runs scenarios/triton_glm.ini, one run of every case whose
#      kernel exported (the Triton kernel as each case's arm b against
#      eager) and, for the comparison, glm_1024.ini's
#      img_ln_modulate and qk_layernorm cases (the CUDA fused arm as b);
#   3. a table last: case, slot, arm, median and CUPTI kernel time, whether
#      the slot's outputs are byte-equal to A1's, how many elements differ,
#      and the CUPTI kernel names.
# Usage: scripts/gpu/triton.sh        Results: $OUT (or ./gpu-out) gets
# triton.db, json/ (each run's export --format json, which the table reads:
# scripts/gpu/tables.py triton) and triton-logs.tar.gz (logs, export table,
# manifest, show outputs). Exit status: 0 when every step ran and every
# kernel that claims exactness was byte-equal in export.py; 1 otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" triton "$@"
DB="$RESULTS/triton.db"
rm -f "$DB"
export PYTHONUNBUFFERED=1
labels=()

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 1; }

step export
if ! python3 scripts/triton/export.py --out triton-out 2>&1 | tee "$LOGS/export.log"; then
	echo "triton.sh: export.py reported failures (see export.log)"
	status=1
fi
cp triton-out/manifest.json "$LOGS/" 2>/dev/null

# The cases of the kernels that exported (cases are named KERNEL.STREAM).
only=
for arm in $(sed -n 's/^\[arm \(.*\)\]$/\1/p' scenarios/triton_glm.ini); do
	if [ -f "triton-out/$arm.json" ]; then
		only="${only:+$only,}$arm.*"
	else
		echo "triton.sh: no triton-out/$arm.json (export failed?); its cases skipped"
		status=1
	fi
done
step "triton_glm.ini ($only)"
if [ -z "$only" ]; then
	echo "triton.sh: no kernel exported: nothing to run"
	status=1
elif "$AB" run scenarios/triton_glm.ini --backend cuda --db "$DB" --only "$only" --label triton-glm --no-progress 2>&1 |
	tee "$LOGS/run_triton_glm.log"; then
	"$AB" show triton-glm --db "$DB" | tee "$LOGS/show_triton_glm.txt"
	ab_json export triton-glm "$DB" >/dev/null && labels+=(triton-glm)
else
	echo "triton.sh: abbench run scenarios/triton_glm.ini failed"
	status=1
fi

for c in img_ln_modulate qk_layernorm; do
	step "cuda fused: glm_1024 $c"
	if "$AB" run scenarios/glm_1024.ini --backend cuda --db "$DB" --only "$c" --label "fused-$c" --no-progress \
		>"$LOGS/run_fused_$c.log" 2>&1; then
		"$AB" show "fused-$c" --db "$DB" >"$LOGS/show_fused_$c.txt"
		ab_json export "fused-$c" "$DB" >/dev/null && labels+=("fused-$c")
	else
		echo "triton.sh: glm_1024 --only $c failed"
		status=1
	fi
done

step table
"$READ" scripts/gpu/tables.py triton "$JSON" "${labels[@]}" | tee "$LOGS/table.txt"

tar czf "$RESULTS/triton-logs.tar.gz" -C "$TMP" logs -C "$PWD" triton-out
echo
echo "triton.sh: results in $RESULTS (triton.db, triton-logs.tar.gz); status $status"
exit $status
