#!/usr/bin/env bash
# A new database takes concurrent first runs: TRIALS (10) times, PROCS (6)
# processes start `abbench run` together on a database file that does not
# exist yet; every one must succeed (before: "cannot switch to WAL mode:
# database is locked" or "not an abbench database" in some trials). Each
# process has its own lock directory, so that they really run at once
# instead of taking turns on the CPU's device lock.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
trials=${TRIALS:-10} procs=${PROCS:-6}
failures=0
for t in $(seq "$trials"); do
	db="$T/c$t.db"
	pids=()
	for p in $(seq "$procs"); do
		ABBENCH_LOCK_DIR="$T/locks$p" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress \
			--only ln_modulate_short --db "$db" >/dev/null 2>"$T/e$t.$p" &
		pids+=($!)
	done
	for p in "${!pids[@]}"; do
		if ! wait "${pids[$p]}"; then
			failures=$((failures + 1))
			sed "s/^/    trial $t process $((p + 1)): /" "$T/e$t.$((p + 1))"
		fi
	done
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs WHERE status = '"'ok'")" -eq "$procs" ] || failures=$((failures + 1))
	[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || failures=$((failures + 1))
done
check "$((trials * procs)) first runs on $trials new databases all succeeded" test "$failures" -eq 0
finish
