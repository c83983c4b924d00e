#!/usr/bin/env bash
# One measurement per device: two concurrent CPU runs take turns (the
# second says it waits, for whom, and measures only once the first is done);
# with --no-wait the second fails at once (exit 3) and writes no run row.
# A lock dies with its process: after a SIGKILL the next run does not wait.
# Real timing: a fake-timer run measures no device and takes no lock (t300).
# The slow run (24000 samples of a 1x32x256 case, about 1 s on an idle
# 2-core VM, longer under load) must outlast the --no-wait run's start.
. "$(dirname "$0")/lib.sh"
unset ABBENCH_FAKE_TIMER
db="$T/l.db"
cat >"$T/slow.ini" <<'EOF'
[scenario]
name = slow
backend = cpu
warmup = 0
min_samples = 8000
max_samples = 8000
min_time_ms = 1000000
max_time_ms = 1000000
target_noise = 0.0000001
l2_flush = false
[arms]
a = eager
b = fused
[case c1]
site = ln_modulate
shape = 1x32x256
EOF
slow() { exec "$AB" run "$T/slow.ini" --backend cpu --no-progress --db "$db" "$@"; }
# until_locked: until the lock file names a holder (60 s at most: a loaded
# machine starts a sanitized binary slowly; the loop ends as soon as it is).
until_locked() {
	for _ in $(seq 600); do
		grep -q '^pid ' "$ABBENCH_LOCK_DIR"/cpu-*.lock 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

(slow --label first >"$T/o1" 2>"$T/e1") &
first=$!
check "the first run holds the CPU lock" until_locked
check "the lock file says who holds it" grep -q "^pid $first on host $(hostname), scenario 'slow' (label 'first'), since " "$ABBENCH_LOCK_DIR"/cpu-*.lock

expect_exit 3 "a second run with --no-wait fails at once" "$AB" run "$T/slow.ini" --backend cpu --no-progress --db "$db" --no-wait --label nowait
check "it says which device and for whom" grep -q "device 'cpu-.*' is in use by pid $first on host $(hostname), scenario 'slow' (label 'first'), since .*not waiting (--no-wait)" "$T/err"
n_label() { sqlite3 "$db" "SELECT count(*) FROM runs WHERE label = '$1'"; }
check "it wrote no run row" test "$(n_label nowait)" -eq 0

(slow --label second >"$T/o2" 2>"$T/e2") &
second=$!
rc1=0; wait "$first" || rc1=$?
rc2=0; wait "$second" || rc2=$?
check "the first run succeeded" test "$rc1" -eq 0
check "the second run succeeded" test "$rc2" -eq 0
check "the second said it waited, and for whom" grep -q "waiting for device 'cpu-.*', in use by pid $first on host .*scenario 'slow' (label 'first')" "$T/e2"
check "the second said when the device was free" grep -q "is free now" "$T/e2"
# The second measured only after the first had finished (its row is
# written once it holds the lock: started_at >= the first's finished_at).
started2=$(sqlite3 "$db" "SELECT started_at FROM runs WHERE label = 'second'")
finished1=$(sqlite3 "$db" "SELECT finished_at FROM runs WHERE label = 'first'")
check "the runs did not overlap ($finished1 <= $started2)" test ! "$started2" \< "$finished1"
n_ok() { sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok'"; }
check "both are 'ok'" test "$(n_ok)" -eq 2
check "the lock file is empty once free" test ! -s "$(ls "$ABBENCH_LOCK_DIR"/cpu-*.lock)"

# A SIGKILLed holder leaves no lock behind.
(slow --label killed >/dev/null 2>&1) &
pid=$!
check "the third run holds the lock" until_locked
# The lock is held by the supervised run, the child of the process killed
# (run/supervise.h): it dies by PR_SET_PDEATHSIG, and its lock goes once
# its exit has closed the file, which under load comes after `wait`.
run_pid=$(pgrep -P "$pid" | head -1)
kill -KILL "$pid"
wait "$pid" 2>/dev/null
run_gone() {
	for _ in $(seq 600); do
		[ ! -e "/proc/$run_pid" ] || grep -q '^State:.*Z' "/proc/$run_pid/status" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
check "the supervised run ($run_pid) died with its supervisor" run_gone
expect_exit 0 "a run after the SIGKILL does not wait" "$AB" run "$T/slow.ini" --backend cpu --no-progress --db "$db" --no-wait --quick
check "no waiting was said" bash -c "! grep -q waiting '$T/err'"
finish
