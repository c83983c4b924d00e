#!/usr/bin/env bash
# The reliability checks that need the GPU (issue 9), on the GPU machine
# with build/abbench made elsewhere (this script builds nothing). Usage:
# scripts/gpu/reliab.sh [STAGE ...]   (default: all). Results under $OUT
# (or ./gpu-out): reliab.db and reliab-logs.tar.gz; a table last (the
# database read through `abbench show|list --format json`). About 3
# minutes (scripts/gpu/session.sh reliab:400).
#   lock       two concurrent runs on GPU 0: the second waits, naming the
#              first's pid; --no-wait fails at once with exit 3; the runs do
#              not overlap in time
#   signal     SIGINT and SIGTERM in the middle of a CUDA run: exit 130 / 143,
#              run 'interrupted', the GPU usable at once by the next run
#   kill       SIGKILL in the middle of a CUDA run: the next `abbench list`
#              marks it 'interrupted'; the lock is free (the next run does
#              not wait); the file passes SQLite's integrity check (merge)
#   admission  a 6.5e10-element case on cuda: exit 2 before anything is
#              written; glm_1024 (the largest shipped shapes) is admitted
#   fault      a kernel that reads an illegal address (the plugins' fault arm,
#              examples/plugin/fault_plugin.c, as arm b of rga_plugin.ini; or
#              $FAULT_SCENARIO): exit 3 within 120 s, the run 'failed' with
#              the CUDA error's text, no results; the next run gets the GPU
#              and passes; the same under compute-sanitizer memcheck, which
#              must report the access
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" reliab "$@"
[ -n "$stages" ] || stages="lock signal kill admission fault"
DB="$RESULTS/reliab.db"
rm -f "$DB" "$DB"-wal "$DB"-shm
export ABBENCH_LOCK_DIR="$TMP/locks"
summary="$LOGS/summary.txt"
: >"$summary"
row() { printf '%-46s %s\n' "$1" "$2" | tee -a "$summary"; }
verdict() { if "$@"; then echo PASS; else echo FAIL; fi; }
# What the database holds, through abbench's JSON (abjson.py), never SQL:
# field RUN PATH: a field of `abbench show RUN` (a run id or label)
field() { "$AB" show "$1" --db "$DB" --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py get - "$2" 2>/dev/null; }
# n_runs: how many runs the database holds; last_id: the newest one's id
n_runs() { "$AB" list --rechecks --db "$DB" --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py count - runs 2>/dev/null || echo 0; }
last_id() { "$AB" list --rechecks --db "$DB" --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py runs - | head -1 | cut -f1; }

step device
nvidia-smi --query-gpu=name,uuid,memory.total,memory.used --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }

# A CUDA run of smoke that lasts about a minute: many samples per slot.
cat >"$TMP/long.ini" <<'EOF'
[scenario]
name = long
backend = cuda
warmup = 10
min_samples = 200000
max_samples = 200000
min_time_ms = 60000
max_time_ms = 60000
target_noise = 0.0000001
[arms]
a = eager
b = fused
[case c1]
site = ln_modulate
shape = 1x1024x3072
EOF
# long_bg LOG: a long run in the background with SIGINT at its default
# (a script's background job starts with it ignored); $! is abbench's pid.
long_bg() { (exec env --default-signal=INT "$AB" run "$TMP/long.ini" --no-progress --db "$DB" >"$1" 2>&1) & }
until_status() { # ID STATUS: wait up to 60 s for the row
	for _ in $(seq 600); do [ "$(field "$1" run.status)" = "$2" ] && return 0; sleep 0.1; done
	return 1
}

if want lock; then
	step lock
	# 3 slots of 4 s: long enough for the two other runs to meet its lock
	sed 's/^min_time_ms = .*/min_time_ms = 4000/; s/^max_time_ms = .*/max_time_ms = 4000/; s/^name = long/name = lock/' \
		"$TMP/long.ini" >"$TMP/lock.ini"
	"$AB" run "$TMP/lock.ini" --no-progress --db "$DB" --label lock1 >"$LOGS/lock1.log" 2>&1 &
	p1=$!
	for _ in $(seq 300); do grep -q '^pid ' "$ABBENCH_LOCK_DIR"/*.lock 2>/dev/null && break; sleep 0.1; done
	"$AB" run scenarios/smoke.ini --backend cuda --no-progress --db "$DB" --label nowait --no-wait >"$LOGS/nowait.log" 2>&1
	rc=$?
	row "lock: --no-wait exits 3" "$(verdict test "$rc" -eq 3) (exit $rc)"
	row "lock: --no-wait names the holder" "$(verdict grep -q "in use by pid $p1 " "$LOGS/nowait.log")"
	"$AB" run scenarios/smoke.ini --backend cuda --no-progress --db "$DB" --label lock2 >"$LOGS/lock2.log" 2>&1
	rc2=$?
	wait "$p1"
	rc1=$?
	row "lock: both runs ok" "$(verdict test "$rc1$rc2" = 00) (exits $rc1, $rc2)"
	row "lock: the second waited for the first" "$(verdict grep -q "waiting for device 'GPU-.*', in use by pid $p1 " "$LOGS/lock2.log")"
	s2=$(field lock2 run.started_at)
	f1=$(field lock1 run.finished_at)
	row "lock: no overlap ($f1 <= $s2)" "$(verdict test ! "$s2" \< "$f1")"
fi

if want signal; then
	step signal
	for sig in INT TERM; do
		long_bg "$LOGS/signal-$sig.log"
		pid=$!
		sleep 1
		id=$(last_id)
		until_status "$id" running
		sleep 3
		t0=$(date +%s%N)
		kill "-$sig" "$pid"
		rc=0; wait "$pid" || rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		want_rc=$([ "$sig" = INT ] && echo 130 || echo 143)
		row "signal $sig: exit $want_rc" "$(verdict test "$rc" -eq "$want_rc") (exit $rc after $ms ms)"
		row "signal $sig: run $id 'interrupted'" "$(verdict test "$(field "$id" run.status)" = interrupted)"
	done
	"$AB" run scenarios/smoke.ini --backend cuda --no-progress --no-wait --quick --db "$DB" >"$LOGS/after-signal.log" 2>&1
	row "signal: the GPU is free and usable after" "$(verdict test $? -eq 0)"
fi

if want kill; then
	step kill
	long_bg "$LOGS/kill.log"
	pid=$!
	sleep 1
	id=$(last_id)
	until_status "$id" running
	sleep 3
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	# The first command to open the file after the kill marks the run (its
	# process is gone): list says so, and show reads it back.
	"$AB" list --db "$DB" --format json 2>"$LOGS/kill-list.err" | "$READ" scripts/gpu/abjson.py runs - >"$LOGS/kill-list.txt"
	row "kill: list shows run $id 'interrupted'" "$(verdict grep -q "^$id	interrupted	" "$LOGS/kill-list.txt")"
	row "kill: show reads run $id 'interrupted'" "$(verdict test "$(field "$id" run.status)" = interrupted)"
	"$AB" run scenarios/smoke.ini --backend cuda --no-progress --no-wait --quick --db "$DB" >"$LOGS/after-kill.log" 2>&1
	row "kill: the lock died with the process" "$(verdict test $? -eq 0)"
	# merge refuses an input that fails SQLite's integrity check (exit 2)
	"$AB" merge "$TMP/integrity.db" "$DB" >"$LOGS/kill-merge.log" 2>&1
	row "kill: the file passes merge's integrity check" "$(verdict test $? -eq 0)"
fi

if want admission; then
	step admission
	printf '[scenario]\nname = huge\nbackend = cuda\n[arms]\na = eager\nb = fused\n[case huge]\nsite = ln_modulate\nshape = 1x1000000x65536\n' >"$TMP/huge.ini"
	n=$(n_runs)
	"$AB" run "$TMP/huge.ini" --db "$DB" >"$LOGS/huge.log" 2>&1
	rc=$?
	row "admission: 6.5e10 elements refused, exit 2" "$(verdict test "$rc" -eq 2) (exit $rc)"
	row "admission: no row written" "$(verdict test "$(n_runs)" -eq "$n")"
	sed 's/^/    /' "$LOGS/huge.log" | tee -a "$summary"
	"$AB" run scenarios/glm_1024.ini --backend cuda --quick --no-progress --db "$DB" >"$LOGS/glm.log" 2>&1
	row "admission: glm_1024 admitted and ok" "$(verdict test $? -eq 0)"
fi

if want fault; then
	step fault
	# The plugins' faulting arm (examples/plugin/fault_plugin.c): a kernel
	# that reads an illegal address, in place of arm b.
	lib=$PWD/build/examples/plugin/libfault_plugin.so
	fs=${FAULT_SCENARIO:-$TMP/fault.ini}
	if [ -z "${FAULT_SCENARIO:-}" ]; then
		sed -e "s|^b = .*|b = plugin:$lib:illegal_address|" -e 's|^max_time_ms = .*|max_time_ms = 500|' \
			examples/plugin/rga_plugin.ini >"$fs"
	fi
	if [ ! -e "$lib" ] && [ -z "${FAULT_SCENARIO:-}" ]; then
		row "fault" "SKIP (no $lib: build the plugins first)"
	else
		t0=$(date +%s)
		timeout 120 "$AB" run "$fs" --backend cuda --no-progress --db "$DB" --label fault >"$LOGS/fault.log" 2>&1
		rc=$?
		row "fault: exit 3, no hang" "$(verdict test "$rc" -eq 3) (exit $rc after $(($(date +%s) - t0)) s)"
		err="$(field fault run.status): $(field fault run.error)"
		row "fault: run 'failed' with the CUDA error" "$(verdict grep -qi '^failed: .*illegal memory access' <<<"$err")"
		echo "    $err" | tee -a "$summary"
		row "fault: nothing of it 'ok', no results" "$(verdict test "$("$AB" show fault --db "$DB" --format json 2>/dev/null |
			"$READ" scripts/gpu/abjson.py count - cases)" = 0)"
		"$AB" run scenarios/smoke.ini --backend cuda --quick --no-progress --no-wait --db "$DB" >"$LOGS/after-fault.log" 2>&1
		row "fault: the next run gets the GPU and passes" "$(verdict test $? -eq 0)"
		cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
		if [ -x "$cs" ]; then
			timeout 300 "$cs" --tool memcheck "$AB" run "$fs" --backend cuda --no-progress --no-cupti --db "$DB" \
				--label fault-memcheck >"$LOGS/fault-memcheck.log" 2>&1
			rc=$?
			row "fault under memcheck: exit 3, no hang" "$(verdict test "$rc" -eq 3) (exit $rc)"
			row "fault under memcheck: the access is reported" "$(verdict grep -q 'Invalid __global__ read\|ERROR SUMMARY: [1-9]' "$LOGS/fault-memcheck.log")"
			row "fault under memcheck: run 'failed'" "$(verdict test "$(field fault-memcheck run.status)" = failed)"
		else
			row "fault under memcheck" "SKIP (no compute-sanitizer)"
		fi
	fi
fi

tar -czf "$RESULTS/reliab-logs.tar.gz" -C "$TMP" logs
echo
echo "=== reliab summary ==="
cat "$summary"
! grep -q ' FAIL' "$summary"
