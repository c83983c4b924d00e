#!/usr/bin/env bash
# A report and a dashboard of 1024 cases write a bounded number of files
# (docs/REPORTS.md, "Size"): past 64 cases the per-case charts give way to
# one chart per sweep (at most 64 of them), and past 64 series the
# history's trend charts are drawn per sweep (at most 64 charts). The run
# is cheap: 16 [case] sections of 64 swept values each, 3 samples a slot,
# the fake timer. Charts are written, not drawn (--no-plots): the same code
# decides which charts exist, and the times of a drawn 1024-case report are
# measured, not asserted (the branch's report to the lead has them).
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
{
	printf '[scenario]\nname = big\nbackend = cpu\nbracket = ABA\nseed = 1\nwarmup = 0\nmin_samples = 3\n'
	printf 'max_samples = 3\nmin_time_ms = 0.001\nmax_time_ms = 50\ntarget_noise = 0.5\nl2_flush = false\n\n'
	printf '[arms]\na = eager\nb = fused\n\n[model]\nsteps = 1\nforwards_per_step = 1\n'
	for i in $(seq -w 0 15); do
		printf '\n[case c%s]\nsite = residual_gate_add\nshape = 1x{1:64:+1}x4\ncount = 1\n' "$i"
	done
} >"$T/big.ini"
expect_exit 0 "a run of 1024 cases" "$AB" run "$T/big.ini" --no-progress --db "$T/big.db"
check "  it holds 1024 cases" test "$(sqlite3 "$T/big.db" 'SELECT count(*) FROM cases')" -eq 1024

# at most 2 documents + .dat and .gp of the speedup chart and 64 sweeps
start=$(date +%s%N)
expect_exit 0 "report" "$AB" report --db "$T/big.db" --out "$T/rep" --no-plots
files=$(find "$T/rep" -type f | wc -l)
check "  $files files (at most 2 + 2 x 65), in $((($(date +%s%N) - start) / 1000000)) ms" test "$files" -le 132
check "  one chart per sweep: 16" test "$(ls "$T/rep" | grep -c '^sweep-.*\.gp$')" -eq 16
check "  no per-case chart" test -z "$(ls "$T/rep" | grep '^samples-\|^series-\|^kernels-')"
check "  the report says why" grep -q 'Drawn for a run of at most 64 cases; this one has 1024' "$T/rep/report-full.md"

# the dashboard: its page, 64 trend charts at most, the newest run's report
start=$(date +%s%N)
expect_exit 0 "publish" "$AB" publish "$T/pub" --db "$T/big.db" --no-plots
files=$(find "$T/pub" -type f | wc -l)
check "  $files files (at most 2 + 2 x 64 + 132), in $((($(date +%s%N) - start) / 1000000)) ms" test "$files" -le 262
check "  one trend chart per sweep: 16" test "$(ls "$T/pub/charts" | grep -c 'sweep-c[0-9]*\.gp$')" -eq 16
check "  every case's card names its sweep's chart" test \
	"$(grep -c '<code>charts/trend-big-.*-sweep-c[0-9]*\.dat</code>' "$T/pub/index.html")" -eq 1024
finish
