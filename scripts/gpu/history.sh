#!/usr/bin/env bash
# The history stage of a GPU session (issue 13), on the GPU machine, with
# build/abbench made elsewhere (this script builds nothing):
#   1. A/A compare: scenarios/smoke.ini twice on cuda (20 samples a slot),
#      compared with the gate's floors (the H200 profile: 5%, 500 ns) and
#      without them (--no-floors): how many cases each calls slower or
#      faster. The A/A pair should be called neither with the floors; the
#      bare test may call some (the issue's "slower +1.56%, p < 1e-6");
#   2. the --quick gate: a planted regression (b = eager) measured with
#      --quick, gated against a full baseline and against a --quick one;
#      an A/A pair of --quick runs: exit statuses (1 where p < 0.01 was
#      reached, else 4: INCONCLUSIVE; never 0);
#   3. the report of the full run: its first line (the verdict), its size,
#      and whether it stays under 65,536 characters;
#   4. history and publish over the runs of this session (charts drawn
#      with the machine's gnuplot when there is one).
# A table last: stage, what was measured, what came out.
# Usage: scripts/gpu/history.sh        Results: $OUT (or ./gpu-out) gets
# history.db, history-report/, history-site/ and history-logs.tar.gz.
# Exit status: 0 when every stage ran and the A/A compare with floors
# called nothing and no --quick gate passed; 1 otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" history
export ABBENCH_DB="$RESULTS/history.db"
rm -f "$ABBENCH_DB"
rows=()
row() { rows+=("$(printf '%-22s %-44s %s' "$1" "$2" "$3")"); }
# verdicts COMPARE.json VERDICT...: how many cases compare called so
verdicts() { "$READ" scripts/gpu/abjson.py verdicts "$@"; }

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 1; }

sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$TMP/base.ini"
sed 's/^b = fused/b = eager/' "$TMP/base.ini" >"$TMP/reg.ini"
run() { # LABEL SCENARIO [OPTIONS]
	local label=$1 scn=$2
	shift 2
	"$AB" run "$scn" --backend cuda --label "$label" --no-progress "$@" >"$LOGS/run_$label.log" 2>&1 ||
		{ echo "history.sh: run $label failed"; tail -5 "$LOGS/run_$label.log"; status=1; }
}

step "A/A compare"
run aa1 "$TMP/base.ini"
run aa2 "$TMP/base.ini"
"$AB" compare aa1 aa2 >"$LOGS/compare_floors.md" 2>&1 || status=1
"$AB" compare aa1 aa2 --format json --out "$JSON/compare_floors.json" || status=1
"$AB" compare aa1 aa2 --no-floors --format json --out "$JSON/compare_bare.json" || status=1
cat "$LOGS/compare_floors.md"
called_floors=$(verdicts "$JSON/compare_floors.json" slower faster)
called_bare=$(verdicts "$JSON/compare_bare.json" slower faster)
held=$(verdicts "$JSON/compare_floors.json" within_floors)
row "A/A compare" "cases called slower/faster, bare test" "$called_bare"
row "A/A compare" "the same with the gate's floors (held: $held)" "$called_floors"
[ "$called_floors" -eq 0 ] || status=1

step "--quick gate"
run reg_quick "$TMP/reg.ini" --quick
run base_quick "$TMP/base.ini" --quick
for pair in "reg_quick aa1" "reg_quick base_quick" "base_quick base_quick"; do
	set -- $pair
	rc=0
	"$AB" gate "$1" --baseline "$2" --out "$LOGS/gate_$1_vs_$2.md" 2>"$LOGS/gate_$1_vs_$2.err" || rc=$?
	head -1 "$LOGS/gate_$1_vs_$2.md"
	row "--quick gate" "$1 against $2" "exit $rc ($(sed -n 's/^gate: \([A-Za-z]*\).*/\1/p' "$LOGS/gate_$1_vs_$2.err"))"
	[ "$rc" -ne 0 ] || status=1
done

step report
if "$AB" report aa2 --out "$RESULTS/history-report" >"$LOGS/report.log" 2>&1; then
	md="$RESULTS/history-report/report.md"
	head -1 "$md"
	chars=$(wc -m <"$md")
	row report "first word of the verdict" "$(head -1 "$md" | sed -n 's/^\*\*\([A-Z -]*\)\*\*.*/\1/p')"
	row report "report.md characters (limit 65536)" "$chars"
	[ "$chars" -lt 65536 ] || status=1
else
	echo "history.sh: report failed"; cat "$LOGS/report.log"; status=1
fi

step "history and publish"
"$AB" history --out "$RESULTS/history-charts" >"$LOGS/history.txt" 2>&1 || status=1
head -20 "$LOGS/history.txt"
row history "series (scenario, device, case)" "$(grep -c ' runs$' "$LOGS/history.txt")"
if "$AB" publish "$RESULTS/history-site" >"$LOGS/publish.log" 2>&1; then
	row publish "pages and charts" "$(ls "$RESULTS"/history-site/index.html "$RESULTS"/history-site/charts/*.png 2>/dev/null | wc -l) files"
else
	echo "history.sh: publish failed"; cat "$LOGS/publish.log"; status=1
fi

tar -czf "$RESULTS/history-logs.tar.gz" -C "$TMP" logs
echo
echo "=== history.sh summary (exit $status) ==="
printf '%s\n' "${rows[@]}"
exit "$status"
