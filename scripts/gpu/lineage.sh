#!/usr/bin/env bash
# The GPU check of the Python arms of issue 21 (items 4 and 5) that needs no
# abbench build and no Python arms in abbench: scripts/gpu/lineage_check.py
# on the GPU machine's Python (torch and Triton). For the four GLM sites'
# arms of examples/python/glm_sites.py and the three lineage sites' of
# examples/python/lineage_sites.py, at their real shapes and on five input
# kinds: eager and fused on the same bytes, differing elements, do_bench
# times (L2 flushed, median), the CUDA kernels each arm launches, and a
# table last. Triton compiles into a fresh cache, so the JIT is part of the
# run (about a minute on an H200 in all).
# Usage: scripts/gpu/lineage.sh [lineage_check.py options]
#   PYTHON (default /opt/torch/.venv/bin/python3, else python3) picks the
#   interpreter. Results: $OUT (or ./gpu-out) gets lineage.log and
#   lineage.json. Exit status: lineage_check.py's (0 every exact kernel
#   byte-equal, 1 not, 2 no torch, Triton or GPU).
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" lineage
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=python3
TRITON_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/lineage-triton.XXXXXX") || exit 1
export TRITON_CACHE_DIR PYTHONUNBUFFERED=1
trap 'rm -rf "$TRITON_CACHE_DIR"' EXIT

echo "=== device ==="
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv 2>&1
echo "=== lineage_check ($PY) ==="
start=$(date +%s)
"$PY" scripts/gpu/lineage_check.py --json "$RESULTS/lineage.json" "$@" 2>&1 | tee "$RESULTS/lineage.log"
status=${PIPESTATUS[0]}
echo "lineage.sh: $(($(date +%s) - start)) s, exit status $status" | tee -a "$RESULTS/lineage.log"
exit "$status"
