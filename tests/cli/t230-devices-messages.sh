#!/usr/bin/env bash
# `run --devices`: a worker killed before it could report an error. Both
# workers of two (pretend) CPU devices wait for the device lock, which the
# test holds; the test kills worker 0 with SIGKILL and lets the lock go, so
# worker 1 measures its shard. The parent says how worker 0 ended (killed
# by signal 9), not the last line its log happens to hold (the lock's
# "waiting for device" note), and every log it names still exists: a
# failed worker's log is kept, the rest of the worker directory removed.
. "$(dirname "$0")/lib.sh"
# Real timing: a fake-timer run takes no lock (t300).
unset ABBENCH_FAKE_TIMER
db="$T/d.db"
mkdir -p "$ABBENCH_LOCK_DIR"
# the CPU device's lock (run/devlock.h: cpu-HOST, characters outside [A-Za-z0-9._-] as '_')
key=$(hostname | cut -c1-58 | sed 's/[^A-Za-z0-9._-]/_/g')
exec 9>"$ABBENCH_LOCK_DIR/cpu-$key.lock"
flock 9

# the workers must not inherit the test's lock (fd 9)
ABBENCH_CPU_DEVICES=2 "$AB" run scenarios/smoke.ini --backend cpu --devices all --run-set k --quick --db "$db" \
	>"$T/out" 2>"$T/err" 9>&- &
parent=$!
waiting=0
for _ in $(seq 1200); do # 60 s at most: a loaded machine starts two workers slowly
	waiting=$(grep -l "waiting for device" "$db".workers.*/worker-*.log 2>/dev/null | wc -l)
	[ "$waiting" -eq 2 ] && break
	sleep 0.05
done
check "both workers wait for the lock" test "$waiting" -eq 2
pid0=$(sed -n "s/^device 0: shard 1\/2 of run set 'k' started (pid \([0-9]*\))$/\1/p" "$T/err")
check "worker 0's pid is announced ($pid0)" test -n "$pid0"
kill -KILL "$pid0"
exec 9>&- # the lock goes: worker 1 measures
got=0
wait "$parent" || got=$?
check "the command fails, exit 3 (got $got)" test "$got" -eq 3
check "worker 0: killed by signal 9" \
	grep -Eq "^device 0: shard 1/2 FAILED after [0-9.]+ s: killed by signal 9 \([^)]*\) before it reported an error" "$T/err"
check "no unrelated line quoted as its error" bash -c "! grep -q 'FAILED.*waiting for device' '$T/err'"
check "the command's error says the same" \
	grep -q "^abbench: error: run: device 0 (shard 1/2): killed by signal 9 .* (run set incomplete)" "$T/err"
check "worker 1 is done" grep -Eq "^device 1: shard 2/2 done after" "$T/err"
logs=$(grep -o "'[^']*worker-[0-9]*\.log'" "$T/err" | tr -d "'" | sort -u)
check "a log is named" test -n "$logs"
for log in $logs; do
	check "the named log exists: $log" test -f "$log"
done
check "the kept log is worker 0's, with what it wrote" grep -q "waiting for device" "$db".workers.*/worker-0.log
check "nothing else stays in the worker directory" test "$(ls "$db".workers.* | tr '\n' ' ')" = "worker-0.log "
in_k="SELECT count(*) FROM runs WHERE run_set = 'k' AND status = 'ok'"
check "worker 1's run is merged" test "$(sqlite3 "$db" "$in_k")" -eq 1
expect_exit 2 "no 'ok' run set" "$AB" show set:k --db "$db"
finish
