#!/usr/bin/env bash
# No string from a database or the command line is ever run by gnuplot
# (docs/RELIABILITY.md, "Names and messages"): gnuplot runs `command` in a
# double-quoted string, so every string in a chart's script is a
# single-quoted literal (print/escape.h: escape_gnuplot), and strings in
# data files are data. A shard is measured with the fake timer, every field
# that reaches a chart (case, device, scenario, sweep, arm names, variant,
# kernel name and family, a baseline) gets a backtick command, a system()
# call, a double and a single quote and a backslash, the shard is merged
# into another database (as scripts/slurm/merge_gate.sbatch does), and
# report, history --out and publish draw their charts from it: no planted
# command may run, and the charts must be drawn. A newline (which would end
# a gnuplot command and start the next) is planted in the merged database
# directly, since the store may refuse it on merge: the commands may refuse
# that row (exit 2) but may not run it. Last the issue's own reproduction:
# `baseline set 'b`touch PWN`'`, then `history --out`.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
if ! command -v gnuplot >/dev/null; then
	echo "SKIP: no gnuplot on PATH: nothing would run the scripts (make deps installs gnuplot-nox)"
	exit 0
fi
# pay TAG: a hostile value as an SQL string literal, short enough for the
# narrowest field it goes into (a slot's variant holds 31 bytes, and the
# store refuses a longer value on merge): a backtick command, a system()
# call, a double and a single quote and a backslash. The commands write
# files named pTAG and qTAG into the directory they run in; the test works
# in the empty directory $W, so any command that ran leaves a file there.
pay() { printf "'%s\`id>p%s\`\" system(\"id>q%s\") ''\\'" "$1" "$1" "$1"; }
W=$T/w
mkdir "$W" && cd "$W" || exit 1
scn=$OLDPWD/tests/scenarios/sweep_small.ini
smoke=$OLDPWD/scenarios/smoke.ini
expect_exit 0 "a shard with sweeps" "$AB" run "$scn" --backend cpu --quick --shard 1/1 \
	--run-set inj --no-progress --db "$T/shard.db"
sqlite3 "$T/shard.db" "
UPDATE runs SET scenario_name = $(pay s), arm_a = $(pay a), arm_b = $(pay b);
UPDATE devices SET name = $(pay d);
UPDATE cases SET name = $(pay c) || ordinal;
UPDATE cases SET sweep = $(pay w) WHERE sweep != '';
UPDATE slots SET variant = $(pay v);
UPDATE cases SET arm_a = $(pay v), arm_b = $(pay v);
UPDATE kernel_times SET name = $(pay k) || rowid, family = $(pay f);
INSERT INTO baselines (name, run_id, set_at, run_set) SELECT $(pay bl), id, started_at, '' FROM runs;" ||
	fail "the hostile rows were planted"
check "a payload holds a backtick command" grep -q 'id>pc' <(sqlite3 "$T/shard.db" "SELECT name FROM cases LIMIT 1")
expect_exit 0 "merge the shard" "$AB" merge "$T/merged.db" "$T/shard.db"

# draws DIR DESCRIPTION CMD...: exit 0, no chart failed, PNGs under DIR.
draws() {
	local dir=$1 desc=$2; shift 2
	expect_exit 0 "$desc" "$@"
	check "  its charts were drawn, none failed" bash -c "! grep -q 'failed\|skipped' '$T/err' &&
		test \$(find '$dir' -name '*.png' | wc -l) -gt 0"
}
draws "$T/out-report" "report of the merged run" "$AB" report --db "$T/merged.db" --out "$T/out-report"
draws "$T/out-history" "history --out" "$AB" history --db "$T/merged.db" --out "$T/out-history"
draws "$T/out-publish" "publish" "$AB" publish "$T/out-publish" --db "$T/merged.db"
check "no planted command ran ($(ls -A "$W" | wc -l) files in $W)" test -z "$(ls -A "$W")"
check "the scripts hold the names, single-quoted" grep -rqF "'c\`id>pc\`" "$T/out-report"

# a newline in a name, planted after the merge
sqlite3 "$T/merged.db" "UPDATE cases SET name = 'nl' || char(10) || '!id>pnl1' || char(10) ||
	'system \"id>pnl2\"' || char(10) || ordinal" || fail "the newline was planted"
for cmd in report history publish; do
	got=0
	case $cmd in
	report) "$AB" report --db "$T/merged.db" --out "$T/nl-report" >"$T/out" 2>"$T/err" || got=$? ;;
	history) "$AB" history --db "$T/merged.db" --out "$T/nl-history" >"$T/out" 2>"$T/err" || got=$? ;;
	publish) "$AB" publish "$T/nl-publish" --db "$T/merged.db" >"$T/out" 2>"$T/err" || got=$? ;;
	esac
	check "$cmd with a newline in a case name: printed or refused (exit $got)" test "$got" -eq 0 -o "$got" -eq 2
done
check "no line of a planted name ran" test -z "$(ls -A "$W")"

# the issue's reproduction, from the command line
"$AB" run "$smoke" --backend cpu --quick --no-progress --db "$T/b.db" >/dev/null 2>&1
got=0
"$AB" baseline set "b\`id>pbaseline\`" 1 --db "$T/b.db" >/dev/null 2>&1 || got=$?
if [ "$got" -eq 0 ]; then
	draws "$T/out-b" "history --out with a baseline named with a backtick" "$AB" history --db "$T/b.db" --out "$T/out-b"
else
	ok "baseline set refused the name (exit $got)"
fi
check "the baseline's backtick did not run" test -z "$(ls -A "$W")"
finish
