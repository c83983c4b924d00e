#!/usr/bin/env bash
# nightly.sh - the CI job: measure tonight's build, gate it against a named
# baseline, measure again the cases that look slower, write the report.
#
#   scripts/nightly.sh SCENARIO BASELINE [RUN OPTIONS...]
#
#   SCENARIO     e.g. scenarios/glm_1024.ini
#   BASELINE     a baseline name (abbench baseline set NAME RUN) or a run
#   RUN OPTIONS  passed to every `abbench run` (e.g. --backend cpu --quick)
#
# Environment: ABBENCH (the binary, default build/abbench beside this
# script), ABBENCH_DB (the database, default abbench.db), NIGHTLY_OUT (where
# the verdicts and the report go, default reports/nightly-DATE).
#
# Exit status, the contract CI reads (never the text):
#   0  every case passed (a time regression that the second measurement
#      did not confirm passes)
#   1  a case lost bit-exactness or is missing, or a time regression was
#      confirmed by measuring the case again
#   2  usage or data errors (no such baseline, different scenario or device)
#   3  the run or the gate failed (IO, database, device)
#
# A slowdown seen once can be the machine; seen twice it is the build. The
# gate writes the cases that failed on time alone to a file (one name per
# line); each is run again alone (`abbench run --only CASE`) and gated alone
# (`abbench gate --only CASE`). Other failures are checked by gating the
# first run once more without those cases (`--exclude-cases`).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
AB=${ABBENCH:-$root/build/abbench}

usage() {
	echo "usage: scripts/nightly.sh SCENARIO BASELINE [RUN OPTIONS...]" >&2
	exit 2
}
[ $# -ge 2 ] || usage
scenario=$1 baseline=$2
shift 2
case "$scenario" in -*) usage ;; esac

date=$(date -u +%Y-%m-%d)
label="nightly-$date"
out=${NIGHTLY_OUT:-reports/nightly-$date}
mkdir -p "$out" || exit 3

say() { echo "nightly: $*" >&2; }

# Runs a command; exits the script with its status when that is 2 or more
# (usage, data or failure: no verdict to speak of).
status=0
must() {
	status=0
	"$@" || status=$?
	if [ "$status" -ge 2 ]; then
		say "'$*' exited $status"
		exit "$status"
	fi
}

write_report() {
	local rc=0
	"$AB" report "$label" --out "$out/report" >/dev/null || rc=$?
	[ "$rc" -eq 0 ] || say "warning: the report failed (exit $rc); the verdict stands"
}

say "measuring $scenario as '$label'"
must "$AB" run "$scenario" --label "$label" "$@"

must "$AB" gate "$label" --baseline "$baseline" --out "$out/gate.md" --failing-cases "$out/failing-cases.txt"
verdict=$status
if [ "$verdict" -eq 0 ]; then
	say "pass"
	write_report
	exit 0
fi

if [ ! -s "$out/failing-cases.txt" ]; then
	say "fail: bit-exactness lost or a case missing (see $out/gate.md)"
	write_report
	exit 1
fi

# Anything wrong besides the slow cases? Then no second measurement helps.
must "$AB" gate "$label" --baseline "$baseline" --exclude-cases "$out/failing-cases.txt" --out "$out/gate-others.md"
others=$status

confirmed=0
while IFS= read -r case_name <&3; do
	[ -n "$case_name" ] || continue
	safe=$(printf '%s' "$case_name" | tr -c 'A-Za-z0-9._-' '_')
	say "'$case_name' looks slower: measuring it again"
	must "$AB" run "$scenario" --only "$case_name" --label "$label-recheck" "$@"
	must "$AB" gate "$label-recheck" --baseline "$baseline" --only "$case_name" --out "$out/gate-recheck-$safe.md"
	if [ "$status" -eq 1 ]; then
		say "'$case_name' confirmed slower"
		confirmed=$((confirmed + 1))
	else
		say "'$case_name' not confirmed: the first measurement was noise"
	fi
done 3<"$out/failing-cases.txt"

write_report
if [ "$others" -ne 0 ] || [ "$confirmed" -ne 0 ]; then
	say "fail ($confirmed regression(s) confirmed; other failures: $([ "$others" -ne 0 ] && echo yes || echo no))"
	exit 1
fi
say "pass (every slowdown cleared on a second measurement)"
exit 0
