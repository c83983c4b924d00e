#!/usr/bin/env bash
# `abbench report` on a real smoke run (CPU backend, --quick): it starts
# with the one-line verdict and the summary table, every section is there
# (Accuracy, Clocks, Sampling and Provenance folded in <details>), every
# chart is a valid PNG with its .dat and a .gp that redraws it by hand, the
# A/B/A medians (in the unit show uses) and sample counts are those of
# `abbench export --csv`, no absolute path of this machine leaks into the
# text, and without gnuplot the report is still written (exit 0, warning).
. "$(dirname "$0")/lib.sh"
set -e
db="$T/r.db"
out="$T/rep"
export ABBENCH_PROFILES="$PWD/profiles"

expect_exit 0 "smoke run" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick --label main
expect_exit 0 "report" "$AB" report --db "$db" --out "$out"
check "report prints its path" grep -qx "$out/report.md" "$T/out"
md="$out/report.md"
head -1 "$md" >"$T/first"
check "the first line is the verdict" grep -Eq \
	'^\*\*(FASTER|PARTLY FASTER|SLOWER|INCONCLUSIVE|NOT BIT-EXACT|NO CLEAR CHANGE)\*\*: B `fused` vs A `eager`: faster in [0-5] of 5 cases' "$T/first"
check "a quick run's verdict is INCONCLUSIVE and says why" bash -c "head -1 '$md' | grep -q '^\*\*INCONCLUSIVE\*\*: .*; \*\*quick run\*\* (\`--quick\`): do not quote'"
check "then the summary table" bash -c "sed -n '3p;5p' '$md' | tr '\n' '@' | grep -q '^## Summary@| case | shape | A eager median'"
for s in '^## Summary$' '^## A/B/A brackets$' '^## Charts per case$' '^## Kernel attribution$' \
	'^## Model-level projection$' '^<details><summary><b>Accuracy</b>: all 18 outputs byte-equal' \
	'^<details><summary><b>Clocks</b>: not recorded' '^<details><summary><b>Sampling</b>: ' \
	'^<details><summary><b>Provenance</b>: '; do
	check "section $s" grep -q "$s" "$md"
done
check "four folded sections, each closed" test "$(grep -c '^<details>' "$md")" -eq 4 -a "$(grep -c '^</details>$' "$md")" -eq 4
cases=$(grep -c '^\[case ' scenarios/smoke.ini)
check "a summary row per case with a speedup and its interval" \
	test "$(grep -Ec '^\| `[a-z_]+` \| [0-9x]+ \| [0-9.]+ (ns|us|ms) \[[0-9., ]+\] n=[0-9]+ \| [0-9.]+ (ns|us|ms) \[[0-9., ]+\] n=[0-9]+ \| (\*\*)?[0-9.]+x(\*\*)? \[([0-9.]+, [0-9.]+|n/a)\] \| yes \| [a-z -]+( [0-9.]+%)?( \(not trusted\))? \|$' "$md")" -eq "$cases"
check "a kernel table per case and arm" test "$(grep -c '^| kernel | family |' "$md")" -eq $((2 * cases))
check "accuracy rows carry md5s" test "$(grep -Ec '^\| `[a-z_]+` \| (A1|B|A2) \| [AB] \| `[a-z_]+` \| [0-9]+ \| `[0-9a-f]{32}` \| yes \|' "$md")" -ge $((3 * cases))
check "projection total" grep -q '^| \*\*total of 5 cases\*\* |' "$md"

# The A/B/A cells against the CSV export: the median in show's unit, and n.
expect_exit 0 "export csv" "$AB" export --db "$db" --csv "$T/r.csv"
sed -n '/^## A\/B\/A brackets/,/^## Charts per case/p' "$md" >"$T/aba.md"
n_cells=0 bad=0
while IFS=, read -r case_name _ _ _ _ slot samples median_ns _; do
	want=$(awk -v m="$median_ns" 'BEGIN { if (m < 1e3) printf "%.0f ns", m; else if (m < 1e6) printf "%.2f us", m / 1e3; else printf "%.3f ms", m / 1e6 }')
	row=$(grep -F "| \`$case_name\` |" "$T/aba.md" || true)
	col=$(awk -F' \\| ' -v s="$slot" '/^\| case \|/ { for (i = 1; i <= NF; i++) if ($i == s) print i }' "$T/aba.md")
	cell=$(printf '%s\n' "$row" | awk -F' \\| ' -v c="$col" '{ print $c }')
	n_cells=$((n_cells + 1))
	case "$cell" in
	"$want ±"*"% n=$samples") ;;
	*) bad=$((bad + 1)); echo "    $case_name $slot: cell '$cell', csv $want n=$samples" ;;
	esac
done < <(tail -n +2 "$T/r.csv")
check "every A/B/A cell equals the csv median_ns and samples ($n_cells cells)" test "$bad" -eq 0 -a "$n_cells" -eq $((3 * cases))

check "no absolute path of this machine in the report" bash -c "! grep -q -e '$T' -e '$PWD' -e '/tmp/' '$md'"
check "the command line is there without paths" \
	grep -Eq '^- command line: `[^/` ]+ run scenarios/smoke.ini --backend cpu --db r.db --quick --label main`$' "$md"

if command -v gnuplot >/dev/null; then
	n_png=0
	for png in "$out"/*.png; do
		n_png=$((n_png + 1))
		stem=${png%.png}
		check "$(basename "$png") is a PNG" test "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
		check "$(basename "$png") has its .dat and .gp" test -s "$stem.dat" -a -s "$stem.gp"
		check "$(basename "$png") is referenced from the report" grep -qF "]($(basename "$png"))" "$md"
		check "$(basename "$stem").gp reads its data by a relative name" grep -qF "plot \"$(basename "$stem").dat\"" "$stem.gp"
	done
	check "one speedup, and a kernel, a box and a time-series chart per case ($n_png PNGs)" test "$n_png" -eq $((1 + 3 * cases))
	rm -f "$out/speedup.png"
	check "a chart redraws by hand: gnuplot speedup.gp" bash -c "cd '$out' && gnuplot speedup.gp && test -s speedup.png"
else
	echo "ok - # SKIP gnuplot not installed: PNG checks skipped"
fi

# Without gnuplot: the report is still written, says why, exits 0 and warns.
expect_exit 0 "report without gnuplot on PATH" env PATH=/nonexistent "$AB" report --db "$db" --out "$T/nogp"
check "warning names the skipped charts" grep -q '^abbench: warning: report: charts skipped: gnuplot not found' "$T/err"
check "report says the charts were not drawn" grep -q '^_Chart `speedup.png` not drawn: gnuplot not found' "$T/nogp/report.md"
check "no PNG without gnuplot" bash -c "! ls '$T'/nogp/*.png 2>/dev/null"
check "chart data and scripts still written" test -s "$T/nogp/speedup.dat" -a -s "$T/nogp/speedup.gp"

# Default directory, and data errors.
expect_exit 0 "report into the default directory" bash -c "cd '$T' && '$AB' report main --db '$db' --no-plots"
check "default directory is reports/run-1" test -s "$T/reports/run-1/report.md"
expect_exit 2 "report of a run that does not exist" "$AB" report 99 --db "$db" --out "$T/x"
expect_exit 2 "report from a database that does not exist" "$AB" report --db "$T/none.db" --out "$T/x"
finish
