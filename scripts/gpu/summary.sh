#!/usr/bin/env bash
# GPU stage of the summary helper's work (issue 8, harness half), on the GPU
# machine with a build made elsewhere (builds nothing; uses build/abbench and
# build/tests/test_backend_cuda). Checks what the CPU tests cannot:
#   notes   the CUDA backend answers for its own notes through ops->notes:
#           a smoke run on cuda stores a notes line naming CUPTI (the runner
#           no longer asks which backend it holds)
#   agree   show, report and the CSV export of that GPU run print the same
#           medians, intervals, speedups, drift and exactness
#           (tests/tools/summary_agree.py, as tests/cli/t055 on the CPU)
#   compare compare and gate read the summaries: an A/A pair of smoke runs
#           compares and gates (exit 0 or 1, never 2 or 3)
#   unit    build/tests/test_backend_cuda (uses backend_cuda.notes)
# Results under $OUT (or ./gpu-out): summary.db and the outputs; a short
# table last.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" summary
export ABBENCH_DB="$RESULTS/summary.db"
table=()
row() { table+=("$(printf '%-40s %s' "$1" "$2")"); }

"$AB" run scenarios/smoke.ini --backend cuda --label gpu1 --no-progress >"$RESULTS/run1.log" 2>&1
row "smoke on cuda (run 1)" "exit $?"
"$AB" show gpu1 >"$RESULTS/gpu1.show" 2>&1
notes="notes: $(ab_json show gpu1 >/dev/null && "$READ" scripts/gpu/abjson.py get "$JSON/gpu1.show.json" run.notes)"
if grep -qi 'cupti' <<<"$notes"; then row "notes from ops->notes" "ok: ${notes:7:60}"; else row "notes from ops->notes" "MISSING: '$notes'"; fi

"$AB" report gpu1 --out "$RESULTS/report-gpu1" --no-plots >/dev/null 2>"$RESULTS/report.err"
"$AB" export gpu1 --csv "$RESULTS/gpu1.csv"
if python3 tests/tools/summary_agree.py "$RESULTS/gpu1.show" "$RESULTS/report-gpu1/report.md" "$RESULTS/gpu1.csv" \
	>"$RESULTS/agree.txt"; then
	row "show/report/export agree" "ok ($(grep -c '^ok' "$RESULTS/agree.txt") checks)"
else
	row "show/report/export agree" "FAIL ($(grep -c '^not ok' "$RESULTS/agree.txt") checks failed)"
fi

"$AB" run scenarios/smoke.ini --backend cuda --label gpu2 --no-progress >"$RESULTS/run2.log" 2>&1
row "smoke on cuda (run 2)" "exit $?"
"$AB" compare gpu1 gpu2 >"$RESULTS/compare.md" 2>&1
row "compare gpu1 gpu2" "exit $?"
"$AB" gate gpu2 --baseline gpu1 >"$RESULTS/gate.md" 2>&1
st=$?
row "gate gpu2 vs gpu1 (A/A)" "exit $st $( [ $st -le 1 ] && echo ok || echo FAIL)"

if [ -x build/tests/test_backend_cuda ]; then
	build/tests/test_backend_cuda >"$RESULTS/unit.log" 2>&1
	row "test_backend_cuda" "exit $?"
else
	row "test_backend_cuda" "not built"
fi

echo
printf '%s\n' "${table[@]}"
