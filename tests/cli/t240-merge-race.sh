#!/usr/bin/env bash
# A merge never removes a file it did not create (issue 19, row 2). Two
# merges start at once into an OUT that does not exist yet: one succeeds,
# the other fails (a UUID that arrives with other content). In every trial
# OUT exists, passes SQLite's integrity check and holds the successful
# merge's run and nothing of the failed one; no temporary file is left.
# Before the fix the failing merge, which had seen no OUT, unlinked OUT
# and its -wal/-shm after the other had committed into it (12 of 20).
# Then two merges that both succeed at once: OUT holds both runs.
# MERGE_TRIALS (default 20) sets the number of trials.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
trials=${MERGE_TRIALS:-20}
run() { "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --only ln_modulate_short "$@" >/dev/null; }
run --db "$T/a.db"
run --db "$T/b.db"
run --db "$T/c.db"
cp "$T/b.db" "$T/tampered.db"
sqlite3 "$T/tampered.db" "UPDATE samples SET wall_ns = wall_ns + 1 WHERE idx = 0 AND slot_id = (SELECT max(id) FROM slots)"
uuid() { sqlite3 "$1" "SELECT group_concat(uuid) FROM runs"; }
ua=$(uuid "$T/a.db") uc=$(uuid "$T/c.db")

# verdict OUT RC_OK RC_BAD: why the trial went wrong, or nothing
verdict() {
	local out=$1
	[ "$2" -eq 0 ] || { echo "the good merge exited $2"; return; }
	[ "$3" -eq 2 ] || { echo "the failing merge exited $3"; return; }
	[ -s "$out" ] || { echo "OUT is gone"; return; }
	[ "$(sqlite3 "$out" 'PRAGMA integrity_check')" = ok ] || { echo "OUT fails the integrity check"; return; }
	[ "$(uuid "$out")" = "$ua" ] || echo "OUT holds '$(uuid "$out")', not the good merge's run alone"
}

lost=0 first=""
for i in $(seq "$trials"); do
	out="$T/out$i.db"
	"$AB" merge "$out" "$T/a.db" >/dev/null 2>&1 &
	good=$!
	"$AB" merge "$out" "$T/b.db" "$T/tampered.db" >/dev/null 2>&1 &
	bad=$!
	rc_good=0 rc_bad=0
	wait "$good" || rc_good=$?
	wait "$bad" || rc_bad=$?
	why=$(verdict "$out" "$rc_good" "$rc_bad")
	if [ -n "$why" ]; then
		lost=$((lost + 1))
		first=${first:-"trial $i: $why"}
	fi
done
check "$trials trials of a good and a failing merge into one new OUT: OUT always whole with the good run${first:+ ($lost bad, first $first)}" \
	test "$lost" -eq 0
check "no temporary file left beside OUT" test -z "$(find "$T" -name '*.merge-*')"

# Two good merges at once: the one that finds OUT made meanwhile merges into it.
both=0
for i in 1 2 3 4 5; do
	out="$T/both$i.db"
	"$AB" merge "$out" "$T/a.db" >/dev/null 2>&1 &
	p1=$!
	"$AB" merge "$out" "$T/c.db" >/dev/null 2>&1 &
	p2=$!
	r1=0 r2=0
	wait "$p1" || r1=$?
	wait "$p2" || r2=$?
	got=$(sqlite3 "$out" "SELECT group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")
	want=$(printf '%s\n%s\n' "$ua" "$uc" | sort | paste -sd,)
	[ "$r1$r2" = 00 ] && [ "$got" = "$want" ] && both=$((both + 1))
done
check "5 trials of two good merges at once: both exit 0, OUT holds both runs ($both of 5)" test "$both" -eq 5
expect_exit 2 "a failing merge alone into a new OUT" "$AB" merge "$T/fresh.db" "$T/b.db" "$T/tampered.db"
check "leaves no OUT and no temporary" test -z "$(find "$T" -name 'fresh*' -o -name '*.merge-*')"
finish
