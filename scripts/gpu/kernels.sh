#!/usr/bin/env bash
# The kernels stage of a GPU session (issue 8 items 2, 3, 5; issue 10 item
# 4), on the GPU machine, with build/ made elsewhere (this script builds
# nothing):
#   1. selftest: build/gpu/test_cuda_kernels, every shipped variant of every
#      site (`fused` and each fused.<tuning>) byte-equal to eager, eager
#      equal to the host emulation, refusals as each tuning's rule says;
#   2. glm: scenarios/glm_1024.ini on cuda: every case's eager and fused
#      medians and the md5 of their outputs (the same md5 in every slot of a
#      case: fused byte-equal to eager);
#   3. tuning: scenarios/tuning_glm.ini on cuda, per case the winner (arm a)
#      against one contender (arm b) with abbench's own A/B/A measurement;
#      B/A > 1 means the winner stays; then every scenarios/tuning_glm_copy/
#      *.ini: the winner against a plain copy of the same bytes (the copy
#      floor, scripts/gpu/copy_floor.cu; its md5 differs by design);
#   4. sass: cuobjdump's SASS of the fused kernels (build/abbench) into
#      $OUT/kernels-sass.txt.gz, for reading here (no disassembler there).
# Last, a short table: run, case, arm (variant), median with events and
# CUPTI kernel time per slot, md5, and B/A for both.
# Usage: scripts/gpu/kernels.sh [STAGE ...]   (default: selftest glm tuning;
# selftest-quick instead of selftest runs the self-test's --quick set).
# Every abbench run is bounded (RUN_LIMIT seconds, default 90), the
# self-test too (SELFTEST_LIMIT, default 400): a kernel that hangs costs
# that, not the device call.
# Through scripts/gpu/session.sh: kernels:600 (the full self-test plus about
# 16 s of glm_1024 and 8 tuning runs of up to 15 s each).
# Results: $OUT (or ./gpu-out) gets kernels.db, kernels-logs.tar.gz (every
# log, the CSV exports) and kernels-summary.txt (the table).
# Exit status: 0 when every stage ran, the self-test passed and every
# case's md5 agreed across its slots; 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
RESULTS=${OUT:-$PWD/gpu-out}
mkdir -p "$RESULTS"
TMP=${TMPDIR:-/tmp}/abbench-kernels
rm -rf "$TMP" && mkdir -p "$TMP/logs"
LOGS="$TMP/logs"
AB=build/abbench
DB="$RESULTS/kernels.db"
rm -f "$DB"
stages=${*:-selftest glm tuning}
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
step() { echo; echo "=== $* ==="; }
status=0

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "kernels.sh: abbench does not start here"; exit 1; }
"$AB" backends

if want selftest || want selftest-quick; then
	step selftest
	quick=""
	want selftest-quick && ! want selftest && quick=--quick
	if timeout -k 5 "${SELFTEST_LIMIT:-400}" build/gpu/test_cuda_kernels $quick 2>&1 | tee "$LOGS/selftest.log"; then
		echo "selftest PASS" >"$LOGS/selftest.verdict"
	else
		echo "selftest FAIL" >"$LOGS/selftest.verdict"
		status=1
	fi
fi

# run LABEL SCENARIO: one abbench run on cuda, its show and its CSV.
run() {
	step "$1 ($2)"
	if timeout -k 5 "${RUN_LIMIT:-90}" "$AB" run "$2" --backend cuda --db "$DB" --label "$1" --no-progress 2>&1 |
		tee "$LOGS/run_$1.log"; then
		"$AB" show "$1" --db "$DB" | tee "$LOGS/show_$1.txt"
		"$AB" export "$1" --csv "$LOGS/$1.csv" --db "$DB"
	else
		echo "kernels.sh: abbench run $2 failed"
		status=1
	fi
}

want glm && run kernels-glm scenarios/glm_1024.ini
if want tuning; then
	run tuning-glm scenarios/tuning_glm.ini
	for scn in scenarios/tuning_glm_copy/*.ini; do
		run "copy-$(basename "$scn" .ini)" "$scn"
	done
fi
if want sass; then
	step sass
	cuobjdump -sass build/abbench 2>&1 | awk '/Function : / { keep = ($0 ~ /ab_fused_/) } keep' |
		gzip >"$RESULTS/kernels-sass.txt.gz"
	echo "kernels.sh: $(zcat "$RESULTS/kernels-sass.txt.gz" | grep -c 'Function : ') fused kernels disassembled"
fi

step table
python3 - "$LOGS" >"$LOGS/table.txt" <<'PY'
import csv, glob, os, statistics, sys
logs = sys.argv[1]
bad = 0
print(f"{'run':<26} {'case':<16} {'arm':<15} {'events us (slots)':>20} {'CUPTI us (slots)':>20} {'md5'}")
order = lambda p: (not p.endswith("kernels-glm.csv"), p)
for path in sorted(glob.glob(os.path.join(logs, "*.csv")), key=order):
    run = os.path.basename(path)[:-4]
    copy = run.startswith("copy-")  # a copy of the bytes: its md5 differs by design
    rows = list(csv.DictReader(open(path)))
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    for case in cases:
        slots = [r for r in rows if r["case"] == case]
        md5s = {r["md5"] for r in slots}
        by_arm = {}
        for r in slots:
            k = float(r["kernel_median_ns"]) / 1000.0 if r["kernel_median_ns"] else float("nan")
            by_arm.setdefault((r["arm"], r["variant"]), []).append((float(r["median_ns"]) / 1000.0, k))
        med, kmed = {}, {}
        for (arm, variant), t in by_arm.items():
            med[arm] = statistics.mean(x for x, _ in t)
            kmed[arm] = statistics.mean(k for _, k in t)
            ev = "/".join(f"{x:.2f}" for x, _ in t)
            ku = "/".join(f"{k:.2f}" for _, k in t)
            same = len({r["md5"] for r in slots if r["arm"] == arm}) == 1
            print(f"{run:<26} {case:<16} {variant[:15]:<15} {ev:>20} {ku:>20} "
                  f"{(slots[0]['md5'][:8] if len(md5s) == 1 else ('own' if same else 'DIFFER'))}")
        if len(md5s) != 1 and not copy:
            bad += 1
            print(f"{'':<26} {case:<16} md5 differ across slots: {' '.join(sorted(md5s))}")
        if "a" in med and "b" in med and (run.startswith("tuning-") or copy):
            print(f"{'':<26} {case:<16} {'B / A':<15} {med['b'] / med['a']:>20.3f} {kmed['b'] / kmed['a']:>20.3f}")
print(f"md5 agreement: {'every case' if bad == 0 else f'{bad} case(s) DIFFER'}")
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || status=1
[ -f "$LOGS/selftest.verdict" ] && cat "$LOGS/selftest.verdict" >>"$LOGS/table.txt" &&
	grep -E "^[0-9]+ passed" "$LOGS/selftest.log" >>"$LOGS/table.txt"
cp "$LOGS/table.txt" "$RESULTS/kernels-summary.txt"
tar -czf "$RESULTS/kernels-logs.tar.gz" -C "$TMP" logs
echo
echo "=== kernels summary ==="
cat "$LOGS/table.txt"
exit "$status"
