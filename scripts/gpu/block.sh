#!/usr/bin/env bash
# The GLM-Image block on the GPU machine, eager against fused, without
# abbench's Python arms (issue 22; docs/BLOCK.md): scripts/gpu/block_check.py
# at the real dims, with build/libabbench_kernels.so made elsewhere by
# `make` and carried (this script builds nothing).
#
# Usage: scripts/gpu/block.sh [block_check.py options]
# Results: $OUT (or ./gpu-out) gets block_check.log (everything printed)
# and block_check.json (every figure). The table is printed last.
# Exit status: block_check.py's (0 every fused path byte-equal to eager,
# 1 a difference or a failed step, 2 no GPU), or 2 when the library or
# the interpreter is missing. About a minute on an H200.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" block
export PYTHONUNBUFFERED=1
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=$(command -v python3) || { echo "block.sh: no python3"; exit 2; }
LIB=${ABBENCH_KERNELS_LIB:-$PWD/build/libabbench_kernels.so}
if [ ! -f "$LIB" ]; then
	echo "block.sh: $LIB is missing: run make here (nvcc) and carry build/libabbench_kernels.so"
	exit 2
fi
export ABBENCH_KERNELS_LIB=$LIB

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv
"$PY" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' ||
	echo "block.sh: torch or triton does not import with $PY"
timeout 300 "$PY" scripts/gpu/block_check.py --json "$RESULTS/block_check.json" "$@" 2>&1 |
	tee "$RESULTS/block_check.log"
status=${PIPESTATUS[0]}
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,memory.used --format=csv,noheader
echo "block.sh: block_check.py exit $status"
exit "$status"
