#!/usr/bin/env bash
# The planting plugin (examples/plugin/rga_plant.c) and scripts/aa_check.sh
# on the CPU backend.
# plugin: plant0, plant5 and plant30 stay byte-equal to the eager arm (the
# plant only reads); a plant larger than the scratch tensor, and a size the
# plugin lacks, are refused before the run (exit 2).
# aa_check: the CPU backend's fake timer charges a step by its shape, so a
# plant's traffic costs nothing under it and the machinery is what is
# checked: with --fake-timer every pair passes at every threshold, B/A
# +0.00%, the plant scenario keeps only its residual_gate_add cases, and
# the table has its rows and columns. Then a stand-in abbench makes each
# plantP run's B arm P% slower in the database (sqlite3, as t052 slows a
# run down), and one A/A pair's second run 7% slower: the table must count
# exactly the detections and false alarms those sizes give at thresholds
# 1, 4 and 10%, and name the smallest threshold without a false alarm.
# Then --table over two calls' results, --time-limit (a stand-in `date`
# whose clock jumps 100 s a call), bad options (exit 2), scripts/gpu/aa.sh
# (the GPU session's stage) with one pair a part on the CPU, and one A/A
# pair on real timing (aa_check unsets ABBENCH_FAKE_TIMER unless
# --fake-timer).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH="$AB" ABBENCH_FAKE_TIMER=1
lib=$(dirname "$AB")/examples/plugin/librga_plant.so
check "make built the planting plugin" test -f "$lib"

# ---- the plugin: exact, and refusing what it cannot plant ----
cat >"$T/p.ini" <<EOF
[scenario]
name = plant_exact
min_samples = 3
max_samples = 3
min_time_ms = 1
max_time_ms = 1000
[arms]
a = eager
b = plugin:$lib:plant0
[case g]
site = residual_gate_add
shape = 2x8x256
[case g_special]
site = residual_gate_add
shape = 1x16x256
input = special
EOF
for p in 0 5 30; do
	sed "s/:plant0\$/:plant$p/" "$T/p.ini" >"$T/p$p.ini"
	expect_exit 0 "b = plant$p runs" "$AB" run "$T/p$p.ini" --backend cpu --no-progress --label "p$p" --db "$T/p.db"
	"$AB" show "p$p" --db "$T/p.db" >"$T/show"
	check "plant$p is byte-equal to eager in both cases" test "$(grep -c '^  b byte-equal to a: yes$' "$T/show")" -eq 2
done
sed 's/:plant0$/:plant30/; s/^shape = 2x8x256/shape = 1x1x256/' "$T/p.ini" >"$T/big.ini"
expect_exit 2 "a plant larger than the scratch tensor is refused" "$AB" run "$T/big.ini" --backend cpu --db "$T/p.db"
check "naming the largest it can plant" grep -q "a plant of 30% reads 614 bytes, more than the 512 of scratch tensor 'ff_gated' (case 'g': plant at most 25%)" "$T/err"
sed 's/:plant0$/:plant7x/' "$T/p.ini" >"$T/bad.ini"
expect_exit 2 "a plant size the plugin lacks" "$AB" run "$T/bad.ini" --backend cpu --db "$T/p.db"
check "lists the sizes it has" grep -q "has no arm 'plant7x' (its arms: plant0, plant1, .*, plant30)" "$T/err"

# ---- aa_check on the fake timer: the machinery ----
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/s20.ini"
cat >"$T/ps.ini" <<'EOF'
[scenario]
name = ps
seed = 3
min_samples = 20
max_samples = 20
min_time_ms = 1
max_time_ms = 60000
[arms]
a = eager
b = fused
[arm unused]
type = plugin
library = nope.so
name = x
[case ln]
site = ln_modulate
shape = 1x16x256
; 32768 elements: B is 18.4 us under the fake timer, so that 2% of it
; (368 ns) clears the CPU profile's 250 ns absolute floor.
[case big]
site = residual_gate_add ; the only case a plant goes into
shape = 1x32x1024
EOF
aa=(scripts/aa_check.sh -n 2 -s "$T/s20.ini" -b cpu --plants 2,6 --plant-scenario "$T/ps.ini" --thresholds 1,4,10 --fake-timer)
expect_exit 0 "aa_check --fake-timer: 2 A/A pairs, plants of 2% and 6%" "${aa[@]}" --out "$T/o1"
cp "$T/out" "$T/o1.out"
check "its header" grep -q "^aa_check: 2 A/A pairs of s20.ini, 2 planted pairs of +2%, +6% into ps.ini on backend cpu, device CPU fake timer (ABBENCH_FAKE_TIMER=1)\$" "$T/o1.out"
check "a line per A/A pair" test "$(grep -c '^A/A pair [12]: 1%: pass, 4%: pass, 10%: pass; B/A +0.00% to +0.00% over 5 case(s)$' "$T/o1.out")" -eq 2
check "a line per planted pair, one case each (ln left out)" \
	test "$(grep -c '^+[26]% plant, pair [12]: 1%: pass, 4%: pass, 10%: pass; B/A +0.00% to +0.00% over 1 case(s)$' "$T/o1.out")" -eq 4
check "the table's header" grep -qxF '| pairs of | pairs | failed at 1% | failed at 4% | failed at 10% | B/A change: median [min, max] (cases) |' "$T/o1.out"
check "its A/A row" grep -qxF '| A/A `s20` (false alarms) | 2 | 0 | 0 | 0 | +0.00% [+0.00%, +0.00%] (10) |' "$T/o1.out"
check "its plant rows" bash -c "grep -qxF '| +2% plant, \`ps\` (detections) | 2 | 0 | 0 | 0 | +0.00% [+0.00%, +0.00%] (2) |' '$T/o1.out' &&
	grep -qxF '| +6% plant, \`ps\` (detections) | 2 | 0 | 0 | 0 | +0.00% [+0.00%, +0.00%] (2) |' '$T/o1.out'"
check "the fake timer named beside the device" grep -q '^device: .* (fake timer: a plant costs nothing under it)$' "$T/o1.out"
check "the last line: the smallest threshold and its detections" test "$(tail -n 1 "$T/o1.out")" = \
	"smallest threshold with no false alarm in 2 A/A pairs (s20): 1% (detections there: +2%: 0 of 2, +6%: 0 of 2)"
check "results.tsv: a verdict per pair and threshold" test "$(grep -c '^verdict' "$T/o1/results.tsv")" -eq 18
check "table.md beside it" bash -c "tail -n 1 '$T/o1/table.md' | grep -q '^smallest threshold'"

if command -v sqlite3 >/dev/null; then
	# A stand-in abbench: after `run --label plant-I-P` the B arm's samples
	# and slot figures times 1 + P/100; after `run --label aa-2-b` times 1.07.
	cat >"$T/ab" <<'EOF'
#!/usr/bin/env bash
"$REAL_AB" "$@" || exit $?
[ "$1" = run ] || exit 0
label=""
while [ $# -gt 0 ]; do [ "$1" = --label ] && label=$2; shift; done
case "$label" in
plant-*-0) exit 0 ;;
plant-*) f="1 + ${label##*-} / 100.0" ;;
aa-2-b) f=1.07 ;;
*) exit 0 ;;
esac
sqlite3 "$ABBENCH_DB" "
	UPDATE samples SET wall_ns = wall_ns * ($f) WHERE slot_id IN (SELECT s.id FROM slots s
		JOIN cases c ON s.case_id = c.id JOIN runs r ON c.run_id = r.id WHERE r.label = '$label' AND s.arm = 'b');
	UPDATE slots SET median_ns = median_ns * ($f), p10_ns = p10_ns * ($f), p90_ns = p90_ns * ($f),
		min_ns = min_ns * ($f), max_ns = max_ns * ($f), mean_ns = mean_ns * ($f) WHERE arm = 'b' AND case_id IN
		(SELECT c.id FROM cases c JOIN runs r ON c.run_id = r.id WHERE r.label = '$label');"
EOF
	chmod +x "$T/ab"
	sim() { env REAL_AB="$AB" ABBENCH="$T/ab" ABBENCH_PLANT_LIB="$lib" "$@"; }
	expect_exit 0 "plants made slower in the database, one A/A pair too" sim "${aa[@]}" --out "$T/o2"
	cp "$T/out" "$T/o2.out"
	check "+2% fails at 1% only, +6% at 1% and 4%" bash -c "
		grep -qxF '| +2% plant, \`ps\` (detections) | 2 | 2 | 0 | 0 | +2.00% [+2.00%, +2.00%] (2) |' '$T/o2.out' &&
		grep -qxF '| +6% plant, \`ps\` (detections) | 2 | 2 | 2 | 0 | +6.00% [+6.00%, +6.00%] (2) |' '$T/o2.out'"
	check "the A/A pair made 7% slower: a false alarm at 1% and 4%" \
		grep -qxF '| A/A `s20` (false alarms) | 2 | 1 | 1 | 0 | +3.50% [+0.00%, +7.00%] (10) |' "$T/o2.out"
	check "its failing cases under its line" grep -q '^    at 4%: ln_modulate regressed, B/A +7.00% (p ' "$T/o2.out"
	check "and its verdicts kept" test -s "$T/o2/alarm-s20-2-4.md"
	check "10% is the smallest threshold without a false alarm" test "$(tail -n 1 "$T/o2.out")" = \
		"smallest threshold with no false alarm in 2 A/A pairs (s20): 10% (detections there: +2%: 0 of 2, +6%: 0 of 2)"
	expect_exit 1 "every threshold false-alarmed: exit 1" sim scripts/aa_check.sh -n 2 -s "$T/s20.ini" -b cpu --thresholds 1,4 --fake-timer
	check "which the last line says" test "$(tail -n 1 "$T/out")" = \
		"every threshold false-alarmed in 2 A/A pairs (s20): the fewest, 1, at 1%"
	expect_exit 0 "--table over two calls' results" scripts/aa_check.sh --table "$T/o1" "$T/o2/results.tsv"
	check "adds their pairs up" grep -qxF '| A/A `s20` (false alarms) | 4 | 1 | 1 | 0 | +0.00% [+0.00%, +7.00%] (20) |' "$T/out"
	check "and names 10% for 4 pairs" test "$(tail -n 1 "$T/out")" = \
		"smallest threshold with no false alarm in 4 A/A pairs (s20): 10% (detections there: +2%: 0 of 4, +6%: 0 of 4)"
else
	ok "detections counted on plants made slower in the database: skipped, no sqlite3 shell"
fi

# --time-limit, on a clock that jumps 100 s at every call of `date`.
mkdir -p "$T/bin"
cat >"$T/bin/date" <<EOF
#!/bin/sh
n=\$(cat "$T/clock" 2>/dev/null || echo 0)
echo \$((n + 100)) >"$T/clock"
echo \$((n + 100))
EOF
chmod +x "$T/bin/date"
expect_exit 0 "--time-limit 150: one round of 3" env PATH="$T/bin:$PATH" scripts/aa_check.sh --fake-timer -n 3 -s "$T/s20.ini" -b cpu --time-limit 150
check "says where it stopped" grep -q '^aa_check: stopped at the time limit of 150s after 1 of 3 rounds' "$T/out"
check "the table covers that round" grep -q '^| A/A `s20` (false alarms) | 1 | 0 |' "$T/out"

expect_exit 2 "a bad count" scripts/aa_check.sh -n many
expect_exit 2 "a count of 0 without plants" scripts/aa_check.sh --pairs 0
expect_exit 2 "an unknown option" scripts/aa_check.sh -x
check "named, with where run options go" grep -q "unknown option '-x' (run options go after --)" "$T/err"
expect_exit 2 "a scenario that does not exist" scripts/aa_check.sh -n 1 -s "$T/none.ini"
check "which it names" grep -q "none.ini" "$T/err"
expect_exit 2 "a plant that is not a whole percentage" scripts/aa_check.sh --plants 2,x
expect_exit 2 "a threshold of 0" scripts/aa_check.sh --thresholds 0
expect_exit 2 "a plant scenario that does not exist" scripts/aa_check.sh -n 1 -s "$T/s20.ini" --plants 2 --plant-scenario "$T/none.ini"
sed '/^\[case big\]/,$d' "$T/ps.ini" >"$T/norga.ini"
expect_exit 2 "a plant scenario whose cases are all of other sites" scripts/aa_check.sh -n 1 -s "$T/s20.ini" --plants 2 --plant-scenario "$T/norga.ini"
check "which it says" grep -q "has no residual_gate_add case to plant into" "$T/err"
expect_exit 2 "--table of a file that is not there" scripts/aa_check.sh --table "$T/none.tsv"
expect_exit 0 "--help" scripts/aa_check.sh --help
check "prints every option" bash -c "grep -q -- '--plants LIST' '$T/out' && grep -q -- '--time-limit S' '$T/out'"

# scripts/gpu/aa.sh, the GPU session's stage, on the CPU: one pair a part,
# a stand-in nvidia-smi, the small plant scenario; its combined table.
mkdir -p "$T/gpubin"
printf '#!/bin/sh\necho "name, driver_version"\necho "stand-in GPU, 0"\n' >"$T/gpubin/nvidia-smi"
chmod +x "$T/gpubin/nvidia-smi"
expect_exit 0 "gpu/aa.sh smoke plants, 1 pair each, on the CPU" env PATH="$T/gpubin:$PATH" OUT="$T/gpu" AA_PAIRS=1 \
	AA_THRESHOLDS=3,5 AA_PLANT_SCENARIO="$T/ps.ini" AA_OPTIONS="--backend cpu --fake-timer" scripts/gpu/aa.sh smoke plants 200
check "a folder per part" test -s "$T/gpu/aa-smoke/results.tsv" -a -s "$T/gpu/aa-plants/results.tsv" -a -s "$T/gpu/aa-smoke/log.txt"
check "one table of both, last" bash -c "grep -qF '| A/A \`smoke\` (false alarms) | 1 | 0 | 0 |' '$T/gpu/aa-table.md' &&
	grep -qF '| +5% plant, \`ps\` (detections) | 1 | 0 | 0 |' '$T/gpu/aa-table.md' &&
	tail -n 1 '$T/out' | grep -q '^smallest threshold with no false alarm in 1 A/A pairs (smoke): 3%'"
expect_exit 1 "gpu/aa.sh with an unknown part" scripts/gpu/aa.sh smok

# Real timing, even with the fake timer exported here: only the output's
# shape and the exit status are checked, never how many alarms it counted.
rc=0
scripts/aa_check.sh -n 1 -s scenarios/smoke.ini -b cpu -- --quick >"$T/real.out" 2>"$T/err" || rc=$?
check "real timing: the device is the CPU, not the fake timer" grep -q '^aa_check: 1 A/A pairs of smoke.ini on backend cpu, device CPU' "$T/real.out"
check "aa_check ignores ABBENCH_FAKE_TIMER" bash -c "! grep -q 'fake timer' '$T/real.out'"
check "exit 0 with no false alarm, 1 with one (got $rc)" bash -c "
	{ [ $rc -eq 0 ] && tail -n 1 '$T/real.out' | grep -q '^smallest threshold with no false alarm in 1 A/A pairs'; } ||
	{ [ $rc -eq 1 ] && tail -n 1 '$T/real.out' | grep -q '^every threshold false-alarmed in 1 A/A pairs'; }"
finish
