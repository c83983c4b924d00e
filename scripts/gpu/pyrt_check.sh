#!/usr/bin/env bash
# The GPU half of pyrt's tests (harness/arms/pyrt.h, the Python runtime of
# Python arms), on the GPU machine with a build made elsewhere by `make`
# (with nvcc: it builds build/gpu/pyrt_gpu_check; this script builds
# nothing). build/gpu/pyrt_gpu_check loads the interpreter's libpython at
# run time, allocates its own device buffers and non-blocking stream as
# abbench does, and calls the functions of tests/data/python/gpu_arms.py
# through pyrt, checking in C:
#   python, numpy add-one    the venv's python loads; numpy 2 arrays over host buffers
#   torch                    torch imports and sees CUDA
#   torch add-one            f32 and bf16 writes land in the C buffers (zero copy)
#   torch stream             with a gate kernel holding the stream, the call's
#                            work waits behind it (it went to abbench's stream)
#   triton add-one, stream   the same for a Triton kernel launched from Python
#                            (its warm-up call compiles it)
#   current stream           torch.cuda.current_stream() in the call is abbench's
#   error: ...               exception FILE:LINE, a kept tensor, a changed stream
#   ... per call             host time per call (noop, torch, triton), printed
# Usage: scripts/gpu/pyrt_check.sh [PYTHON] (default /opt/torch/.venv/bin/python3;
# about a minute: importing torch and compiling one Triton kernel). The
# table is the last lines printed; $OUT (or ./gpu-out) gets pyrt_check.log.
# Exit status 0 when every row passed, 1 otherwise (2: nothing to run).
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" pyrt_check
LOG=$RESULTS/pyrt_check.log
PY=${1:-/opt/torch/.venv/bin/python3}
CHECK=build/gpu/pyrt_gpu_check
if [ ! -x "$CHECK" ]; then
	echo "pyrt_check: no $CHECK: run make with nvcc first (it builds the check)" | tee "$LOG"
	exit 2
fi
# No __pycache__ in the source tree.
export PYTHONDONTWRITEBYTECODE=1
{
	echo "=== device"
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	echo "=== $PY"
	"$PY" -c 'import sys, numpy, torch; print(sys.version.split()[0], "numpy", numpy.__version__, "torch", torch.__version__, "cuda", torch.version.cuda)'
	"$PY" -c 'import triton; print("triton", triton.__version__)'
	echo "=== $CHECK --python $PY"
} 2>&1 | tee "$LOG"
timeout 300 "$CHECK" --python "$PY" 2>&1 | tee -a "$LOG"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 124 ] && echo "pyrt_check: the check ran past 300 s (a call that waits forever?)" | tee -a "$LOG"
echo "pyrt_check: $([ "$rc" -eq 0 ] && echo PASS || echo "FAIL (exit $rc)")" | tee -a "$LOG"
[ "$rc" -eq 0 ]
