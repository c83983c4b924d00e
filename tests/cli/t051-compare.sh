#!/usr/bin/env bash
# `abbench compare RUN_A RUN_B`: two runs of the smoke scenario labelled
# main and pr (the same build here), compared case by case as markdown on
# stdout or in a file; runs of different scenarios or runs that do not
# exist are refused with exit 2.
# The runs use the CPU backend's fake timer (ABBENCH_FAKE_TIMER=1, see
# harness/backend/backend_cpu.c), so the verdicts are the same on any machine: the
# same build gives the same samples (no significant difference), and a run
# whose B arm is the eager chain is slower (and the other way, faster). The
# scenario copies take exactly 20 samples a slot (min = max = 20, a time
# limit no slow build reaches): with smoke.ini's 3 no p reaches 0.01.
. "$(dirname "$0")/lib.sh"
set -e
db="$T/c.db"
export ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/smoke.ini"
sed 's/^b = fused/b = eager/' "$T/smoke.ini" >"$T/slow.ini"

expect_exit 0 "run main" "$AB" run "$T/smoke.ini" --backend cpu --db "$db" --label main
expect_exit 0 "run pr" "$AB" run "$T/smoke.ini" --backend cpu --db "$db" --label pr
expect_exit 0 "compare main pr" "$AB" compare main pr --db "$db"
cases=$(grep -c '^\[case ' scenarios/smoke.ini)
check "headline names both runs and the scenario" grep -q '^## compare: run 1 vs run 2, scenario `smoke`$' "$T/out"
check "table header" grep -qF '| case | first: B median \[p10, p90\] | second: B median \[p10, p90\] | ratio second/first \[95% CI\] | p (block bootstrap) | verdict | md5 equal |' "$T/out"
check "a row per case with ratio, interval, p and verdict" \
	test "$(grep -Ec '^\| `[a-z_]+` \| [0-9.]+ (ns|us|ms) \[[0-9., ]+\] n=[0-9]+ \| [0-9.]+ (ns|us|ms) \[[0-9., ]+\] n=[0-9]+ \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| [0-9.e<-]+ \| (faster|slower|no significant difference)' "$T/out")" -eq "$cases"
check "same build, same bytes: md5 equal in every case" test "$(grep -c '| yes ([0-9]* outputs) |$' "$T/out")" -eq "$cases"
check "same build, same samples: ratio 1.0000, p 1.000, no significant difference in every case" \
	test "$(grep -c '| 1\.0000 \[[0-9.]*, [0-9.]*\] | 1\.000 | no significant difference |' "$T/out")" -eq "$cases"

# The medians in the table are the B rows of each run's csv export.
"$AB" export main --db "$db" --csv "$T/a.csv" && "$AB" export pr --db "$db" --csv "$T/b.csv"
bad=0
while IFS=, read -r case_name _ _ _ _ slot _ median_ns _; do
	[ "$slot" = B ] || continue
	want=$(awk -v m="$median_ns" 'BEGIN { printf "%.2f us", m / 1000 }') # smoke's cases: 1 us to 1 ms
	grep -q "^| \`$case_name\` | $want \[" "$T/out" || { bad=$((bad + 1)); echo "    $case_name: $want not in the first column"; }
done < <(tail -n +2 "$T/a.csv")
check "first-run B medians equal the csv" test "$bad" -eq 0

# B = the eager chain (2 or 4 steps against 1 fused): slower in every case,
# and the same pair the other way round faster; the bytes are the same.
expect_exit 0 "run slow (b = eager)" "$AB" run "$T/slow.ini" --backend cpu --db "$db" --label slow
expect_exit 0 "compare main slow" "$AB" compare main slow --db "$db"
check "slower in every case" test "$(grep -Ec '\| [0-9.]+e-0[3-9] \| slower \(\+[0-9.]+%\) \| yes \(' "$T/out")" -eq "$cases"
check "ln_modulate: ratio 4 +-1% (4 steps against 1)" grep -Eq '^\| `ln_modulate` \|.*\| (3\.9[6-9]|4\.0[0-4])[0-9]{2} \[' "$T/out"
expect_exit 0 "compare slow main" "$AB" compare slow main --db "$db"
check "faster in every case" test "$(grep -Ec '\| [0-9.]+e-0[3-9] \| faster \(-[0-9.]+%\) \| yes \(' "$T/out")" -eq "$cases"

expect_exit 0 "compare to a file" "$AB" compare 1 2 --db "$db" --out "$T/cmp.md"
check "nothing on stdout with --out" test ! -s "$T/out"
check "the file holds the table" grep -q '^## compare: run 1 vs run 2' "$T/cmp.md"
check "no temporary file left" test ! -e "$T/cmp.md.tmp"

expect_exit 0 "run another scenario" "$AB" run scenarios/aa_smoke.ini --backend cpu --db "$db" --quick --label other
expect_exit 2 "compare runs of different scenarios" "$AB" compare main other --db "$db"
check "the message names both scenarios" grep -q "different scenarios ('smoke' and 'aa_smoke')" "$T/err"
expect_exit 2 "compare with a run that does not exist" "$AB" compare main 42 --db "$db"
expect_exit 2 "compare with one run only" "$AB" compare main --db "$db"
finish
