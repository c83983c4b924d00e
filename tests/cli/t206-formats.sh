#!/usr/bin/env bash
# One spelling of the output on every command that prints: --format NAME
# (a printer found by name in harness/print/printer.c's table) and --out
# FILE (DIR for report, publish and history's charts). The older flags are
# aliases and print the same bytes: --json is --format json; export's --csv,
# --json and --benchmark-json FILE are --format csv|json|benchmark --out
# FILE; publish DIR is publish --out DIR. A format a command does not print,
# or one that does not exist, is exit 2 naming the formats it does print,
# before anything is read or written; --help lists them.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/f.db"
cd "$T" || exit 1
run() { "$AB" run "$OLDPWD/scenarios/smoke.ini" --backend cpu --quick --no-progress --db "$db" "$@" >/dev/null; }
run && run && "$AB" baseline set base 1 --db "$db" >/dev/null

# same DESCRIPTION FILE CMD...: CMD's stdout has FILE's bytes.
same() {
	local desc=$1 file=$2; shift 2
	expect_exit 0 "$desc" "$@"
	check "  the same bytes as $(basename "$file")" cmp -s "$T/out" "$file"
}
"$AB" show --json --db "$db" >show-alias.json
same "show --format json is --json" show-alias.json "$AB" show --format json --db "$db"
expect_exit 0 "show --format json --out FILE" "$AB" show --format json --out show.json --db "$db"
check "  the file holds it, stdout nothing" bash -c "cmp -s show.json show-alias.json && test ! -s '$T/out'"
same "show --format text, the default" <("$AB" show --db "$db") "$AB" show --format text --db "$db"

"$AB" export --db "$db" --csv a.csv --json a.json --benchmark-json a.bench
same "export --format csv is --csv" a.csv "$AB" export --format csv --db "$db"
same "export --format json is --json (the whole run)" a.json "$AB" export --format json --db "$db"
same "export --format benchmark is --benchmark-json" a.bench "$AB" export --format benchmark --db "$db"
expect_exit 0 "export --out FILE alone is csv" "$AB" export --out b.csv --db "$db"
check "  the same bytes" cmp -s a.csv b.csv
same "show --format csv prints what export does" a.csv "$AB" show --format csv --db "$db"

"$AB" compare 1 2 --json --db "$db" >cmp-alias.json
same "compare --format json is --json" cmp-alias.json "$AB" compare 1 2 --format json --db "$db"
"$AB" gate 2 --baseline base --json --db "$db" >gate-alias.json 2>/dev/null
expect_exit 4 "gate --format json --out FILE (a quick run: inconclusive)" "$AB" gate 2 --baseline base --format json \
	--out gate.json --db "$db"
check "  the file holds --json's document" cmp -s gate.json gate-alias.json
"$AB" list --db "$db" >list.txt
expect_exit 0 "list --out FILE" "$AB" list --out list2.txt --db "$db"
check "  the same bytes as its stdout" cmp -s list.txt list2.txt
"$AB" baseline list --db "$db" >bl.txt
expect_exit 0 "baseline list --format text --out FILE" "$AB" baseline list --format text --out bl2.txt --db "$db"
check "  the same bytes as its stdout" cmp -s bl.txt bl2.txt
expect_exit 0 "report --format markdown --out DIR" "$AB" report --format markdown --out rep --no-plots --db "$db"
check "  report.md written" test -s rep/report.md
expect_exit 0 "publish --out DIR" "$AB" publish --out pub --no-plots --db "$db"
check "  index.html written" test -s pub/index.html
expect_exit 0 "history --format text" "$AB" history --format text --db "$db"

# refused before anything is read or written
bad() {
	local desc=$1 want=$2; shift 2
	expect_exit 2 "$desc" "$@"
	check "  the message says what it prints" grep -qF -- "$want" "$T/err"
}
bad "show --format markdown" "format 'markdown' does not print a run's summary (show prints text, csv, json, benchmark)" \
	"$AB" show --format markdown --db "$db"
bad "show --format nosuch" "unknown format 'nosuch' (show prints" "$AB" show --format nosuch --db "$db"
bad "show --json --format text" "--json is --format json, not --format text" "$AB" show --json --format text --db "$db"
bad "report --format json" "report prints markdown" "$AB" report --format json --out never --db "$db"
check "  no directory made" test ! -e never
bad "history --format csv" "history prints text" "$AB" history --format csv --db "$db"
bad "gate --format csv" "gate prints markdown, json" "$AB" gate --baseline base --format csv --out never.md --db "$db"
check "  no file made" test ! -e never.md
bad "export --format markdown" "export prints text, csv, json, benchmark" "$AB" export --format markdown --db "$db"
expect_exit 2 "publish DIR and --out DIR" "$AB" publish pub1 --out pub2 --db "$db"
check "  neither made" test ! -e pub1 -a ! -e pub2

for c in show export compare gate report history publish list baseline; do
	expect_exit 0 "$c --help" "$AB" "$c" --help
	check "  lists --format and --out" bash -c "grep -q '^  --format NAME .*output format: ' '$T/out' &&
		grep -q '^  --out ' '$T/out'"
done
"$AB" show --help >help.txt
check "show --help names its formats" grep -q 'output format: text, csv, json, benchmark (default text)' help.txt
"$AB" export --help >help.txt
check "export --help names the aliases" bash -c "grep -q -- '--csv FILE  *alias of --format csv --out FILE' help.txt"
finish
