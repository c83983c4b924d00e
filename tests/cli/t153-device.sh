#!/usr/bin/env bash
# --device N: recorded in the run; an index the backend does not have is
# bad usage (exit 2) with a message naming it, before any run row is
# written. Without a GPU this runs on the CPU backend, which has one
# device, 0 (the CUDA path is checked by scripts/gpu/sweeps.sh).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
db="$T/d.db"
scn=tests/scenarios/sweep_small.ini

expect_exit 0 "--device 0" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --device 0 --only plain
v=$(sqlite3 "$db" "SELECT device_index FROM runs")
check "recorded as device_index 0" test "$v" = 0
expect_exit 2 "--device 1 on the cpu backend" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --device 1 --only plain
check "says why" grep -q "error: cpu device 1 does not exist: the cpu backend has 1 device" "$T/err"
expect_exit 2 "--device -1" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --device -1
check "says what it wants" grep -q "run: --device must be 0 or more, not -1" "$T/err"
expect_exit 2 "--device x" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --device x
v=$(sqlite3 "$db" "SELECT count(*) FROM runs")
check "one run row: the bad ones left none" test "$v" -eq 1
expect_exit 0 "run --help" "$AB" run --help
check "--help documents --device beside CUDA_VISIBLE_DEVICES" grep -q -- '--device N .*CUDA_VISIBLE_DEVICES' "$T/out"
check "docs/USAGE.md documents it beside CUDA_VISIBLE_DEVICES" bash -c "grep -A2 -- '^\*\*Which GPU.\*\* \`--device N\`' docs/USAGE.md | grep -q CUDA_VISIBLE_DEVICES"
finish
