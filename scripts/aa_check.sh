#!/usr/bin/env bash
# aa_check.sh - how often does the gate cry wolf? Runs N A/A pairs (the same
# build, the same scenario, twice), gates the second run of each pair
# against the first, and prints the number of false alarms.
#
#   scripts/aa_check.sh [N] [SCENARIO] [RUN OPTIONS...]
#
#   N         pairs (default 5)
#   SCENARIO  default scenarios/smoke.ini
#   RUN OPTIONS  passed to `abbench run`; default --backend cpu
#
# Environment: ABBENCH (the binary, default build/abbench beside this
# script). The runs go to a temporary database, removed at the end.
# The last line is "false alarms: K of N". Exit 0 when K is 0, 1 when the
# gate failed an A/A pair, 2 or 3 when a run or a gate could not be done.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
AB=${ABBENCH:-$root/build/abbench}
n=${1:-5}
scenario=${2:-$root/scenarios/smoke.ini}
if [ $# -gt 2 ]; then shift 2; else set -- --backend cpu; fi
case "$n" in '' | *[!0-9]*)
	echo "usage: scripts/aa_check.sh [N] [SCENARIO] [RUN OPTIONS...]" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
export ABBENCH_DB="$tmp/aa.db"

alarms=0
for i in $(seq 1 "$n"); do
	for side in a b; do
		rc=0
		"$AB" run "$scenario" --label "aa-$i-$side" --no-progress "$@" >/dev/null 2>"$tmp/err" || rc=$?
		if [ "$rc" -ne 0 ]; then
			cat "$tmp/err" >&2
			echo "aa_check: run $i$side failed (exit $rc)" >&2
			exit "$rc"
		fi
	done
	rc=0
	"$AB" gate "aa-$i-b" --baseline "aa-$i-a" --out "$tmp/gate-$i.md" 2>"$tmp/err" || rc=$?
	case "$rc" in
	0) echo "pair $i: pass" ;;
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
