#!/usr/bin/env bash
# The CSV export never hands a spreadsheet a formula (OWASP, CSV
# injection): a text cell that starts with =, +, -, @, a tab or a CR gets
# a leading ' and stays text; numbers are written as they are, a negative
# one included (docs/RELIABILITY.md, "Output files"). The text is planted
# in the database as a merged shard could carry it, and the file is read
# back with Python's csv module. (The planted noise is positive: a
# negative one is refused by the store's row check since issue 31, t501.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/c.db"
expect_exit 0 "a smoke run" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$db"
sqlite3 "$db" "
UPDATE cases SET name = '=HYPERLINK(\"http://x\",\"y\")' || ordinal, site = '+cmd|'' /C calc''!A0',
	shape = '-2+3', input = '@SUM(A1:A2)', sweep = char(9) || '=1+1', axis = char(13) || 'T';
UPDATE slots SET variant = '=1+2', stopping_reason = '-x', noise = 0.25" || fail "the formulas were planted"
expect_exit 0 "export --csv" "$AB" export --db "$db" --csv "$T/c.csv"
expect_exit 0 "export --format csv to standard output" "$AB" export --db "$db" --format csv
check "  the same bytes" cmp -s "$T/c.csv" "$T/out"
/usr/bin/python3 - "$T/c.csv" >"$T/check" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = [(k, v) for r in rows for k, v in r.items() if v and v[0] in "=+-@\t\r" and k != "noise"]
print("rows", len(rows))
print("formulas", len(bad), bad[:3])
print("case", rows[0]["case"])
print("noise", sorted({r["noise"] for r in rows}))
EOF
check "the CSV has a row per slot ($(head -1 "$T/check"))" grep -q '^rows 15$' "$T/check"
check "no text cell starts a formula ($(sed -n 2p "$T/check"))" grep -q '^formulas 0 ' "$T/check"
check "a formula stays the text it was, after a '" grep -qF "case '=HYPERLINK(\"http://x\",\"y\")0" "$T/check"
check "a number stays a number" grep -qF "noise ['0.25']" "$T/check"
finish
