#!/usr/bin/env bash
# `abbench figures`: the table of figures (analysis/figures.h) as text,
# markdown and the abbench.figures JSON; --view csv lists exactly the CSV
# export's columns in order (an interval's _low and _high and a second
# value's column after their row); the markdown is the table of
# docs/REPORTS.md ("The figures"), so the docs cannot drift from the
# binary; a bad view or format is exit 2 with nothing on standard output.
# (About 1 s.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
expect_exit 0 "figures --help" "$AB" figures --help
check "its help names the views" grep -q 'csv, json, show, run, report, bandwidth, sweeps' "$T/out"
expect_exit 0 "figures" "$AB" figures
cp "$T/out" "$T/figures.txt"
expect_exit 0 "figures --format json" "$AB" figures --format json --out "$T/figures.json"
check "the JSON matches its schema" python3 tests/tools/json_check.py docs/JSON.md abbench.figures "$T/figures.json"
n=$(python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['figures']))" "$T/figures.json")
check "the text has a line per figure ($n)" test "$(($(wc -l <"$T/figures.txt") - 1))" -eq "$n"
check "a figure's line says its level, hint, head, places and what it is" \
	grep -Eq '^speedup +case +ratio +speedup A/B \[95% CI\] +csv 32, json 12, run 4, report 4, sweeps 2; median\(A\) / median\(B\)' \
	"$T/figures.txt"

expect_exit 0 "a run" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$T/s.db"
"$AB" export --db "$T/s.db" --format csv | head -1 | tr ',' '\n' >"$T/columns"
"$AB" figures --view csv --format json >"$T/csv.json"
python3 - "$T/csv.json" >"$T/keys" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["figures"]:
    print(f["key"])
    if f["ci"]:
        print(f["key"] + "_low")
        print(f["key"] + "_high")
    if f["key2"]:
        print(f["key2"])
PY
check "--view csv lists the export's $(wc -l <"$T/columns") columns in their order" cmp -s "$T/columns" "$T/keys"

expect_exit 0 "figures --format markdown" "$AB" figures --format markdown
sed -n '/^<!-- figures: begin/,/^<!-- figures: end/p' docs/REPORTS.md | sed '1d;$d' >"$T/doc.md"
check "docs/REPORTS.md holds the table as the binary prints it" cmp -s "$T/out" "$T/doc.md"
[ "$n_fail" -eq 0 ] || diff "$T/doc.md" "$T/out" | head -5 | sed 's/^/    /'

expect_exit 2 "an unknown view" "$AB" figures --view bandwith
check "it names the nearest and every view" grep -q "no view 'bandwith' (did you mean 'bandwidth'? views: csv, json" "$T/err"
check "and prints nothing" test ! -s "$T/out"
expect_exit 2 "a format that does not print the table" "$AB" figures --format csv
check "it names the formats that do" grep -q "figures prints text, markdown, json" "$T/err"
finish
