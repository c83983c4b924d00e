#!/usr/bin/env bash
# One device call of a GPU session: runs the named stages one after the
# other on the GPU machine (build/ made here by `make`, carried there; this
# script builds nothing), each under its own time limit and with its own
# results folder, then packs every stage's results into one tarball (the
# device tool brings back at most 8 files) and prints each stage's closing
# table last.
#
# Usage: scripts/gpu/session.sh STAGE[:SECONDS] ...
#   STAGE is a script of scripts/gpu/ (kernels, plugins, triton, summary,
#   scale, sweeps, ...) with its arguments after '=' (sweeps=old,new), or
#   check=STAGES for scripts/gpu_check.sh's stages (check=unit,selftest,glm).
# Results: $OUT/session.tar.gz (one folder per stage) and $OUT/session.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
RESULTS=${OUT:-$PWD/gpu-out}
WORK=${TMPDIR:-/tmp}/abbench-session
rm -rf "$WORK" && mkdir -p "$WORK" "$RESULTS"
summary="$RESULTS/session.txt"
: >"$summary"
t_start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$summary"
build/abbench --version | tee -a "$summary" || { echo "abbench does not start here"; exit 2; }

for spec in "$@"; do
	limit=${spec##*:}
	[ "$limit" = "$spec" ] && limit=300
	stage=${spec%%:*}
	name=${stage%%=*}
	args=""
	[ "$name" != "$stage" ] && args=${stage#*=}
	dir="$WORK/$name"
	mkdir -p "$dir" "$WORK/tmp-$name" # a stage's TMPDIR must exist: mktemp there fails otherwise
	# STAGE=a,b passes a and b as separate arguments.
	# shellcheck disable=SC2206
	if [ "$name" = check ]; then
		cmd=(scripts/gpu_check.sh ${args//,/ })
	else
		cmd=("scripts/gpu/$name.sh" ${args//,/ })
	fi
	echo
	echo "##### stage $name (${cmd[*]}, limit ${limit}s) #####"
	t0=$(date +%s)
	OUT="$dir" TMPDIR="$WORK/tmp-$name" timeout -k 10 "$limit" "${cmd[@]}" >"$dir/stdout.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	tail -40 "$dir/stdout.log"
	{
		echo
		echo "== stage $name: exit $rc in ${secs}s$([ "$rc" -eq 124 ] && echo ' (TIMED OUT)')"
		tail -25 "$dir/stdout.log"
	} >>"$summary"
done
rm -rf "$WORK"/tmp-*
tar -czf "$RESULTS/session.tar.gz" -C "$WORK" .
echo
echo "##### session: $(( $(date +%s) - t_start ))s #####"
cat "$summary"
