#!/usr/bin/env bash
# The GLM-Image block's Python arms without abbench (docs/BLOCK.md):
# tests/tools/block_standin_check.py calls examples/python/glm_block.py's
# block_* and step_* as abbench's CPU backend will (numpy stand-in, bf16 as
# uint16) and checks the contract, eager == fused bytes, determinism,
# magnitudes, dependence on every input, agreement with a float64 model,
# and that an inexact fused gate is caught. Where Debian's interpreter
# also has torch (python3-torch, not installed by make deps), the GPU
# driver's CPU smoke runs too: the torch model at tiny dims, its fused
# path's wiring, and its agreement with the numpy stand-in.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "SKIP: $PY cannot import numpy (Debian's python3-numpy)"
	exit 0
fi
expect_exit 0 "block_standin_check.py passes" "$PY" tests/tools/block_standin_check.py
grep -v '^ok' "$T/out" | sed 's/^/    /'
check "it ran its checks (at least 40 ok lines)" test "$(grep -c '^ok - ' "$T/out")" -ge 40

if "$PY" -c 'import torch' 2>/dev/null; then
	expect_exit 0 "block_check.py --cpu-smoke passes" "$PY" scripts/gpu/block_check.py --cpu-smoke
	check "the smoke compared the torch model with the numpy stand-in" \
		grep -q '^cpu smoke: fused path wiring ok; torch vs numpy ok' "$T/out"
else
	echo "ok - # SKIP $PY has no torch: the torch model's CPU smoke is left out"
fi
finish
