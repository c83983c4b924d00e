#!/usr/bin/env bash
# The gate-sharpness stage of a GPU session (issue 23, item 10), on the GPU
# machine with build/ made elsewhere by `make` (this script builds nothing;
# it needs build/abbench and build/examples/plugin/librga_plant.so, which
# make builds when nvcc is found): scripts/aa_check.sh on real timing, in
# parts, each on the cuda backend and gated at every threshold:
#   smoke   A/A pairs of scenarios/smoke.ini (false alarms)
#   plants  planted pairs into examples/plugin/rga_plant.ini (residual_gate_add
#           1x4096x4096 and 2x4096x4096): the exact plugin arm plant0 against
#           plant2, plant3 and plant5, i.e. 2, 3 and 5% more DRAM bytes (detections)
#   glm     A/A pairs of scenarios/glm_1024.ini (false alarms; ~28 s a pair)
#
# Usage: scripts/gpu/aa.sh [PART...] [SECONDS]   (default: smoke plants glm 540)
#   The parts run in that order; each gets an equal share of what is left
#   of SECONDS (time a part leaves unused goes to the next), as aa_check's
#   --time-limit: a part starts no pair past its share, so the stage ends
#   within SECONDS plus the last pair, and each table covers the pairs done.
# Through scripts/gpu/session.sh, one device call:
#   scripts/gpu/session.sh aa=smoke,plants,glm,560:590
# and, to reach 20 pairs of glm_1024 in a second call: aa=glm,560:590.
# Environment: AA_PAIRS (pairs per part, default 20), AA_PLANTS (default
# 2,3,5), AA_THRESHOLDS (default 2,3,4,5: the gate's --max-regression),
# AA_PLANT_SCENARIO (default examples/plugin/rga_plant.ini), AA_OPTIONS
# (more aa_check options, after the others: tests/cli/t255 runs this
# script on the CPU with "--backend cpu --fake-timer").
# Results: $OUT (or ./gpu-out) gets aa-PART/ (aa_check --out: results.tsv,
# table.md, alarm-*.md per false alarm, log.txt) and aa-table.md, every
# part's results in one table. Several calls' folders add up on any
# machine: scripts/aa_check.sh --table call1/aa-glm call2/aa-glm ...
# The table's last line names the smallest threshold with no false alarm
# in all the A/A pairs and what it detects there (profiles/h200.ini's
# gate_max_regression_pct is chosen from it).
# Exit status: 0 when every part ran and some threshold had no false
# alarm, 1 otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" aa
pairs=${AA_PAIRS:-20} plants=${AA_PLANTS:-2,3,5} thresholds=${AA_THRESHOLDS:-2,3,4,5}
plant_scenario=${AA_PLANT_SCENARIO:-examples/plugin/rga_plant.ini}
read -r -a extra <<<"${AA_OPTIONS:-}"
budget=540 parts=()
for a in "$@"; do
	case "$a" in
	smoke | plants | glm) parts+=("$a") ;;
	*[!0-9]* | "") echo "aa.sh: unknown part '$a' (smoke, plants, glm, or a number of seconds)" && exit 1 ;;
	*) budget=$a ;;
	esac
done
[ ${#parts[@]} -gt 0 ] || parts=(smoke plants glm)

echo "=== device ==="
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
build/abbench --version || { echo "abbench does not start here"; exit 1; }

status=0 start=$(date +%s) left_parts=${#parts[@]} dirs=()
for part in "${parts[@]}"; do
	left=$((budget - ($(date +%s) - start)))
	share=$((left / left_parts))
	left_parts=$((left_parts - 1))
	dir=$RESULTS/aa-$part
	case "$part" in
	smoke) args=(--pairs "$pairs" --scenario scenarios/smoke.ini) ;;
	plants) args=(--pairs 0 --plants "$plants" --plant-pairs "$pairs" --plant-scenario "$plant_scenario") ;;
	glm) args=(--pairs "$pairs" --scenario scenarios/glm_1024.ini) ;;
	esac
	echo
	echo "=== $part: ${args[*]} --thresholds $thresholds, time limit ${share}s ==="
	if [ "$share" -lt 30 ]; then
		echo "aa.sh: no time left for $part"
		status=1
		continue
	fi
	rc=0
	scripts/aa_check.sh "${args[@]}" --backend cuda --thresholds "$thresholds" --time-limit "$share" --out "$dir" \
		${extra[@]+"${extra[@]}"} >"$dir.log" 2>&1 || rc=$?
	mkdir -p "$dir" && mv "$dir.log" "$dir/log.txt"
	grep -v -e '^|' -e '^device: ' -e '^$' "$dir/log.txt" | tail -n 8
	echo "aa.sh: $part exited $rc after $(($(date +%s) - start))s"
	[ -s "$dir/results.tsv" ] && dirs+=("$dir")
	[ "$rc" -le 1 ] || status=1
done

echo
echo "=== aa.sh: every part in one table ($(($(date +%s) - start))s) ==="
if [ ${#dirs[@]} -eq 0 ]; then
	echo "aa.sh: no results"
	exit 1
fi
rc=0
scripts/aa_check.sh --table "${dirs[@]}" >"$RESULTS/aa-table.md" || rc=$?
cat "$RESULTS/aa-table.md"
[ "$rc" -eq 0 ] || status=1
exit "$status"
