#!/usr/bin/env bash
# Issue 31 on the GPU (rows 2 and 4): arms from outside can neither hang a
# CUDA run, outlive a signal, nor end abbench silently. On the GPU machine
# with build/abbench made elsewhere (this script builds nothing). Usage:
#   scripts/gpu/reliab31.sh [STAGE ...]     (default: all)
# Results under $OUT (or ./gpu-out): reliab31.db, reliab31-logs/; a table
# last. About 1 minute. BACKEND=cpu runs the same stages on the CPU
# backend (numpy instead of torch: the machinery's own check, no GPU).
# Each arm misbehaves in the run's first sample of slot B, past the check
# of every arm before the run (FAULT_SPIN_FROM and STOPS_FROM count the
# calls before it), so that the run's row is there to be marked; stage
# before misbehaves in that check instead.
#   limit_native   the fault plugin's spin arm (a kernel that never ends)
#                  with call_limit_s = 2: exit 3 within 15 s, 'failed', the
#                  case and arm named; the next run gets the GPU and passes
#   limit_python   a Python arm spinning in Python, call_limit_s = 2: exit
#                  3, 'failed', "stopped at FILE:LINE"
#   signal_native  the spin kernel and one SIGTERM: exit 143 within 5 s,
#                  'interrupted'; the next run passes
#   signal_python  a Python arm in time.sleep(1000) and one SIGINT: exit 130
#                  within 2 s, 'interrupted'
#   exits          os._exit(0) in a Python call (SystemExit at its line) and
#                  _exit(0) through ctypes (the supervisor answers): exit 3,
#                  'failed', never 0
#   before         the spin kernel in the check of every arm before the run,
#                  call_limit_s = 2: exit 3, the case and arm named, no row
#                  stored; the next run gets the GPU and passes
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
RESULTS=${OUT:-$PWD/gpu-out}
LOGS="$RESULTS/reliab31-logs"
mkdir -p "$LOGS"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/abbench-reliab31.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
AB=$PWD/build/abbench
LIB=$PWD/build/examples/plugin/libfault_plugin.so
BACKEND=${BACKEND:-cuda}
DB="$RESULTS/reliab31.db"
rm -f "$DB" "$DB"-wal "$DB"-shm
export ABBENCH_LOCK_DIR="$TMP/locks"
if [ -z "${ABBENCH_PYTHON:-}" ]; then
	for p in /opt/torch/.venv/bin/python3 /usr/bin/python3; do [ -x "$p" ] && export ABBENCH_PYTHON=$p && break; done
fi
[ "$BACKEND" = cpu ] && export ABBENCH_FAKE_TIMER=1
stages=${*:-limit_native limit_python signal_native signal_python exits before}
# the spin's calls before the run's first sample of slot B: the check
# before the run calls an arm once on the cpu backend (a sample), twice on
# cuda (the slot's first call, then a sample), and the slot's first call is
# one more on cuda; a Python arm is called in both places on both. Half
# of it is the check's sample (stage before).
if [ "$BACKEND" = cuda ]; then export FAULT_SPIN_FROM=4; else export FAULT_SPIN_FROM=2; fi
export STOPS_FROM=4
summary="$LOGS/summary.txt"
: >"$summary"
row() { printf '%-58s %s\n' "$1" "$2" | tee -a "$summary"; }
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
# status_of LABEL: the status of the newest run labelled LABEL, as `abbench
# list --format json` gives it (docs/JSON.md; abjson.py runs); '' when none.
status_of() {
	"$AB" list --db "$DB" --rechecks --format json 2>/dev/null |
		"${READ_PYTHON:-python3}" scripts/gpu/abjson.py runs - 2>/dev/null | awk -F'\t' -v l="$1" '$3 == l { print $2; exit }'
}
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# Arm b of a small residual_gate_add case: tests/data/python/stops.py, misbehaving from call STOPS_FROM.
STOPS=$PWD/tests/data/python/stops.py
scn() { # FILE ARM_B LIMIT
	printf '[scenario]\nname = reliab31\nbackend = %s\nwarmup = 0\nmin_samples = 20\nmax_samples = 20\ncall_limit_s = %s\n' \
		"$BACKEND" "$3" >"$1"
	printf '[arms]\na = eager\nb = %s\n[case gate]\nsite = residual_gate_add\nshape = 1x1024x3072\n' "$2" >>"$1"
}
scn "$TMP/good.ini" fused 60
good_after() { # LABEL: the GPU is usable at once by the next run
	local rc=0
	timeout 120 "$AB" run "$TMP/good.ini" --db "$DB" --no-progress --label "$1" >"$LOGS/$1.log" 2>&1 || rc=$?
	row "  the next run gets the device and passes" "$([ "$rc" -eq 0 ] && echo PASS || echo "FAIL (exit $rc)")"
}
# limited NAME ARM LIMIT WANT_EXIT MESSAGE-ERE
limited() {
	local rc=0 t0 ms
	scn "$TMP/$1.ini" "$2" "$3"
	t0=$(date +%s%N)
	timeout 120 "$AB" run "$TMP/$1.ini" --db "$DB" --label "$1" --no-progress >"$LOGS/$1.out" 2>"$LOGS/$1.err" || rc=$?
	ms=$(ms_since "$t0")
	local st; st=$(status_of "$1")
	local ok=FAIL
	[ "$rc" -eq "$4" ] && [ "$st" = failed ] && grep -Eq "$5" "$LOGS/$1.err" && ok=PASS
	row "$1: exit $rc ($4), '$st', ${ms} ms" "$ok"
}
# signalled NAME ARM SIG WANT_EXIT BOUND_MS
signalled() {
	local rc=0 t0 ms pid
	scn "$TMP/$1.ini" "$2" 0
	(exec env --default-signal=INT "$AB" run "$TMP/$1.ini" --db "$DB" --label "$1" --no-progress \
		>"$LOGS/$1.out" 2>"$LOGS/$1.err") &
	pid=$!
	for _ in $(seq 600); do [ "$(status_of "$1")" = running ] && break; sleep 0.1; done
	sleep 2 # into the call that does not return
	t0=$(date +%s%N)
	kill "-$3" "$pid"
	for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	ms=$(ms_since "$t0")
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	local st; st=$(status_of "$1")
	local ok=FAIL
	[ "$rc" -eq "$4" ] && [ "$st" = interrupted ] && [ "$ms" -le "$5" ] && ok=PASS
	row "$1: SIG$3 -> exit $rc ($4), '$st', ${ms} ms (<= $5)" "$ok"
}

echo "=== device ($BACKEND) ==="
[ "$BACKEND" = cuda ] && nvidia-smi --query-gpu=name,uuid,memory.used --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }
echo "python: ${ABBENCH_PYTHON:-none}"

if want limit_native; then
	limited limit_native "plugin:$LIB:spin" 2 3 "case 'gate': arm 'spin' \(slot B\): a call ran past the limit of 2 s"
	good_after after_limit_native
fi
want limit_python && limited limit_python "python:$STOPS:spins" 2 3 "a call ran past the limit of 2 s \(call_limit_s\); stopped at .*stops.py:[0-9]+: in spins"
if want signal_native; then
	signalled signal_native "plugin:$LIB:spin" TERM 143 5000
	good_after after_signal_native
fi
want signal_python && signalled signal_python "python:$STOPS:sleeps" INT 130 2000
if want exits; then
	limited exits_os "python:$STOPS:os_exit" 60 3 "SystemExit: os._exit\(0\) in an arm"
	limited exits_libc "python:$STOPS:libc_exit" 60 3 "abbench's run process exited with status 0 during a call of the arm"
fi
if want before; then
	rc=0
	scn "$TMP/before.ini" "plugin:$LIB:spin" 2
	t0=$(date +%s%N)
	FAULT_SPIN_FROM=$((FAULT_SPIN_FROM / 2)) timeout 120 "$AB" run "$TMP/before.ini" --db "$DB" --label before --no-progress \
		>"$LOGS/before.out" 2>"$LOGS/before.err" || rc=$?
	ms=$(ms_since "$t0")
	st=$(status_of before)
	ok=FAIL
	[ "$rc" -eq 3 ] && [ -z "$st" ] && grep -Eq "case 'gate': arm 'spin' \(slot B\): a call ran past the limit of 2 s" \
		"$LOGS/before.err" && ok=PASS
	row "before: spin in the check before the run: exit $rc (3), row '${st:-none}' (none), ${ms} ms" "$ok"
	good_after after_before
fi
echo
echo "=== reliab31 ($BACKEND) ==="
cat "$summary"
! grep -q 'FAIL' "$summary"
