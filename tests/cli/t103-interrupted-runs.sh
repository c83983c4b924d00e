#!/usr/bin/env bash
# Interrupted runs: SIGINT and SIGTERM stop a run at the next sample, mark
# it 'interrupted' (stopped in its first case, it keeps no case: t302 has
# one that keeps its finished ones) and exit 130 / 143; a run killed with
# SIGKILL is marked 'interrupted' by the next command that opens the
# database, a reading one included; 'last' is the newest finished run, so
# report/gate/show last work while a run is still going.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/i.db"
# A run long enough to be caught in the middle: 2 cases x 3 slots of up to
# 200000 fake-timer samples (about a minute of real computing).
cat >"$T/long.ini" <<'EOF'
[scenario]
name = long
backend = cpu
warmup = 0
min_samples = 200000
max_samples = 200000
min_time_ms = 1000000
max_time_ms = 1000000
target_noise = 0.0000001
l2_flush = false
[arms]
a = eager
b = fused
[case c1]
site = ln_modulate
shape = 1x64x1024
[case c2]
site = ln_modulate
shape = 1x64x1024
EOF
# A script's background job starts with SIGINT ignored (and abbench keeps
# an ignored signal ignored): env puts the default back, and exec makes
# $! abbench's own pid.
long() { exec env --default-signal=INT "$AB" run "$T/long.ini" --backend cpu --no-progress --db "$db"; }
status_of() { sqlite3 "$db" "SELECT status FROM runs WHERE id = $1"; }
# wait_running N: until run N's row exists (the run is measuring), 60 s at
# most (a loaded machine), less as soon as it does.
wait_running() {
	for _ in $(seq 600); do
		[ "$(status_of "$1" 2>/dev/null)" = running ] && return 0
		sleep 0.1
	done
	return 1
}

# stop SIG PID: sends SIG, then waits at most 20 s for PID to end (killing
# it if it does not: the test then fails instead of hanging); $rc is its
# exit status.
stop() {
	kill "-$1" "$2"
	for _ in $(seq 200); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$2" 2>/dev/null && fail "run $2 ignored SIG$1"
	rc=0; wait "$2" || rc=$?
}

expect_exit 0 "a finished run first" "$AB" run scenarios/smoke.ini --backend cpu --no-progress --db "$db" --label finished

# SIGINT -> 130, 'interrupted', its error says so, no case (none finished).
(long >"$T/o1" 2>"$T/e1") &
pid=$!
check "run 2 is measuring" wait_running 2
stop INT "$pid"
check "SIGINT exits 130 (got $rc)" test "$rc" -eq 130
check "run 2 is 'interrupted'" test "$(status_of 2)" = interrupted
check "its error names the signal" test "$(sqlite3 "$db" 'SELECT error FROM runs WHERE id = 2')" = "case 'c1': interrupted by SIGINT"
check "it keeps no case" test "$(sqlite3 "$db" 'SELECT count(*) FROM cases WHERE run_id = 2')" -eq 0
check "stderr says it was marked" grep -q "run 2 marked interrupted" "$T/e1"
check "it has a finish time" test -n "$(sqlite3 "$db" 'SELECT finished_at FROM runs WHERE id = 2')"

# SIGTERM -> 143.
(long >/dev/null 2>&1) &
pid=$!
check "run 3 is measuring" wait_running 3
stop TERM "$pid"
check "SIGTERM exits 143 (got $rc)" test "$rc" -eq 143
check "run 3 is 'interrupted' by SIGTERM" test "$(sqlite3 "$db" 'SELECT status || error FROM runs WHERE id = 3')" = "interruptedcase 'c1': interrupted by SIGTERM"

# While run 4 is going, 'last' is run 3 (the newest finished).
(long >/dev/null 2>&1) &
pid=$!
check "run 4 is measuring" wait_running 4
check "the row records this host and the pid" test "$(sqlite3 "$db" 'SELECT host || pid FROM runs WHERE id = 4')" = "$(hostname)$pid"
expect_exit 0 "show last while a run is going" "$AB" show last --db "$db"
check "'last' is run 3, not the running run 4" grep -q '^run 3 ' "$T/out"
expect_exit 0 "report last of the finished run 1" "$AB" report finished --db "$db" --out "$T/rep" --no-plots
expect_exit 0 "gate of the finished run 1 against itself" "$AB" gate finished --baseline finished --db "$db"
expect_exit 0 "list while run 4 is going" "$AB" list --db "$db"
check "run 4 still 'running' (its process is alive)" test "$(status_of 4)" = running

# SIGKILL: nothing can mark it then; the next command that opens the
# database does, read-only ones included.
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check "run 4 still says 'running' in the file" test "$(status_of 4)" = running
expect_exit 0 "list after the kill" "$AB" list --db "$db"
check "list marked run 4 'interrupted'" test "$(status_of 4)" = interrupted
check "the error names the vanished process" grep -q "interrupted: process $pid on '$(hostname)' ended without finishing the run" <(sqlite3 "$db" 'SELECT error FROM runs WHERE id = 4')
check "list shows it so" grep -Eq '^ *4 .*interrupted' "$T/out"
expect_exit 0 "show last is still run 4's predecessor or run 4" "$AB" show last --db "$db"

# A row of another host is never judged from here.
sqlite3 "$db" "UPDATE runs SET status = 'running', host = 'elsewhere', error = '' WHERE id = 4"
expect_exit 0 "list with another host's running row" "$AB" list --db "$db"
check "another host's row is left alone" test "$(status_of 4)" = running
finish
