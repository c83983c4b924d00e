#!/usr/bin/env bash
# The CI and Slurm recipes, as far as this machine can run them: the GitHub
# Actions workflow parses as YAML and has the recipe's shape
# (tests/tools/workflow_check.py), and every shell in it and in
# scripts/slurm/, scripts/gpu/scale.sh and scripts/gpu/aa.sh passes `bash -n`
# and shellcheck (t256 runs the workflow's blocks).
# Then the Slurm recipe runs for real against a stand-in sbatch that runs
# each job at once on this machine (the array's tasks one by one, then the
# dependent job after checking its afterany: dependency names the array):
# 3 shards of smoke.ini on the CPU backend's fake timer, merged and gated
# against a baseline, pass; when the shards fail (a device that does not
# exist) the gate job finds no run set and exits 2.
. "$(dirname "$0")/lib.sh"
set -e
python3 tests/tools/workflow_check.py .github/workflows/nightly.yml "$T/wf" >"$T/wf.out" || true
while read -r line; do
	case "$line" in
	"ok - "*) ok "workflow: ${line#ok - }" ;;
	"not ok - "*) fail "workflow: ${line#not ok - }" ;;
	esac
done <"$T/wf.out"
check "workflow: run blocks found ($(tail -1 "$T/wf.out"))" grep -qE '^[1-9][0-9]* run blocks written' "$T/wf.out"
for f in "$T"/wf/[0-9]*.sh scripts/slurm/* scripts/gpu/scale.sh scripts/gpu/aa.sh; do
	check "bash -n $(basename "$f")" bash -n "$f"
	check "shellcheck $(basename "$f")" shellcheck -x -s bash -e SC2317 "$f" # -x: scripts/gpu/lib.sh too
done

# a stand-in sbatch: runs the job now; an array task by task
mkdir -p "$T/bin" "$T/slurm"
cat >"$T/bin/sbatch" <<'SB'
#!/usr/bin/env bash
set -u
log=$SBATCH_LOG
array="" dep="" script=""
for a in "$@"; do
	case "$a" in
	--array=*) array=${a#--array=} ;;
	--dependency=*) dep=${a#--dependency=} ;;
	--*) ;;
	*) script=$a ;;
	esac
done
id=$((1000 + $(wc -l <"$log")))
echo "job $id array=$array dep=$dep script=$(basename "$script")" >>"$log"
if [ -n "$dep" ] && ! grep -q "^job ${dep#afterany:} " "$log"; then
	echo "sbatch: dependency $dep on an unknown job" >&2
	exit 1
fi
if [ -n "$array" ]; then
	n=${array#1-}
	for i in $(seq 1 "$n"); do
		SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$n bash "$script" >>"$log.out" 2>&1
		echo "task $id.$i exit $?" >>"$log.status"
	done
else
	bash "$script" >>"$log.out" 2>&1
	echo "job $id exit $?" >>"$log.status"
fi
echo "$id;cluster"
SB
chmod +x "$T/bin/sbatch"
: >"$T/slurm/log"
export ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/s.ini"
"$AB" run "$T/s.ini" --backend cpu --no-progress --db "$T/nightly.db" >/dev/null
"$AB" baseline set nightly --db "$T/nightly.db" >/dev/null
submit() {
	env SBATCH="$T/bin/sbatch" SBATCH_LOG="$T/slurm/log" ABBENCH="$AB" DB="$T/nightly.db" RUN_OPTS="--backend cpu" \
		RUN_SET="$1" OUT_DIR="$T/out-$1" scripts/slurm/submit.sh "$T/s.ini" 3 nightly
}
expect_exit 0 "submit.sh: 3 shards, then merge and gate" submit s1
check "the array is 1-3" grep -q '^job 1000 array=1-3 dep= script=shard.sbatch' "$T/slurm/log"
check "the merge-and-gate job depends on it (afterany)" grep -q '^job 1001 array= dep=afterany:1000 script=merge_gate.sbatch' "$T/slurm/log"
check "it prints both job ids" grep -q 'shards job 1000 (array 1-3), merge and gate job 1001 (afterany:1000)' "$T/out"
check "3 shard tasks succeeded" test "$(grep -c '^task 1000\.[123] exit 0$' "$T/slurm/log.status")" -eq 3
check "merge and gate passed" grep -q '^job 1001 exit 0$' "$T/slurm/log.status"
check "the verdict is written" grep -q '^## gate: PASS' "$T/out-s1/gate.md"
check "and its JSON" grep -q '"verdict": "pass"' "$T/out-s1/gate.json"
check "and the report" test -s "$T/out-s1/report/report.md"
expect_exit 0 "the run set is in the database" "$AB" show set:s1 --db "$T/nightly.db"

# shards that fail: no run set, and the gate job says so (exit 2)
expect_exit 0 "submit shards that fail (device 7 of 1)" env SBATCH="$T/bin/sbatch" SBATCH_LOG="$T/slurm/log" ABBENCH="$AB" \
	DB="$T/nightly.db" RUN_OPTS="--backend cpu --device 7" RUN_SET=s2 OUT_DIR="$T/out-s2" \
	scripts/slurm/submit.sh "$T/s.ini" 3 nightly
check "the shard tasks exit 2 (a device they lack: bad usage)" test "$(grep -c '^task 1002\.[123] exit 2$' "$T/slurm/log.status")" -eq 3
check "the merge-and-gate job exits 2" grep -q '^job 1003 exit 2$' "$T/slurm/log.status"
# (a shard that fails before measuring leaves no database file: docs/RELIABILITY.md)
check "saying there is no such run set" grep -Eq "no run set 's2'|no shard files in" "$T/slurm/log.out"
expect_exit 2 "submit.sh: N must be a number" env SBATCH="$T/bin/sbatch" scripts/slurm/submit.sh "$T/s.ini" x
finish
