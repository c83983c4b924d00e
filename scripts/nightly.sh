#!/usr/bin/env bash
# nightly.sh - the CI job: measure tonight's build, gate it against a named
# baseline, measure again the cases that look slower, write the report.
#
#   scripts/nightly.sh [--init] SCENARIO BASELINE [RUN OPTIONS...]
#
#   --init       the first night: when there is no baseline named BASELINE
#                yet (or no database), tonight's run becomes it (abbench
#                baseline set) instead of failing the gate; when there is
#                one, a night like any other
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
#   4  inconclusive: nothing failed, but the evidence is too thin to pass
#      (runs made with --quick, slots under the gate's minimum sample count)
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
	echo "usage: scripts/nightly.sh [--init] SCENARIO BASELINE [RUN OPTIONS...]" >&2
	exit 2
}
init=0
if [ "${1:-}" = --init ]; then
	init=1
	shift
fi
[ $# -ge 2 ] || usage
scenario=$1 baseline=$2
shift 2
case "$scenario" in -*) usage ;; esac

date=$(date -u +%Y-%m-%d)
label="nightly-$date"
out=${NIGHTLY_OUT:-reports/nightly-$date}
mkdir -p "$out" || exit 3

say() { echo "nightly: $*" >&2; }

# Runs a command; exits the script with its status when that is 2 or 3
# (usage, data or failure: no verdict to speak of). 4 is the gate's
# INCONCLUSIVE, a verdict.
status=0
must() {
	status=0
	"$@" || status=$?
	if [ "$status" -ge 2 ] && [ "$status" -ne 4 ]; then
		say "'$*' exited $status"
		exit "$status"
	fi
}

write_report() {
	local rc=0
	"$AB" report "$label" --out "$out/report" >/dev/null || rc=$?
	[ "$rc" -eq 0 ] || say "warning: the report failed (exit $rc); the verdict stands"
}

# The first night: no baseline yet, so tonight's run becomes it.
if [ "$init" -eq 1 ]; then
	rc=0
	"$AB" baseline show "$baseline" >/dev/null 2>&1 || rc=$?
	if [ "$rc" -eq 2 ]; then
		say "no baseline '$baseline' yet: measuring $scenario as '$label' to set it"
		must "$AB" run "$scenario" --label "$label" "$@"
		must "$AB" baseline set "$baseline" "$label"
		case " $* " in *" --quick "*) say "warning: the baseline is a --quick run: every gate against it will be INCONCLUSIVE" ;; esac
		write_report
		say "baseline '$baseline' set to tonight's run: nothing to gate against yet"
		exit 0
	elif [ "$rc" -ne 0 ]; then
		say "'abbench baseline show $baseline' exited $rc"
		exit "$rc"
	fi
fi

say "measuring $scenario as '$label'"
must "$AB" run "$scenario" --label "$label" "$@"

must "$AB" gate "$label" --baseline "$baseline" --out "$out/gate.md" --failing-cases "$out/failing-cases.txt"
verdict=$status
if [ "$verdict" -eq 0 ]; then
	say "pass"
	write_report
	exit 0
fi
if [ "$verdict" -eq 4 ]; then
	say "inconclusive: too little evidence to pass (see $out/gate.md)"
	write_report
	exit 4
fi

if [ ! -s "$out/failing-cases.txt" ]; then
	say "fail: bit-exactness lost or a case missing (see $out/gate.md)"
	write_report
	exit 1
fi

# Anything wrong besides the slow cases? Then no second measurement helps.
must "$AB" gate "$label" --baseline "$baseline" --exclude-cases "$out/failing-cases.txt" --out "$out/gate-others.md"
others=$status

confirmed=0 unsure=0
while IFS= read -r case_name <&3; do
	[ -n "$case_name" ] || continue
	safe=$(printf '%s' "$case_name" | tr -c 'A-Za-z0-9._-' '_')
	say "'$case_name' looks slower: measuring it again"
	must "$AB" run "$scenario" --only "$case_name" --label "$label-recheck" "$@"
	must "$AB" gate "$label-recheck" --baseline "$baseline" --only "$case_name" --out "$out/gate-recheck-$safe.md"
	if [ "$status" -eq 1 ]; then
		say "'$case_name' confirmed slower"
		confirmed=$((confirmed + 1))
	elif [ "$status" -eq 4 ]; then
		say "'$case_name' inconclusive on the second measurement (too few samples)"
		unsure=$((unsure + 1))
	else
		say "'$case_name' not confirmed: the first measurement was noise"
	fi
done 3<"$out/failing-cases.txt"

write_report
if [ "$others" -eq 1 ] || [ "$confirmed" -ne 0 ]; then
	say "fail ($confirmed regression(s) confirmed; other failures: $([ "$others" -eq 1 ] && echo yes || echo no))"
	exit 1
fi
if [ "$others" -eq 4 ] || [ "$unsure" -ne 0 ]; then
	say "inconclusive (no regression confirmed, but too little evidence to pass)"
	exit 4
fi
say "pass (every slowdown cleared on a second measurement)"
exit 0
