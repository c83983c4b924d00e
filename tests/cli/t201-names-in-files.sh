#!/usr/bin/env bash
# Names from a database reach file names and markdown only escaped
# (print/escape.h: one function per sink): a sweep or case name with a '/'
# makes no directory and no exit 3, one with a newline makes no file name
# with a newline and injects no markdown line into report.md, and the
# dashboard's page and its charts' names stay plain. The names are planted
# in the database itself (a merged shard can carry anything the store
# accepts; a newline may be refused by the store, then exit 2 is the
# answer, never a broken file).
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
expect_exit 0 "a run with sweeps" "$AB" run tests/scenarios/sweep_small.ini --backend cpu --quick --no-progress --db "$T/n.db"

# a '/' in the sweep's and a case's names
sqlite3 "$T/n.db" "UPDATE cases SET sweep = '../up/' || sweep WHERE sweep != '';
	UPDATE cases SET name = 'a/b' WHERE name = 'plain'"
expect_exit 0 "report with '/' in names" "$AB" report --db "$T/n.db" --out "$T/slash" --no-plots
check "no directory made from a name" test -z "$(find "$T/slash" -mindepth 1 -type d)"
check "nothing written outside the report's directory" test ! -e "$T/up"
check "the sweep's chart has a plain stem" test -e "$T/slash/sweep-_._up_ln.gp"
expect_exit 0 "publish with '/' in names" "$AB" publish "$T/pub-slash" --db "$T/n.db" --no-plots
check "its charts are plain files in charts/" test -z "$(find "$T/pub-slash/charts" -mindepth 1 -type d)"

# a newline in the sweep's name, then a markdown heading
sqlite3 "$T/n.db" "UPDATE cases SET sweep = substr(sweep, 7) || char(10) || '# INJECTED' || char(10) || '![x](http://x)'
	WHERE sweep != '';
	UPDATE cases SET name = 'c' || char(10) || '# INJECTED ' || ordinal WHERE sweep = ''"
got=0
"$AB" report --db "$T/n.db" --out "$T/nl" --no-plots >"$T/out" 2>"$T/err" || got=$?
check "report with a newline in names: written or refused (exit $got)" test "$got" -eq 0 -o "$got" -eq 2
if [ "$got" -eq 0 ]; then
	check "no file name holds a newline" test "$(find "$T/nl" -name $'*\n*' | wc -l)" -eq 0
	for md in "$T"/nl/report*.md; do
		check "$(basename "$md"): no injected line" bash -c "! grep -q '^# INJECTED\|^!\[x\]' '$md'"
	done
	check "the sweep's chart stem has no newline" bash -c "ls '$T/nl' | grep -qx 'sweep-ln_*INJECTED.*\.gp'"
fi
got=0
"$AB" publish "$T/nl-pub" --db "$T/n.db" --no-plots >"$T/out" 2>"$T/err" || got=$?
check "publish with a newline in names: written or refused (exit $got)" test "$got" -eq 0 -o "$got" -eq 2
if [ "$got" -eq 0 ]; then
	check "no chart name holds a newline" test "$(find "$T/nl-pub" -name $'*\n*' | wc -l)" -eq 0
	check "the page holds no raw markup from a name" bash -c "! grep -q '<x>' '$T/nl-pub/index.html'"
fi
finish
