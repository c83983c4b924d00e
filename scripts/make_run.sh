#!/usr/bin/env bash
# `make run`: runs GLM-Image's sites on the best backend available, then
# prints the run and writes the report when the report command is built in.
#
# Usage: scripts/make_run.sh [ABBENCH] [SCENARIO]
# Without SCENARIO: scenarios/glm_1024.ini when a CUDA device answers
# (`abbench backends --check cuda`), else scenarios/glm_cpu.ini, the same
# sites at CPU-sized shapes, after one line saying what CPU timings mean.
set -euo pipefail
bin=${1:-build/abbench}
scenario=${2:-}
db=${ABBENCH_DB:-abbench.db}

backend=()
if [ -z "$scenario" ]; then
	if "$bin" backends --check cuda; then
		scenario=scenarios/glm_1024.ini
	else
		scenario=scenarios/glm_cpu.ini
		# the one notice: run is told the backend, so it does not say again
		# that auto fell back to the CPU
		backend=(--backend cpu)
		echo "abbench: no CUDA device answers: running $scenario on the CPU backend; CPU timings exercise the pipeline and do not judge GPU kernels."
	fi
fi

"$bin" run "$scenario" --db "$db" "${backend[@]}"
"$bin" show last --db "$db"
if "$bin" --help | grep -q '^  report'; then
	"$bin" report last --db "$db"
fi
