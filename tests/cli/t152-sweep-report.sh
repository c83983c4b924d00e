#!/usr/bin/env bash
# `abbench report` of swept runs, alone and side by side: the Bandwidth and
# Sweeps sections, a three-panel sweep chart per swept case (its data
# ascending along the axis, one block per run), and `report RUN RUN...`
# with its Per GPU table and md5 agreement. Auto-picked peers never bring
# in quick or fake-timer runs; named runs must be of one scenario and
# named once. The "GPUs" here are the CPU and the CPU's fake timer: two
# device names, the same output bytes.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_PROFILES="$PWD/profiles"
db="$T/r.db"
scn=tests/scenarios/sweep_small.ini

expect_exit 0 "fake-timer run" env ABBENCH_FAKE_TIMER=1 "$AB" run "$scn" --backend cpu --db "$db" --no-progress --label fake
expect_exit 0 "real-timer quick run" env -u ABBENCH_FAKE_TIMER "$AB" run "$scn" --backend cpu --db "$db" --no-progress --quick --label real
v=$(sqlite3 -separator : "$db" "SELECT label, fake_timer, quick FROM runs" | tr '\n' ' ')
check "the runs record fake_timer and quick" test "$v" = "fake:1:0 real:0:1 "

# one run: its peers are picked, and a fake-timer run is never one of them
expect_exit 0 "report of the real run" "$AB" report real --db "$db" --out "$T/one" --no-plots
md="$T/one/report.md"
for s in '^## Bandwidth$' '^## Sweeps$' '^### `ln` over T$' '^### `qk` over T$'; do
	check "section $s" grep -q "$s" "$md"
done
check "no Per GPU section: the fake-timer run is not picked" bash -c "! grep -q '^## Per GPU' '$md'"
check "the speedup chart has one series" grep -qx '# row note | series 1: value low high marked-value inexact-value label-y inexact-label-y' "$T/one/speedup.dat"
check "a sweep table row per value, ascending" test "$(awk '/^### `qk` over T/ { f = 1; next } /^##/ { f = 0 } f' "$md" | grep -Eo '^\| [0-9]+ \|' | tr -d '| ' | tr '\n' ' ')" = "16 64 "
# (cache-resident where the host's last-level cache holds a case's bytes;
# every case has its copy floor measured, cache-resident or not)
check "bandwidth rows carry bytes, GB/s, % of copy, the copy floor, B over it and the kernels over its kernel" \
	test "$(grep -Ec '^\| `[a-z]+(\[T=[0-9]+\])?` \| [0-9.]+ kB \| [0-9.]+ kB \| [0-9.]+ kB \| [0-9.]+ \(([0-9.]+%|cache-resident)\) \| [0-9.]+ \(([0-9.]+%|cache-resident)\) \| [0-9.]+ (ns|us|ms) \| [0-9.]+x \| [0-9.]+x \| [0-9.]+x \|$' "$md")" -eq 7
check "the quick run says so" grep -q '\*\*quick run\*\*' "$md"

# two runs named: side by side
expect_exit 0 "report fake real" "$AB" report fake real --db "$db" --out "$T/two"
md="$T/two/report.md"
check "Per GPU section" grep -q '^## Per GPU$' "$md"
check "both runs in its header" grep -Fq '| case | CPU fake timer (ABBENCH\_FAKE\_TIMER=1) (run 1) | CPU ' "$md"
check "a row per case, md5 equal across the two" test "$(grep -Ec '^\| `[a-z]+(\[T=[0-9]+\])?` \| \*\*[0-9.]+x\*\* .* GB/s .*\| yes \([0-9]+ outputs, 1 run\) \|$' "$md")" -eq 7
check "the speedup chart has a series per run" grep -qx '# row note | series 1: value low high marked-value inexact-value label-y inexact-label-y | series 2: value low high marked-value inexact-value label-y inexact-label-y' "$T/two/speedup.dat"
check "the sweep data: a block per run, ascending x" \
	test "$(grep -v '^#' "$T/two/sweep-qk.dat" | awk 'NF { print $1 }' | tr '\n' ' ')" = "16 64 16 64 "
check "its script draws three panels" test "$(grep -c '^plot ' "$T/two/sweep-qk.gp")" -eq 3 -a "$(grep -c 'multiplot' "$T/two/sweep-qk.gp")" -eq 2
# T from 16 to 64 is within a decade: a linear axis ticked at the swept sizes (log
# scales only across more than a decade)
check "on a linear axis ticked at 16 and 64" grep -qx 'set xtics ("16" 16, "64" 64)' "$T/two/sweep-qk.gp"
check "not a log one" bash -c "! grep -q '^set logscale x' '$T/two/sweep-qk.gp'"
if command -v gnuplot >/dev/null; then
	for png in sweep-ln sweep-qk; do
		check "$png.png is a PNG" test "$(head -c 8 "$T/two/$png.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
		check "$png.png is in the report" grep -qF "]($png.png)" "$md"
	done
	rm "$T/two/sweep-ln.png"
	check "sweep-ln.gp redraws by hand" bash -c "cd '$T/two' && gnuplot sweep-ln.gp && test -s sweep-ln.png"
else
	echo "ok - # SKIP gnuplot not installed: PNG checks skipped"
fi
expect_exit 0 "default directory of several runs" bash -c "cd '$T' && '$AB' report fake real --db '$db' --no-plots"
check "is reports/runs-1-2" test -s "$T/reports/runs-1-2/report.md"

# named runs must be of one scenario, each named once
sed 's/^name = sweep_small/name = other/' "$scn" >"$T/other.ini"
expect_exit 0 "a run of another scenario" env ABBENCH_FAKE_TIMER=1 "$AB" run "$T/other.ini" --backend cpu --db "$db" --no-progress --label other --only plain
expect_exit 2 "report of two scenarios" "$AB" report fake other --db "$db" --out "$T/x"
check "names both" grep -q "runs 1 and 3 measured different scenarios ('sweep_small' and 'other')" "$T/err"
expect_exit 2 "a run named twice" "$AB" report fake 1 --db "$db" --out "$T/x"
check "says so" grep -q 'run 1 is named twice' "$T/err"
check "nothing written" test ! -e "$T/x"
finish
