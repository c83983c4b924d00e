#!/usr/bin/env bash
# `make run`: runs the scenario on the best backend available (auto: CUDA
# when a device answers, else the CPU), then prints the run and writes the
# report when the report command is built in.
set -euo pipefail
bin=${1:-build/abbench}
scenario=${2:-scenarios/glm_1024.ini}
db=${ABBENCH_DB:-abbench.db}

"$bin" run "$scenario" --db "$db"
"$bin" show last --db "$db"
if "$bin" --help | grep -q '^  report'; then
	"$bin" report last --db "$db"
fi
