#!/usr/bin/env bash
# abbench prune (issue 33 item 6): failed and interrupted runs older than
# --older-than go, with every case, slot, sample, kernel and output row
# under them; runs named by id or label go whatever their status; a
# baseline's run never goes, by age or by name, nor a run still running;
# --dry-run removes nothing; bad input is a one-line error, exit 2, and the
# database stays as it was. Fake timer: no run here is a measurement.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1 ABBENCH_DB="$T/p.db"
q() { sqlite3 "$ABBENCH_DB" "$1"; }
if ! command -v sqlite3 >/dev/null; then
	echo "SKIP: no sqlite3 (the test plants old and failed runs with it)"
	exit 0
fi
for l in old-failed recent-interrupted kept-ok named-ok base; do
	expect_exit 0 "run $l" "$AB" run scenarios/smoke.ini --quick --label "$l" --no-progress
done
expect_exit 0 "baseline set" "$AB" baseline set nightly base
# planted: an old failed run, a recent interrupted one, and the baseline's
# run made old and failed too (a state no command makes: the rule must hold)
q "UPDATE runs SET status = 'failed', started_at = '2026-01-01T00:00:00Z' WHERE label IN ('old-failed', 'base');
   UPDATE runs SET status = 'interrupted' WHERE label = 'recent-interrupted';"
rows() { q "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM cases) || ' ' ||
	(SELECT count(*) FROM slots) || ' ' || (SELECT count(*) FROM samples) || ' ' || (SELECT count(*) FROM outputs)"; }
before=$(rows)

expect_exit 0 "--dry-run --older-than 7d" "$AB" prune --older-than 7d --dry-run
check "it names the old failed run only" bash -c "grep -c '^run ' '$T/out' | grep -qx 1 && grep -q \"^run 1  2026-01-01T00:00:00Z  smoke  label 'old-failed'  failed  5 cases$\" '$T/out'"
check "and says nothing was removed" grep -qx 'would prune 1 run (5 cases); --dry-run: nothing removed' "$T/out"
check "nothing was" test "$(rows)" = "$before"

expect_exit 0 "--older-than 7d" "$AB" prune --older-than 7d
check "it pruned the old failed run" grep -qx 'pruned 1 run (5 cases)' "$T/out"
labels=$(q 'SELECT group_concat(label) FROM (SELECT label FROM runs ORDER BY id)')
check "its run row is gone, the baseline's (old and failed) stays" test "$labels" = "recent-interrupted,kept-ok,named-ok,base"
orphans=$(q 'SELECT (SELECT count(*) FROM cases WHERE run_id NOT IN (SELECT id FROM runs)) +
	(SELECT count(*) FROM slots WHERE case_id NOT IN (SELECT id FROM cases)) +
	(SELECT count(*) FROM samples WHERE slot_id NOT IN (SELECT id FROM slots)) +
	(SELECT count(*) FROM outputs WHERE slot_id NOT IN (SELECT id FROM slots))')
check "no row is left without its run" test "$orphans" = 0
check "a fifth of the rows went" bash -c "set -- $before; b=(\$@); set -- $(rows); a=(\$@);
	for i in 0 1 2 3 4; do [ \$((b[i] - a[i])) -eq \$((b[i] / 5)) ] || exit 1; done"
expect_exit 0 "--older-than 1h: the recent interrupted run is younger" "$AB" prune --older-than 1h
check "nothing to prune" grep -qx 'nothing to prune' "$T/out"

expect_exit 0 "by label and by id, an ok run among them" "$AB" prune recent-interrupted 4
check "both pruned, newest first" bash -c "grep -q \"^run 4 .*label 'named-ok'  ok  5 cases$\" '$T/out' &&
	grep -q \"^run 2 .*label 'recent-interrupted'  interrupted\" '$T/out' && grep -qx 'pruned 2 runs (10 cases)' '$T/out' &&
	[ \$(grep -n '^run 4' '$T/out' | cut -d: -f1) -lt \$(grep -n '^run 2' '$T/out' | cut -d: -f1) ]"

before=$(rows)
expect_exit 2 "the baseline's run by name" "$AB" prune base
check "says why" grep -q "prune: run 5 is a baseline's run (abbench baseline list): a baseline's run is never pruned" "$T/err"
expect_exit 2 "a list with the baseline's run in it" "$AB" prune kept-ok base
expect_exit 2 "an unknown run" "$AB" prune 99
check "names it" grep -q "no run '99'" "$T/err"
expect_exit 2 "a run set" "$AB" prune set:k
expect_exit 2 "nothing chosen" "$AB" prune
check "says what to give" grep -q 'give --older-than AGE' "$T/err"
for age in 7 7x -1d d 1e400d; do
	expect_exit 2 "--older-than $age" "$AB" prune --older-than "$age"
done
check "the message names the units" grep -q 'a number and a unit (s, m, h, d or w), as 7d' "$T/err"
check "the database is as it was" test "$(rows)" = "$before"
expect_exit 2 "no database" "$AB" prune --older-than 1d --db "$T/none.db"
check "and none was made" test ! -e "$T/none.db"

# a run still measuring (a slow scenario, its row 'running')
printf '[scenario]\nname = slow\nbackend = cpu\nwarmup = 0\nmin_samples = 1000000\nmax_samples = 1000000\n' >"$T/s.ini"
printf 'min_time_ms = 600000\nmax_time_ms = 600000\n[case c]\nsite = ln_modulate\nshape = 1x64x1024\n' >>"$T/s.ini"
"$AB" run "$T/s.ini" --no-progress >/dev/null 2>&1 &
slow=$!
running_id() { q "SELECT id FROM runs WHERE status = 'running'" 2>/dev/null; }
for _ in $(seq 1200); do # 60 s at most, less as soon as its row is there
	[ -n "$(running_id)" ] && break
	sleep 0.05
done
id=$(running_id)
expect_exit 2 "a run still running" "$AB" prune "$id"
check "says so" grep -q "run $id is still running: it is not pruned" "$T/err"
kill -TERM "$slow"
wait "$slow" 2>/dev/null
expect_exit 0 "once interrupted, it goes by id" "$AB" prune "$id"

expect_exit 0 "prune --help" "$AB" prune --help
check "names its options" bash -c "grep -q -- '--older-than AGE' '$T/out' && grep -q -- '--dry-run' '$T/out'"
expect_exit 0 "abbench --help lists prune" "$AB" --help
check "  so" grep -q '^  prune' "$T/out"
finish
