#!/usr/bin/env bash
# aa_check.sh - how often does the gate cry wolf on this machine? Runs N A/A
# pairs (the same build, the same scenario, twice), gates the second run of
# each pair against the first, and prints the number of false alarms.
# A benchmark of the gate on real timing, not a test: it never uses the CPU
# backend's fake timer, even when ABBENCH_FAKE_TIMER is set around it.
#
#   scripts/aa_check.sh [-n N] [-s SCENARIO] [-b BACKEND] [-- RUN OPTIONS...]
#
#   -n N         pairs (default 5; the H200 target is 20 passes of 20)
#   -s SCENARIO  default scenarios/smoke.ini
#   -b BACKEND   cpu, cuda or auto (default cpu)
#   RUN OPTIONS  passed to every `abbench run` (e.g. --quick, --only CASE)
#
# e.g. on the H200: scripts/aa_check.sh -n 20 -s scenarios/glm_1024.ini -b cuda
#
# Environment: ABBENCH (the binary, default build/abbench beside this
# script). The runs go to a temporary database, removed at the end.
# Prints a header naming the scenario, backend and device, one line per pair
# (with the failing rows of a false alarm), and last "false alarms: K of N".
# A pair the gate calls INCONCLUSIVE (exit 4: --quick, too few samples) is
# reported as such and is not an alarm.
# Exit 0 when K is 0, 1 when the gate failed an A/A pair, 2 for bad options,
# else the status of the run or gate that could not be done.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
AB=${ABBENCH:-$root/build/abbench}
unset ABBENCH_FAKE_TIMER

usage() {
	echo "usage: scripts/aa_check.sh [-n N] [-s SCENARIO] [-b BACKEND] [-- RUN OPTIONS...]" >&2
	exit 2
}
n=5 scenario=$root/scenarios/smoke.ini backend=cpu
while getopts ':n:s:b:h' opt; do
	case "$opt" in
	n) n=$OPTARG ;;
	s) scenario=$OPTARG ;;
	b) backend=$OPTARG ;;
	h) echo "usage: scripts/aa_check.sh [-n N] [-s SCENARIO] [-b BACKEND] [-- RUN OPTIONS...]" && exit 0 ;;
	:) echo "aa_check: -$OPTARG wants a value" >&2 && usage ;;
	*) echo "aa_check: unknown option '-$OPTARG' (run options go after --)" >&2 && usage ;;
	esac
done
shift $((OPTIND - 1))
run_opts=("$@")
case "$n" in '' | *[!0-9]* | 0) echo "aa_check: -n wants a count of pairs, not '$n'" >&2 && usage ;; esac
if [ ! -f "$scenario" ]; then
	echo "aa_check: no scenario file '$scenario'" >&2
	exit 2
fi

tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
export ABBENCH_DB="$tmp/aa.db"

# Runs one side of a pair; exits the script with its status when it fails.
measure() { # label
	local rc=0
	"$AB" run "$scenario" --backend "$backend" --label "$1" --no-progress ${run_opts[@]+"${run_opts[@]}"} >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$tmp/err" >&2
		echo "aa_check: run '$1' failed (exit $rc)" >&2
		exit "$rc"
	fi
}

alarms=0
for i in $(seq 1 "$n"); do
	measure "aa-$i-a"
	if [ "$i" -eq 1 ]; then
		device=$("$AB" show aa-1-a | sed -n 's/^backend [^ ]*  device //p')
		echo "aa_check: $n A/A pairs of $(basename "$scenario") on backend $backend, device $device"
	fi
	measure "aa-$i-b"
	rc=0
	"$AB" gate "aa-$i-b" --baseline "aa-$i-a" --out "$tmp/gate-$i.md" 2>"$tmp/err" || rc=$?
	case "$rc" in
	0) echo "pair $i: pass" ;;
	4) echo "pair $i: inconclusive (too few samples to pass; not an alarm)" ;;
	1)
		alarms=$((alarms + 1))
		echo "pair $i: FALSE ALARM"
		grep -E '\*\*(REGRESSED|LOST|MISSING)' "$tmp/gate-$i.md" | sed 's/^/    /'
		;;
	*)
		cat "$tmp/err" >&2
		echo "aa_check: gate of pair $i failed (exit $rc)" >&2
		exit "$rc"
		;;
	esac
done
echo "false alarms: $alarms of $n"
[ "$alarms" -eq 0 ]
