#!/usr/bin/env bash
# The model-level stage of a GPU session (issue 22): abbench itself, through
# its Python arms and declared sites, on the GPU machine, with build/ made
# elsewhere by `make` and carried (this script builds nothing; it needs
# build/abbench and build/libabbench_kernels.so):
#   glm_1024, glm_1024_noflush   the site cases, each in isolation, with and
#                                without the L2 flush (the projections)
#   glm_block                    one block x 30 and one forward, eager vs
#                                fused (abk), L2 flushed (the measurement)
#   nightly                      scripts/nightly.sh gates a second glm_block
#                                run against the first (baseline block_base)
#   glm_block_noflush            the same without the flush
#   python_glm, lineage          the Python arms at the sites' real shapes
#                                (PyTorch eager and Triton as arms)
# then `abbench report --projected-by` of each block run against both
# projections, whose headline tables are printed with each run's cases.
#
# Usage: scripts/gpu/model.sh [PART...] (default: all of the above, in that
# order; parts: sites block nightly noflush python). PYTHON (default
# /opt/torch/.venv/bin/python3) is ABBENCH_PYTHON. Each run is under
# `timeout` (300 s). Results: $OUT (or ./gpu-out) gets model.db (every run),
# model-logs.tar.gz (each command's output, the reports' markdown). The
# table last: scenario, case, A and B medians, speedup, byte-equal; then
# the projections. Exit status 0 when every run and report worked and every
# exact case is byte-equal, 1 otherwise, 2 with nothing to run.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" model "$@"
[ -n "$stages" ] || stages="sites block nightly noflush python"
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
export ABBENCH_DB=$RESULTS/model.db ABBENCH_PYTHON=$PY PYTHONDONTWRITEBYTECODE=1
export ABBENCH_KERNELS_LIB=${ABBENCH_KERNELS_LIB:-$ROOT/build/libabbench_kernels.so}
export TRITON_CACHE_DIR=$TMP/triton
rm -f "$ABBENCH_DB"
[ -x "$AB" ] || { echo "model.sh: no $AB: run make first"; exit 2; }
[ -f "$ABBENCH_KERNELS_LIB" ] || { echo "model.sh: no $ABBENCH_KERNELS_LIB: carry it"; exit 2; }
# run NAME COMMAND...: logged, timed, its exit status in the table
runs=$LOGS/runs.txt
: >"$runs"
run() {
	local name=$1; shift
	local t0 rc
	t0=$(date +%s)
	echo "=== $name: $* ==="
	timeout -k 10 300 "$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	tail -15 "$LOGS/$name.log"
	printf '%-22s exit %-3s %4ss\n' "$name" "$rc" "$(($(date +%s) - t0))" | tee -a "$runs"
	[ "$rc" -eq 0 ] || status=1
	return "$rc"
}
# the newest 'ok' run of a scenario in the database (list --format json)
run_of() { "$AB" list --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py newest - "$1"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }

if want sites; then
	run glm_1024 "$AB" run scenarios/glm_1024.ini --no-progress --label sites-flush
	run glm_1024_noflush "$AB" run scenarios/glm_1024_noflush.ini --no-progress --label sites-noflush
fi
if want block; then
	run glm_block "$AB" run scenarios/glm_block.ini --no-progress --label block-1
fi
if want nightly && [ -n "$(run_of glm_block)" ]; then
	"$AB" baseline set block_base "$(run_of glm_block)" >/dev/null
	NIGHTLY_LABEL=block-2 NIGHTLY_OUT=$TMP/nightly run nightly scripts/nightly.sh scenarios/glm_block.ini block_base
	cp "$TMP/nightly/summary.txt" "$LOGS/nightly-summary.txt" 2>/dev/null
fi
if want noflush; then
	run glm_block_noflush "$AB" run scenarios/glm_block_noflush.ini --no-progress --label block-noflush
fi
if want python; then
	run python_glm "$AB" run scenarios/python_glm.ini --no-progress --label python
	run lineage "$AB" run scenarios/lineage.ini --no-progress --label lineage
fi

# the projections: each block run against each site run
for block in glm_block glm_block_noflush; do
	id=$(run_of "$block")
	[ -n "$id" ] || continue
	for sites in glm_1024 glm_1024_noflush; do
		[ -n "$(run_of "$sites")" ] || continue
		run "report-$block-by-$sites" "$AB" report "$id" --projected-by "$sites" --no-plots \
			--out "$LOGS/report-$block-by-$sites"
	done
done

"$AB" list >"$LOGS/list.txt" 2>&1
tar -czf "$RESULTS/model-logs.tar.gz" -C "$TMP" logs

echo
echo "=== cases ==="
for id in $("$AB" list --format json 2>/dev/null | "$READ" scripts/gpu/abjson.py runs - | awk -F'\t' '$2 == "ok" { print $1 }' | sort -n); do
	"$AB" show "$id" --format json 2>/dev/null
done | "$PY" -c '
import json, sys
dec = json.JSONDecoder()
text, i = sys.stdin.read(), 0
print("%-18s %-22s %12s %12s %8s %s" % ("scenario", "case", "A median us", "B median us", "A/B", "B byte-equal"))
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    d, i = dec.raw_decode(text, i)
    for c in d["cases"]:
        s = c["summary"]
        a, b = s["median_a_ns"], s["median_b_ns"]
        sp = s["speedup"]["point"] if isinstance(s["speedup"], dict) else s["speedup"]
        print("%-18s %-22s %12s %12s %8s %s" % (d["run"]["scenario"], c["name"],
              "%.2f" % (a / 1e3) if a else "n/a", "%.2f" % (b / 1e3) if b else "n/a",
              "%.3f" % sp if sp else "n/a", s["b_byte_equal"]))
' || status=1
echo
echo "=== projections (report --projected-by) ==="
for f in "$LOGS"/report-*/report.md; do
	[ -f "$f" ] || continue
	echo "--- $(basename "$(dirname "$f")")"
	sed -n '/^## Projection against measurement/,/^Each family/p' "$f" | grep '^|'
done
echo
cat "$runs"
echo "model.sh: exit $status"
exit "$status"
