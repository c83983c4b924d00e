#!/usr/bin/env bash
# Fake-timer runs take no device lock (issue 23.7): their times come from a
# cost model, so they measure no device and must never wait for other
# users' runs (a `--devices all` test once waited 522.9 s). With both the
# fake-timer key and this host's CPU key held by another process, a
# fake-timer run with --no-wait succeeds at once; a real-timing run is
# still refused (exit 3). `run --help` names ABBENCH_LOCK_DIR. (About 1 s.)
. "$(dirname "$0")/lib.sh"
db="$T/f.db"
mkdir -p "$ABBENCH_LOCK_DIR"
key=$(hostname | cut -c1-58 | sed 's/[^A-Za-z0-9._-]/_/g')
exec 8>"$ABBENCH_LOCK_DIR/cpu-fake-timer.lock" 9>"$ABBENCH_LOCK_DIR/cpu-$key.lock"
flock 8
flock 9

ABBENCH_FAKE_TIMER=1 expect_exit 0 "a fake-timer run while the locks are held" \
	"$AB" run scenarios/smoke.ini --backend cpu --quick --no-wait --no-progress --db "$db" 8>&- 9>&-
check "it waited for nobody" bash -c "! grep -q 'in use\|waiting' '$T/err'"
check "its run is 'ok'" test "$(sqlite3 "$db" "SELECT status FROM runs")" = ok
check "it wrote nothing into the lock files" test ! -s "$ABBENCH_LOCK_DIR/cpu-fake-timer.lock"
ABBENCH_FAKE_TIMER=1 ABBENCH_CPU_DEVICES=2 expect_exit 0 "--devices all under the fake timer, locks held" \
	"$AB" run scenarios/smoke.ini --backend cpu --devices all --run-set f --quick --no-wait --no-progress \
	--db "$db" 8>&- 9>&-
expect_exit 3 "a real-timing run is refused while its lock is held" \
	env -u ABBENCH_FAKE_TIMER "$AB" run scenarios/smoke.ini --backend cpu --quick --no-wait --no-progress --db "$db" 8>&- 9>&-
check "it names the held lock" grep -q "is in use by .*not waiting (--no-wait)" "$T/err"
expect_exit 0 "run --help" "$AB" run --help
check "run --help names ABBENCH_LOCK_DIR" grep -q 'ABBENCH_LOCK_DIR' "$T/out"
check "run --help says fake-timer runs take no lock" grep -q 'ABBENCH_FAKE_TIMER=1 measures no device and takes no lock' "$T/out"
finish
