#!/usr/bin/env bash
# scripts/gpu/aa.sh's part python (A/A pairs of Python arms, issue 28) on
# the CPU: the machinery only, with numpy arms of residual_gate_add in
# place of swiglu_aa.ini's torch and Triton arms (AA_PYTHON_SCENARIO), the
# fake timer and a stand-in nvidia-smi: one pair, gated, in the one table
# with its own row; the part's name checked, and that the default part
# list is still smoke, plants and glm.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$T/gpubin"
printf '#!/bin/sh\necho "name, driver_version"\necho "stand-in GPU, 0"\n' >"$T/gpubin/nvidia-smi"
chmod +x "$T/gpubin/nvidia-smi"
SAMPLES=12
py_scenario "$T/py.ini" "python:$PYDATA/rga_numpy.py:rga_exact" "python:$PYDATA/rga_numpy.py:rga_exact"
expect_exit 0 "gpu/aa.sh python, 1 pair, on the CPU" env PATH="$T/gpubin:$PATH" OUT="$T/gpu" AA_PAIRS=1 \
	AA_THRESHOLDS=2,5 AA_PYTHON_SCENARIO="$T/py.ini" AA_OPTIONS="--backend cpu --fake-timer" ABBENCH="$AB" \
	scripts/gpu/aa.sh python 200
check "its folder" test -s "$T/gpu/aa-python/results.tsv" -a -s "$T/gpu/aa-python/log.txt"
check "its row in the one table" grep -qF '| A/A `py` (false alarms) | 1 | 0 | 0 |' "$T/gpu/aa-table.md"
check "the table's last line" bash -c "tail -n 1 '$T/out' | grep -q '^smallest threshold with no false alarm in 1 A/A pairs (py): 2%'"
expect_exit 1 "a misspelt part" scripts/gpu/aa.sh pyton
check "the parts are named" grep -q "unknown part 'pyton' (smoke, plants, glm, python" "$T/out"
check "the default parts stay smoke, plants and glm" grep -q '^\[ ${#parts\[@\]} -gt 0 \] || parts=(smoke plants glm)$' scripts/gpu/aa.sh
expect_exit 0 "the shipped A/A scenario of Python arms parses" "$AB" sites scenarios/swiglu_aa.ini
finish
