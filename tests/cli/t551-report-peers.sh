#!/usr/bin/env bash
# `report RUN RUN` says what sets the runs apart (analysis/peers.h):
#   - two runs of one scenario with the same arms on two GPUs (device names
#     planted in the store: an H100 and an H200, fake timer) are "Per GPU":
#     speedup, GB/s and the B output's md5 per case and GPU side by side,
#     md5 across GPUs "yes" (the same arithmetic: the same bytes); the
#     speedup chart has a series per GPU named by its device;
#   - two runs whose B arms differ (fused, then twopass) are "Per run: the
#     arms differ": the report says so, names each run's arms, never says
#     "Per GPU" nor "md5 across GPUs", and its chart's series are named by
#     their arms;
#   - two runs of the same arms on one device are "Per run" (repeated runs).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1 ABBENCH_PROFILES="$PWD/profiles"
db="$T/p.db"
cat >"$T/a.ini" <<'EOF'
[scenario]
name = peers
min_samples = 12
max_samples = 12
[arms]
a = eager
b = fused
[case ln_a]
site = ln_modulate
shape = 1x64x512
[case ln_b]
site = ln_continuous
shape = 1x128x512
EOF
sed 's/^b = fused/b = twopass/' "$T/a.ini" >"$T/b.ini"
for ini in a a b a; do "$AB" run "$T/$ini.ini" --backend cpu --db "$db" --no-progress >/dev/null 2>&1; done
# runs 1 and 2: fused on "two GPUs"; run 3: twopass (not byte-equal on
# these inputs) and run 4: fused again, both on run 1's device
sqlite3 "$db" "INSERT INTO devices (name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes,
	driver_version, runtime_version, default_sm_mhz, copy_gbps) SELECT 'NVIDIA H200', 'h200', backend, cc_major,
	cc_minor, sm_count, l2_bytes, mem_bytes, driver_version, runtime_version, default_sm_mhz, copy_gbps FROM devices
	WHERE id = (SELECT device_id FROM runs WHERE id = 1);
	UPDATE runs SET device_id = (SELECT id FROM devices WHERE uuid = 'h200') WHERE id = 2;
	UPDATE devices SET name = 'NVIDIA H100 80GB HBM3' WHERE id = (SELECT device_id FROM runs WHERE id = 1);"

expect_exit 0 "report of one scenario on two GPUs" "$AB" report 1 2 --db "$db" --out "$T/gpus"
md="$T/gpus/report.md"
check "Per GPU" grep -qx '## Per GPU' "$md"
check "a column per GPU and md5 across GPUs" \
	grep -qF '| case | NVIDIA H100 80GB HBM3 (run 1) | NVIDIA H200 (run 2) | md5 across GPUs |' "$md"
row=$(grep -E '^\| `ln_a` \| \*\*' "$md")
check "the case's row: speedup and the B md5 per GPU, equal, and md5 agreeing" bash -c "
	echo '$row' | grep -Eq '^\| \`ln_a\` \| \*\*[0-9.]+x\*\* \[[0-9., ]+\], B [0-9.]+ GB/s \([0-9.]+%\), md5 \`([0-9a-f]{8})\` \| \*\*[0-9.]+x\*\* \[[0-9., ]+\], B [0-9.]+ GB/s \([0-9.]+%\), md5 \`\1\` \| yes \(3 outputs, 1 run\) \|$'"
check "the chart's series are the GPUs" grep -q "title 'NVIDIA H200 (run 2)'" "$T/gpus/speedup.gp"

expect_exit 0 "report of two runs of other arms" "$AB" report 1 3 --db "$db" --out "$T/arms" --no-plots
md="$T/arms/report.md"
check "its section says the arms differ" grep -qx '## Per run: the arms differ' "$md"
check "and which" grep -qF '**These runs measured different arms** (in 2 of 2 cases; `ln_a`: run 1 A `eager`, B `fused`; run 3 A `eager`, B `twopass`): the columns compare arms, not GPUs' "$md"
check "never Per GPU" bash -c "! grep -q 'Per GPU' '$md'"
check "never md5 across GPUs" bash -c "! grep -q 'across GPUs' '$md'"
check "columns named by arms, md5 against run 1" \
	grep -qF '| case | run 1: A eager, B fused (NVIDIA H100 80GB HBM3) | run 3: A eager, B twopass (NVIDIA H100 80GB HBM3) | md5 against run 1 |' "$md"
check "the B md5s differ, and the column says so" grep -Eq '^\| `ln_a` \|.*\| \*\*no\*\* \(1 of 3 differ\) \|$' "$md"
check "the chart's series named by arms" grep -q "title 'run 3: A eager, B twopass (NVIDIA H100 80GB HBM3)'" "$T/arms/speedup.gp"

expect_exit 0 "report of two runs of one device and arms" "$AB" report 1 4 --db "$db" --out "$T/runs" --no-plots
check "Per run, repeated runs" bash -c "grep -qx '## Per run' '$T/runs/report.md' && grep -q 'repeated runs, not GPUs' '$T/runs/report.md' && grep -qF '| md5 across runs |' '$T/runs/report.md'"
finish
