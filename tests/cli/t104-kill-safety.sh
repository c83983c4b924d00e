#!/usr/bin/env bash
# Crash safety: fake-timer CPU runs killed with SIGKILL at random points
# (KILL_TRIALS of them, 40 by default; KILL_SEED picks the points, printed
# so that a failure can be replayed), some of them caught while committing
# their cases or their last transaction, plus a few SIGINT/SIGTERM stops.
# Afterwards: SQLite's integrity check passes, no 'ok' run is incomplete,
# every case a run that did not finish keeps is whole (each case is
# committed in one transaction as it finishes), and the rows the kills left
# 'running' are all marked 'interrupted' by the next command that opens the
# database.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
trials=${KILL_TRIALS:-40}
seed=${KILL_SEED:-$(date +%s)}
RANDOM=$seed
echo "# $trials trials, KILL_SEED=$seed"
db="$T/k.db"
# One run takes about 0.3 s here (2 cases x 3 slots x 2000 samples), most
# of it computing and the rest writing 12000 sample rows in one commit.
cat >"$T/k.ini" <<'EOF'
[scenario]
name = kill
backend = cpu
warmup = 0
min_samples = 2000
max_samples = 2000
min_time_ms = 1000000
max_time_ms = 1000000
target_noise = 0.0000001
l2_flush = false
[arms]
a = eager
b = fused
[case c1]
site = ln_modulate
shape = 1x4x64
[case c2]
site = residual_gate_add
shape = 1x4x64
EOF
start=$(date +%s%N)
"$AB" run "$T/k.ini" --backend cpu --no-progress --db "$db" >/dev/null 2>&1
span_ms=$((($(date +%s%N) - start) / 1000000))
echo "# a whole run takes about $span_ms ms; kills land in 0..$span_ms ms"

kills=0 signals=0
for i in $(seq "$trials"); do
	# SIGINT/SIGTERM need the default disposition back (a script's
	# background job starts with SIGINT ignored); exec keeps the pid.
	(exec env --default-signal=INT "$AB" run "$T/k.ini" --backend cpu --no-progress --db "$db" >/dev/null 2>&1) &
	pid=$!
	ms=$((RANDOM % span_ms))
	sleep "$(printf '0.%03d' "$ms")"
	case $((i % 8)) in
	3) sig=INT ;;
	6) sig=TERM ;;
	*) sig=KILL ;;
	esac
	if kill "-$sig" "$pid" 2>/dev/null; then
		[ "$sig" = KILL ] && kills=$((kills + 1)) || signals=$((signals + 1))
	fi
	wait "$pid" 2>/dev/null
done
echo "# $kills SIGKILLs and $signals SIGINT/SIGTERMs landed in a live run"
check "SIGKILLs landed in live runs" test "$kills" -gt $((trials / 4))

q() { sqlite3 "$db" "$1"; }
check "integrity_check is ok" test "$(q 'PRAGMA integrity_check')" = ok
check "foreign keys hold" test -z "$(q 'PRAGMA foreign_key_check')"
# A complete run: 2 cases, 3 slots each, every slot with its n_samples rows.
cat >"$T/incomplete.sql" <<'EOF'
SELECT count(*) FROM runs r WHERE status = 'ok' AND (
	(SELECT count(*) FROM cases c WHERE c.run_id = r.id) <> 2 OR
	(SELECT count(*) FROM slots s JOIN cases c ON s.case_id = c.id WHERE c.run_id = r.id) <> 6 OR
	EXISTS (SELECT 1 FROM slots s JOIN cases c ON s.case_id = c.id WHERE c.run_id = r.id AND
		s.n_samples <> (SELECT count(*) FROM samples m WHERE m.slot_id = s.id)));
EOF
check "every 'ok' run is complete" test "$(sqlite3 "$db" <"$T/incomplete.sql")" -eq 0
cat >"$T/partial.sql" <<'EOF'
SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.status <> 'ok' AND (
	(SELECT count(*) FROM slots s WHERE s.case_id = c.id) <> 3 OR
	EXISTS (SELECT 1 FROM slots s WHERE s.case_id = c.id AND
		s.n_samples <> (SELECT count(*) FROM samples m WHERE m.slot_id = s.id)));
EOF
check "every case kept by a run that did not finish is whole" test "$(sqlite3 "$db" <"$T/partial.sql")" -eq 0
kept="SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.status <> 'ok'"
echo "# cases kept by unfinished runs: $(q "$kept")"
n_status() { sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = '$1'"; }
by_status="SELECT status, count(*) FROM runs GROUP BY status"
echo "# before any command opens it: $(q "$by_status" | tr '\n|' '; ')"
expect_exit 0 "list after the kills" "$AB" list --db "$db"
check "no row is left 'running'" test "$(n_status running)" -eq 0
check "the SIGKILLed runs are 'interrupted'" test "$(n_status interrupted)" -ge 1
echo "# after: $(q "$by_status" | tr '\n|' '; ')"
expect_exit 0 "a run after all that" "$AB" run "$T/k.ini" --backend cpu --no-progress --db "$db"
expect_exit 0 "show last is that run" "$AB" show last --db "$db"
check "integrity_check still ok" test "$(q 'PRAGMA integrity_check')" = ok
finish
