#!/usr/bin/env bash
# `abbench run --devices all|LIST`: one worker process per device, each a
# shard pinned to its device, merged into one run set. Tested on the CPU
# backend, which ABBENCH_CPU_DEVICES=N makes pretend to have N devices (the
# workers are abbench itself, the same code as on GPUs). Three workers give
# the same results as one plain run; a progress line per device; a worker
# that fails (device 5 of 2) fails the command with its message, exit 3,
# and leaves no 'ok' run set; one device is a plain run. The workers get
# every option of the command (their command lines are written from run's
# option table), with their device, shard, run set and file.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/s.ini"
db="$T/d.db"
"$AB" run "$T/s.ini" --backend cpu --no-progress --db "$db" --label plain >/dev/null

expect_exit 0 "--devices all on 3 (pretend) devices" env ABBENCH_CPU_DEVICES=3 \
	"$AB" run "$T/s.ini" --backend cpu --devices all --run-set d3 --db "$db" --label multi
check "says where the set went" grep -q "run set 'd3' (3 shards on devices all) stored in" "$T/out"
for dev in 0 1 2; do
	check "a start line for device $dev" grep -q "^device $dev: shard $((dev + 1))/3 of run set 'd3' started" "$T/err"
	check "an end line for device $dev" grep -qE "^device $dev: shard $((dev + 1))/3 done after [0-9.]+ s" "$T/err"
done
check "the worker directory is gone" bash -c "! ls -d '$db'.workers.* 2>/dev/null"
ok_d3="SELECT count(*) FROM runs WHERE run_set = 'd3' AND status = 'ok'"
check "3 runs of run set d3 in the database" test "$(sqlite3 "$db" "$ok_d3")" -eq 3
"$AB" export plain --db "$db" --json "$T/plain.json"
"$AB" export set:d3 --db "$db" --json "$T/d3.json"
strip() { python3 tests/tools/json_strip.py "$1"; }
check "the set equals the plain run, sample for sample" cmp -s <(strip "$T/plain.json") <(strip "$T/d3.json")
pinned="SELECT count(*) FROM runs WHERE run_set = 'd3' AND command_line LIKE '%--device ' || (shard_index - 1) || ' %'"
check "each worker pinned its device (--device in its command line)" test "$(sqlite3 "$db" "$pinned")" -eq 3
expect_exit 0 "a list of devices, no run set id given" env ABBENCH_CPU_DEVICES=3 \
	"$AB" run "$T/s.ini" --backend cpu --devices 2,0 --db "$db" --quick --no-cupti --label list
set_id=$(sed -n "s/^run set '\([^']*\)'.*/\1/p" "$T/out")
check "a generated run set id ($set_id)" grep -q '^devices-' <<<"$set_id"
# the workers' command lines are written from run's option table: every option given reaches them
given="SELECT count(*) FROM runs WHERE run_set = '$set_id' AND command_line LIKE '%--backend cpu %'
	AND command_line LIKE '%--quick%' AND command_line LIKE '%--no-cupti%'
	AND command_line LIKE '%--label list%' AND command_line LIKE '%--no-progress%'
	AND command_line NOT LIKE '%--devices%'"
check "each worker got every option given, its own, and no --devices" test "$(sqlite3 "$db" "$given")" -eq 2
expect_exit 0 "it reads as one run" "$AB" show "set:$set_id" --db "$db"

# a worker that fails
expect_exit 2 "--devices 0,5 with 2 devices: worker 5 fails (a device it lacks: usage)" env ABBENCH_CPU_DEVICES=2 \
	"$AB" run "$T/s.ini" --backend cpu --devices 0,5 --run-set bad --db "$db" --quick
check "a FAILED line for device 5" grep -q "^device 5: shard 2/2 FAILED after .*: cpu device 5 does not exist" "$T/err"
check "the command fails with the worker's message" \
	grep -q "abbench: error: run: device 5 (shard 2/2): cpu device 5 does not exist: the cpu backend has 2 devices (run set incomplete)" "$T/err"
expect_exit 2 "no 'ok' run set" "$AB" show set:bad --db "$db"
check "it is incomplete" grep -q "run set 'bad' is incomplete: shard 2/2 has no run" "$T/err"
in_bad="SELECT count(*) FROM runs WHERE run_set = 'bad'"
check "shard 1's run is kept (merged)" test "$(sqlite3 "$db" "$in_bad")" -eq 1

# one device: a plain run
n_before=$(sqlite3 "$db" "SELECT count(*) FROM runs")
expect_exit 0 "--devices all on one device" "$AB" run "$T/s.ini" --backend cpu --devices all --db "$db" --label one
check "a plain run in this process" grep -q "^run [0-9]* stored in" "$T/out"
one_plain="SELECT count(*) FROM runs WHERE label = 'one' AND run_set = ''"
n_after=$(sqlite3 "$db" "SELECT count(*) FROM runs")
check "one more run, in no run set" test "$(sqlite3 "$db" "$one_plain")" -eq 1 -a "$n_after" -eq $((n_before + 1))
"$AB" export one --db "$db" --json "$T/one.json"
check "equal to the plain run" cmp -s <(strip "$T/plain.json") <(strip "$T/one.json")

# usage
expect_exit 2 "--devices with --shard" "$AB" run "$T/s.ini" --backend cpu --devices all --shard 1/2 --run-set x --db "$db"
expect_exit 2 "--devices with --device" "$AB" run "$T/s.ini" --backend cpu --devices all --device 1 --db "$db"
expect_exit 2 "--devices over 2 devices with --only (each worker is a shard)" env ABBENCH_CPU_DEVICES=2 \
	"$AB" run "$T/s.ini" --backend cpu --devices all --only 'ln_*' --db "$db"
check "says so, before any worker starts" bash -c "grep -q 'over 2 devices cannot be combined with --only' '$T/err' && ! grep -q started '$T/err'"
expect_exit 2 "--devices 0,0" "$AB" run "$T/s.ini" --backend cpu --devices 0,0 --db "$db"
expect_exit 2 "--devices x" "$AB" run "$T/s.ini" --backend cpu --devices x --db "$db"
expect_exit 2 "--device 1 of 1" "$AB" run "$T/s.ini" --backend cpu --device 1 --db "$db"
check "says the device does not exist" grep -q "cpu device 1 does not exist" "$T/err"
finish
