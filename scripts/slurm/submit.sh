#!/usr/bin/env bash
# submit.sh - a scenario as a Slurm job array of N shards, then one job that
# merges and gates them, submitted with the dependency between them.
#
#   scripts/slurm/submit.sh SCENARIO N [BASELINE]
#
# Environment: ABBENCH (default build/abbench beside this script, made
# absolute), DB (the database the run set is merged into, default
# abbench.db), RUN_SET (default slurm-DATE), OUT_DIR (default
# reports/RUN_SET), LABEL, RUN_OPTS (extra `abbench run` options), SBATCH
# (default sbatch), SBATCH_OPTS (e.g. "--partition=h200 --account=x").
# Prints the two job ids. The jobs start in OUT_DIR and write their logs
# there (slurm-shard-I.out, slurm-merge-gate-JOBID.out), whatever directory
# sbatch is called from; SBATCH_OPTS come last, so they may override it.
# tests/cli/t250-slurm-cluster.sh runs this on a real single-node cluster.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: scripts/slurm/submit.sh SCENARIO N [BASELINE]" >&2
	exit 2
fi
n=$2
case "$n" in '' | *[!0-9]*) echo "submit: N must be a number of shards, not '$n'" >&2; exit 2 ;; esac
[ -r "$1" ] || { echo "submit: cannot read scenario '$1'" >&2; exit 2; }

abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
SCENARIO=$(abs "$1")
BASELINE=${3:-}
ABBENCH=$(abs "${ABBENCH:-$here/../../build/abbench}")
RUN_SET=${RUN_SET:-slurm-$(date -u +%Y%m%dT%H%M%SZ)}
OUT_DIR=${OUT_DIR:-reports/$RUN_SET}
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
DB=$(abs "${DB:-abbench.db}")
LABEL=${LABEL:-$RUN_SET}
RUN_OPTS=${RUN_OPTS:-}
export ABBENCH SCENARIO RUN_SET OUT_DIR DB BASELINE LABEL RUN_OPTS
read -r -a extra <<<"${SBATCH_OPTS:-}"
sbatch=${SBATCH:-sbatch}

array=$("$sbatch" --parsable --export=ALL --chdir="$OUT_DIR" --output="$OUT_DIR/slurm-shard-%a.out" \
	"${extra[@]}" --array="1-$n" "$here/shard.sbatch")
array=${array%%;*}
gate=$("$sbatch" --parsable --export=ALL --chdir="$OUT_DIR" --output="$OUT_DIR/slurm-merge-gate-%j.out" \
	"${extra[@]}" --dependency="afterany:$array" "$here/merge_gate.sbatch")
gate=${gate%%;*}
echo "run set $RUN_SET: shards job $array (array 1-$n), merge and gate job $gate (afterany:$array); results in $OUT_DIR"
