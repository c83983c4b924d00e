#!/usr/bin/env bash
# Arms from outside can neither hang a run nor outlive a signal (issue 31
# row 4). A per-call time limit (scenario key call_limit_s, 60 s by
# default, 0 none): past it a Python call is stopped where it is (pyrt
# raises Stopped in it) and the run fails naming the case, the arm and
# the line; a call that returns late fails it too; one that does not
# return 2 s after being asked (native code, or Python swallowing the
# stop) is ended with abbench's run process by its supervisor, which marks
# the run and exits 3. And one SIGTERM or SIGINT ends any run within 2 s,
# 'interrupted', exit 143 / 130: a Python call spinning or asleep is
# stopped at once, one that will not stop or a native one is killed after
# 1.5 s. `timeout` without -k ends such a run too. On the CPU backend,
# arm b of tests/data/python/stops.py (misbehaving from its call
# STOPS_FROM on: 4 here, the first sample of slot B, after the two calls
# of the check of every arm before the run and the slot's first call) and
# the fault plugin's spin (from its second call: the run's). The same
# limit and signals hold in that check before the run (run_case_preflight,
# STOPS_FROM=2): a Python call stopped, one that will not stop killed, a
# signal ending it, with nothing stored. Before: each of these ran until
# killed (a SIGTERM did nothing, a second killed abbench and left the row
# 'running'). No check here is a timing verdict: the times are printed;
# the waits are generous (a run still alive 10 s after its signal fails).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3 STOPS_FROM=4
db="$T/l.db"
mod="$PYDATA/stops.py"
lib="$(dirname "$AB")/examples/plugin/libfault_plugin.so"
line() { grep -n "MARK: $1\$" "$mod" | cut -d: -f1; }
status_of() { sqlite3 "$db" "SELECT status FROM runs WHERE label = '$1'"; }
# lscn FILE B_ARM LIMIT: one case, arm b as given, call_limit_s = LIMIT
lscn() {
	printf '[scenario]\nname = limits\nbackend = cpu\nwarmup = 0\nmin_samples = 3\nmax_samples = 3\ncall_limit_s = %s\n' "$3" >"$1"
	printf '[arms]\na = eager\nb = %s\n[case gate]\nsite = residual_gate_add\nshape = 1x64x256\n' "$2" >>"$1"
}
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# limited ARM LABEL LIMIT MESSAGE-REGEX: the run fails, exit 3, in bounded time
limited() {
	lscn "$T/$2.ini" "$1" "$3"
	local t0; t0=$(date +%s%N)
	expect_exit 3 "$2: past call_limit_s = $3 the run fails" timeout "${LIMIT_TIMEOUT:-60}" "$AB" run "$T/$2.ini" --db "$db" --label "$2" --no-progress
	echo "# $2: ended after $(ms_since "$t0") ms"
	check "$2: the error says so, naming case, arm and slot" grep -Eq "^abbench: error: case 'gate': arm '[a-z_]+' \(slot B\): a call ran past the limit of $3 s.*$4" "$T/err"
	check "$2: the run is marked failed" test "$(status_of "$2")" = failed
}
limited "python:$mod:spins" spins 1 " \(call_limit_s\); stopped at $mod:$(line spins): in spins$"
limited "python:$mod:sleeps" sleeps 1 "; stopped at $mod:$(line sleeps): in sleeps$"
limited "python:$mod:slow_once" slow_once 1 "\(call_limit_s\)"
limited "python:$mod:stubborn" stubborn 1 "and did not return within 2 s of being asked to stop .*abbench's run process was killed$"
limited "plugin:$lib:spin" plugin_spin 1 "and did not return within 2 s of being asked to stop"
# before the run (the check of every arm): stopped, or killed, nothing stored
before() {
	lscn "$T/$2.ini" "$1" 1
	expect_exit "$3" "$2 before the run: exit $3" env STOPS_FROM=2 timeout 60 "$AB" run "$T/$2.ini" --db "$T/$2.db" --no-progress
	check "$2 before the run: the error names case, arm and slot" grep -Eq "^abbench: error: $4" "$T/err"
	check "$2 before the run: no database made" test ! -e "$T/$2.db"
}
before "python:$mod:spins" pre_spins 3 "checking every arm before the run \(nothing measured or stored\): case 'gate': arm 'spins' \(slot B\): a call ran past the limit of 1 s \(call_limit_s\); stopped at $mod:$(line spins): in spins$"
before "python:$mod:stubborn" pre_stubborn 3 "case 'gate': arm 'stubborn' \(slot B\): a call ran past the limit of 1 s .*abbench's run process was killed$"
lscn "$T/pre_sig.ini" "python:$mod:stubborn" 0
(exec env --default-signal=INT STOPS_FROM=2 "$AB" run "$T/pre_sig.ini" --db "$T/pre_sig.db" --no-progress >"$T/o.pre_sig" 2>"$T/e.pre_sig") &
pid=$!
sleep 1 # into the check's call that does not return (or before it: the signal ends the run either way)
kill -TERM "$pid"
for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -KILL "$pid" 2>/dev/null && fail "pre_sig: still running 10 s after SIGTERM"
rc=0
wait "$pid" || rc=$?
check "pre_sig: SIGTERM before the run ends it, exit 143 (got $rc)" test "$rc" -eq 143
check "pre_sig: the error names the signal" grep -q "interrupted by SIGTERM" "$T/e.pre_sig"
check "pre_sig: no database made" test ! -e "$T/pre_sig.db"

lscn "$T/nolimit.ini" "python:$mod:slow_once" 0
expect_exit 0 "call_limit_s = 0: no limit, the slow call is measured" "$AB" run "$T/nolimit.ini" --db "$db" --no-progress

# signal SIG ARM LABEL EXIT: one signal ends the run within 2 s (+ marking)
signal() {
	lscn "$T/$3.ini" "$2" 0
	(exec env --default-signal=INT "$AB" run "$T/$3.ini" --db "$db" --label "$3" --no-progress >"$T/o.$3" 2>"$T/e.$3") &
	local pid=$! t0 rc=0
	for _ in $(seq 400); do [ "$(status_of "$3" 2>/dev/null)" = running ] && break; sleep 0.05; done
	sleep 0.5 # into the call that does not return
	t0=$(date +%s%N)
	kill "-$1" "$pid"
	for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	local took; took=$(ms_since "$t0")
	kill -KILL "$pid" 2>/dev/null && fail "$3: still running 10 s after SIG$1"
	wait "$pid" || rc=$?
	echo "# $3: SIG$1 -> exit $rc after $took ms"
	check "$3: SIG$1 ends it, exit $4 (got $rc)" test "$rc" -eq "$4"
	check "$3: the run is marked interrupted" test "$(status_of "$3")" = interrupted
	check "$3: the error names the signal" grep -q "interrupted by SIG$1" "$T/e.$3"
}
signal TERM "python:$mod:spins" sig_spins 143
signal INT "python:$mod:sleeps" sig_sleeps 130
signal TERM "python:$mod:stubborn" sig_stubborn 143
signal INT "plugin:$lib:spin" sig_plugin 130

# timeout without -k: its one SIGTERM is enough
lscn "$T/to.ini" "python:$mod:stubborn" 0
t0=$(date +%s%N)
expect_exit 124 "timeout 6 without -k ends a run that swallows the stop" timeout 6 "$AB" run "$T/to.ini" --db "$db" --label to --no-progress
echo "# timeout: ended after $(ms_since "$t0") ms"
check "that run is marked interrupted" test "$(status_of to)" = interrupted
finish
