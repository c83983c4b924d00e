#!/usr/bin/env bash
# A run stopped while another process holds the database's write lock
# cannot mark its row 'interrupted' (the store waits 5 s for the lock, then
# gives up): it says so, once, and does not also claim the row was marked.
# The next command, once the lock is free, finds the run's process gone and
# marks it interrupted. (About 6 s: the store's busy timeout.) The lock is
# held until the run has exited, not for a fixed time: however slowly a
# loaded machine lets the run react to its signal, its 5 s wait ends
# while the lock is still held.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/m.db"
printf '[scenario]\nname = slow\nbackend = cpu\nwarmup = 0\nmin_samples = 1000000\nmax_samples = 1000000\n' >"$T/s.ini"
printf 'min_time_ms = 600000\nmax_time_ms = 600000\n[arms]\na = eager\nb = fused\n' >>"$T/s.ini"
printf '[case c]\nsite = ln_modulate\nshape = 1x64x1024\n' >>"$T/s.ini"

"$AB" run "$T/s.ini" --db "$db" --no-progress >"$T/out" 2>"$T/err" &
run=$!
running=0
for _ in $(seq 1200); do # 60 s at most, less as soon as the row is there
	running=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'running'" 2>/dev/null || echo 0)
	[ "$running" = 1 ] && break
	sleep 0.05
done
check "the run is measuring" test "$running" = 1
# hold the write lock until the run has exited ($T/release; 120 s at most)
(echo "BEGIN EXCLUSIVE;"; for _ in $(seq 1200); do [ -e "$T/release" ] && break; sleep 0.1; done
	echo "COMMIT;") | sqlite3 "$db" &
holder=$!
locked=0
for _ in $(seq 600); do
	if ! sqlite3 "$db" "PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; then
		locked=1
		break
	fi
	sleep 0.05
done
check "the database is locked by another process" test "$locked" = 1
kill -TERM "$run"
got=0
wait "$run" || got=$?
check "the run exits 143 (got $got)" test "$got" -eq 143
check "it says the row could not be marked, and why" \
	grep -q "^abbench: error: run 1 could not be marked interrupted: .*database is locked" "$T/err"
check "it does not also say the row was marked" bash -c "! grep -q 'marked interrupted in' '$T/err'"
touch "$T/release"
wait "$holder"
expect_exit 0 "list, once the lock is free" "$AB" list --db "$db"
check "the next command marked it interrupted" \
	test "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = 1")" = interrupted
finish
