#!/usr/bin/env bash
# nightly.sh - the CI job: measure tonight's build, gate it against a named
# baseline, measure again, in one run, the cases that look slower, and end
# with one summary line that counts what happened.
#
#   scripts/nightly.sh [--init] SCENARIO BASELINE [RUN OPTIONS...]
#   scripts/nightly.sh [--init] --step gate RUN BASELINE
#   scripts/nightly.sh --step recheck SCENARIO [RUN OPTIONS...]
#   scripts/nightly.sh --step verdict
#   scripts/nightly.sh --help
#
#   --init       the first night: when there is no baseline named BASELINE
#                yet (or no database), tonight's run becomes it (abbench
#                baseline set) instead of failing the gate; when there is
#                one, a night like any other
#   SCENARIO     e.g. scenarios/glm_1024.ini
#   BASELINE     a baseline name (abbench baseline set NAME RUN) or a run
#   RUN OPTIONS  passed to every `abbench run` (e.g. --backend cpu --quick)
#
# The first form is the whole night on this machine: `abbench run SCENARIO`
# labelled nightly-DATE-HHMMSS-PID (UTC; or $NIGHTLY_LABEL), made unique in
# the database with a .N suffix should a run have it already, then the
# three steps. The steps are the same
# night for a CI that measures and judges on different machines
# (.github/workflows/nightly.yml): `gate` judges RUN (a label, run id or
# set:ID) and lists the cases slower on time alone; `recheck` measures all
# of them again in ONE run (`abbench run --only A,B,... --recheck`, labelled
# RUN-recheck; `--recheck` is what keeps it out of list and history) into
# the database it is given; `verdict` gates each of them
# in that run (`abbench gate --only CASE`), prints the summary line, writes
# the report and exits with the night's status. The steps share NIGHTLY_OUT
# (required with --step) and must see the same runs in ABBENCH_DB.
#
# Environment: ABBENCH (the binary, default build/abbench beside this
# script), ABBENCH_DB (the database, default abbench.db), NIGHTLY_LABEL
# (the night's label, default as above), NIGHTLY_OUT (where the verdicts
# and the report go, default reports/LABEL). Needs
# python3 (it reads the gate's JSON for the counts).
# NIGHTLY_OUT gets gate.md and gate.json (the first gate), failing-cases.txt,
# gate-recheck-CASE.md per case measured again, summary.txt (the summary
# line), gate.log (the gates' own messages), report/ and state (the steps'
# shared facts: run, baseline, recheck label, first verdict).
#
# Exit status, the contract CI reads (never the text):
#   0  every case passed (a time regression that the second measurement
#      did not confirm passes); the first night of --init; a step done
#   1  a case lost bit-exactness or is missing, or a time regression was
#      confirmed by measuring the case again
#   2  usage or data errors (no such baseline, different scenario or device)
#   3  the run or the gate failed (IO, database, device), or the slower
#      cases were never measured again
#   4  inconclusive: nothing failed, but the evidence is too thin to pass
#      (runs made with --quick, slots under the gate's minimum sample count,
#      a second measurement itself inconclusive)
#
# A slowdown seen once can be the machine; seen twice it is the build.
# Lost bit-exactness and missing cases fail at once: samples do not bring
# bytes back.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
AB=${ABBENCH:-$root/build/abbench}

usage() {
	echo "usage: scripts/nightly.sh [--init] SCENARIO BASELINE [RUN OPTIONS...]" >&2
	echo "       scripts/nightly.sh [--init] --step gate RUN BASELINE | --step recheck SCENARIO [RUN OPTIONS...] | --step verdict" >&2
	exit 2
}
say() { echo "nightly: $*" >&2; }

init=0 step=""
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help)
		sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	--init) init=1 && shift ;;
	--step)
		[ $# -ge 2 ] || usage
		step=$2
		shift 2
		;;
	*) break ;;
	esac
done
case "$step" in
"") [ $# -ge 2 ] || usage ;;
gate) [ $# -eq 2 ] || usage ;;
recheck) [ $# -ge 1 ] || usage ;;
verdict) [ $# -eq 0 ] || usage ;;
*) echo "nightly: unknown step '$step' (gate, recheck or verdict)" >&2 && usage ;;
esac
case "${1:-}" in -*) usage ;; esac
if [ -n "$step" ] && [ -z "${NIGHTLY_OUT:-}" ]; then
	echo "nightly: --step needs NIGHTLY_OUT, the folder the steps share" >&2
	exit 2
fi
command -v python3 >/dev/null || { say "needs python3 on PATH (to read the gate's JSON)" && exit 2; }

# must runs a command and exits the script with its status when that is
# 2 or 3 (usage, data or failure: no verdict to speak of); 4 is the gate's
# INCONCLUSIVE, a verdict. gate does the same for `abbench gate`, whose own
# lines go to gate.log (shown when it fails).
status=0
fatal() { [ "$status" -ge 2 ] && [ "$status" -ne 4 ]; }
must() {
	status=0
	"$@" || status=$?
	! fatal || { say "'$*' exited $status" && exit "$status"; }
}
gate() {
	status=0
	"$AB" gate "$@" 2>>"$out/gate.log" || status=$?
	! fatal || { tail -n 3 "$out/gate.log" >&2 && say "'abbench gate $*' exited $status" && exit "$status"; }
}

# The steps' shared facts, one "key value" line each.
state_put() { # KEY VALUE
	if ! { { grep -v "^$1 " "$out/state" 2>/dev/null; printf '%s %s\n' "$1" "$2"; } >"$out/state.new" &&
		mv "$out/state.new" "$out/state"; }; then
		say "cannot write '$out/state'"
		exit 3
	fi
}
state_get() { # KEY
	sed -n "s/^$1 //p" "$out/state" | tail -n 1
}
state_need() {
	[ -f "$out/state" ] || { say "no '$out/state': run --step gate first" && exit 2; }
}

# A label no run of the database has: LABEL, else LABEL.2, LABEL.3 ...
unique_label() { # LABEL
	local label=$1 k=1
	while "$AB" show "$label" >/dev/null 2>&1; do
		k=$((k + 1))
		label=$1.$k
	done
	echo "$label"
}

# The first gate's JSON as: cases, the nonzero verdict counts in words,
# lost or missing, inconclusive or not measured, quick (tab-separated).
tally() {
	python3 - "$out/gate.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
v = [c["verdict"] for c in d["cases"]]
words = [("pass", "passed"), ("faster", "faster"), ("new", "new"), ("regressed", "slower"),
         ("lost_exact", "lost bit-exactness"), ("missing", "missing"), ("inconclusive", "inconclusive"),
         ("not_measured", "not measured")]
text = ", ".join("%d %s" % (v.count(k), w) for k, w in words if v.count(k)) or "no case"
quick = d["run"]["quick"] or d["baseline"]["quick"]
print("%d\t%s\t%d\t%d\t%d" % (len(v), text, v.count("lost_exact") + v.count("missing"),
                              v.count("inconclusive") + v.count("not_measured"), quick))
PY
}

write_report() {
	local rc=0
	"$AB" report "$(state_get run)" --out "$out/report" >/dev/null || rc=$?
	[ "$rc" -eq 0 ] || say "warning: the report failed (exit $rc); the verdict stands"
}

# The summary line: printed, kept in summary.txt; then the exit.
finish() { # STATUS WORD TEXT
	echo "$2: $3" >"$out/summary.txt"
	say "$2: $3"
	exit "$1"
}

# gate RUN BASELINE: the first verdict, the slower cases, the facts.
step_gate() {
	local run=$1 baseline=$2 rc=0 recheck
	recheck=$(unique_label "$(printf '%s' "${run#set:}-recheck" | tr -c 'A-Za-z0-9._-' '_')")
	if ! { : >"$out/gate.log" && : >"$out/failing-cases.txt"; }; then
		say "cannot write into '$out'"
		exit 3
	fi
	rm -f "$out/state" "$out/summary.txt" "$out"/gate-recheck-*.md
	state_put run "$run"
	state_put baseline "$baseline"
	state_put recheck "$recheck"
	if [ "$init" -eq 1 ]; then
		"$AB" baseline show "$baseline" >/dev/null 2>&1 || rc=$?
		if [ "$rc" -eq 2 ]; then
			must "$AB" baseline set "$baseline" "$run"
			state_put first init
			say "no baseline '$baseline' yet: '$run' becomes it"
			return 0
		elif [ "$rc" -ne 0 ]; then
			say "'abbench baseline show $baseline' exited $rc"
			exit "$rc"
		fi
	fi
	gate "$run" --baseline "$baseline" --out "$out/gate.md" --failing-cases "$out/failing-cases.txt"
	state_put first "$status"
	gate "$run" --baseline "$baseline" --json --out "$out/gate.json"
	local counts cases text
	counts=$(tally) || { say "cannot read '$out/gate.json'" && exit 3; }
	IFS=$'\t' read -r cases text _ <<<"$counts"
	say "'$run' against baseline '$baseline': $cases cases: $text"
}

# recheck SCENARIO [RUN OPTIONS]: every slower case again, in one run.
step_recheck() {
	local scenario=$1 recheck n only
	shift
	state_need
	recheck=$(state_get recheck)
	n=$(grep -c . "$out/failing-cases.txt" 2>/dev/null)
	if [ "$(state_get first)" != 1 ] || [ "${n:-0}" -eq 0 ]; then
		say "nothing slower to measure again"
		return 0
	fi
	# Exact names: --only takes globs too, so their [ ] * ? are escaped.
	only=$(sed 's/[][*?\\]/\\&/g' "$out/failing-cases.txt" | paste -sd, -)
	say "measuring the $n slower case(s) again in one run, as '$recheck': $(paste -sd' ' "$out/failing-cases.txt")"
	must "$AB" run "$scenario" --only "$only" --label "$recheck" --recheck "$@"
}

# verdict: each re-measured case gated alone; the summary line; the exit.
step_verdict() {
	local first baseline run recheck counts cases text lost unsure quick
	state_need
	first=$(state_get first) baseline=$(state_get baseline) run=$(state_get run) recheck=$(state_get recheck)
	write_report
	if [ "$first" = init ]; then
		finish 0 "BASELINE SET" "no baseline '$baseline' yet: '$run' is now it; nothing gated"
	fi
	counts=$(tally) || { say "cannot read '$out/gate.json'" && exit 3; }
	IFS=$'\t' read -r cases text lost unsure quick <<<"$counts"
	local head="$cases cases of '$run' against baseline '$baseline': $text"
	local thin=""
	[ "$quick" -eq 0 ] || thin=" (a --quick run or baseline cannot pass)"
	case "$first" in
	0) finish 0 PASS "$head" ;;
	4) finish 4 INCONCLUSIVE "$head$thin" ;;
	esac
	local n
	n=$(grep -c . "$out/failing-cases.txt")
	[ "$n" -gt 0 ] || finish 1 FAIL "$head"
	if ! "$AB" show "$recheck" >/dev/null 2>&1; then
		say "the slower cases were never measured again: no run '$recheck' (run --step recheck)"
		finish 3 ERROR "$head; not measured again"
	fi
	local confirmed=0 unsure2=0 cleared=0 case_name safe
	while IFS= read -r case_name <&3; do
		[ -n "$case_name" ] || continue
		safe=$(printf '%s' "$case_name" | tr -c 'A-Za-z0-9._-' '_')
		gate "$recheck" --baseline "$baseline" --only "$case_name" --out "$out/gate-recheck-$safe.md"
		case "$status" in
		1) confirmed=$((confirmed + 1)) && say "'$case_name' confirmed slower" ;;
		4) unsure2=$((unsure2 + 1)) && say "'$case_name' inconclusive on the second measurement" ;;
		*) cleared=$((cleared + 1)) && say "'$case_name' not confirmed: the first measurement was noise" ;;
		esac
	done 3<"$out/failing-cases.txt"
	local again="measured again in one run ('$recheck'): $confirmed confirmed slower, $cleared cleared, $unsure2 inconclusive"
	if [ "$lost" -ne 0 ] || [ "$confirmed" -ne 0 ]; then
		finish 1 FAIL "$head; $again"
	fi
	if [ "$unsure" -ne 0 ] || [ "$unsure2" -ne 0 ] || [ "$quick" -ne 0 ]; then
		finish 4 INCONCLUSIVE "$head; $again$thin"
	fi
	finish 0 PASS "$head; $again"
}

if [ -n "$step" ]; then
	out=$NIGHTLY_OUT
	mkdir -p "$out" || exit 3
	case "$step" in
	gate) step_gate "$@" ;;
	recheck) step_recheck "$@" ;;
	verdict) step_verdict ;;
	esac
	exit 0
fi

scenario=$1 baseline=$2
shift 2
label=$(unique_label "${NIGHTLY_LABEL:-nightly-$(date -u +%Y-%m-%d-%H%M%S)-$$}")
out=${NIGHTLY_OUT:-reports/$label}
mkdir -p "$out" || exit 3
: >"$out/gate.log"
if [ "$init" -eq 1 ] && ! "$AB" baseline show "$baseline" >/dev/null 2>&1; then
	case " $* " in *" --quick "*) say "warning: the baseline will be a --quick run: every gate against it will be INCONCLUSIVE" ;; esac
fi
say "measuring $scenario as '$label'"
must "$AB" run "$scenario" --label "$label" "$@"
step_gate "$label" "$baseline"
step_recheck "$scenario" "$@"
step_verdict
