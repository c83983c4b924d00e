#!/usr/bin/env bash
# Names from a merged database reach the divergence printers (diff in every
# format, the report's accuracy section and its heatmaps) only through their
# sink's quoting (print/escape.h): case names holding a backtick, a double
# quote, a pipe, HTML and a newline, one of them a gnuplot command
# substitution, are planted in the store after a run of planted arms that
# are not byte-equal. Markdown gets them escaped on one line, JSON exactly,
# the terminal with the newline made visible, gnuplot inside a string it
# cannot leave (and runs nothing), the charts' file names plain, CSV as one
# RFC 4180 field, the dashboard's HTML escaped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/p.db"
plant_scenario "$T/p.ini"
expect_exit 0 "a run of planted arms" "$AB" run "$T/p.ini" --db "$db" --no-progress
sqlite3 "$db" "UPDATE cases SET name = 'ulp\`1\"q|<b>x</b>' || char(10) || '# H' WHERE name = 'ulp1_bf16';
	UPDATE cases SET name = 'sg\`touch $T/PWN\`\"q' || char(10) || 'x' WHERE name = 'sign_bf16'"
html=$(printf 'ulp`1"q|<b>x</b>\n# H')
cmd=$(printf 'sg`touch %s/PWN`"q\nx' "$T")

expect_exit 0 "diff, markdown" "$AB" diff 1 "$html" --db "$db" --format markdown --out "$T/dm/"
check "its heading escaped on one line" grep -qxF '## Where the bits differ: ulp\`1"q\|&lt;b&gt;x&lt;/b&gt; # H' "$T/dm/diff.md"
check "no raw HTML of the name" bash -c "! grep -qF '<b>x' '$T/dm/diff.md'"
expect_exit 0 "diff, json" "$AB" diff 1 "$html" --db "$db" --format json --out "$T/d.json"
check "the JSON holds the name exactly" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['case']['name'] == sys.argv[2], d['case']['name']" "$T/d.json" "$html"
expect_exit 0 "diff, text" "$AB" diff 1 "$html" --db "$db"
check "the terminal sees the newline as \\x0A" grep -qF "case 'ulp\`1\"q|<b>x</b>\\x0A# H'" "$T/out"

expect_exit 0 "report with the accuracy section" "$AB" report 1 --db "$db" --out "$T/rep"
check "the summary's row escaped" grep -qF '| ulp\`1"q\|&lt;b&gt;x&lt;/b&gt; # H (a `ref_bf16`' "$T/rep/report.md"
check "no line of the report starts with the planted heading" bash -c "! grep -q '^# H' '$T/rep/report.md'"
check "the heatmaps' file names are plain" test -n "$(find "$T/rep" -name 'heatmap-sg_touch_*PWN__q_x-B-out.gp')"
check "gnuplot gets the name in a single-quoted string" \
	grep -qxF "set title 'sg\`touch $T/PWN\`\"q x, B: ’out’ elements not byte-equal to A1 (1 of 128)'" \
	"$(find "$T/rep" -name 'heatmap-sg_touch_*-B-out.gp')"
if command -v gnuplot >/dev/null; then
	check "gnuplot drew that heatmap" test -s "$(find "$T/rep" -name 'heatmap-sg_touch_*-B-out.png')"
	check "and ran nothing of the name" test ! -e "$T/PWN"
else
	ok "gnuplot not installed: the charts' scripts checked only"
fi
expect_exit 0 "export, csv" "$AB" export 1 --db "$db" --format csv --out "$T/e.csv"
check "the CSV holds the name as one field: quoted, its quote doubled, its newline inside" /usr/bin/python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert any(r and r[0] == sys.argv[2] for r in rows), [r[0] for r in rows]" "$T/e.csv" "$html"
expect_exit 0 "publish" "$AB" publish "$T/pub" --db "$db" --no-plots
check "the dashboard holds the name escaped" grep -qF 'ulp`1&quot;q|&lt;b&gt;x&lt;/b&gt;' "$T/pub/index.html"
check "and none of its raw markup" bash -c "! grep -qF '<b>x' '$T/pub/index.html'"
finish
