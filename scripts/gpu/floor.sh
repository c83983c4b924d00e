#!/usr/bin/env bash
# The floor stage of a GPU session (issue 24 items 1, 3, 4; the helper
# `floor`), on the GPU machine with build/ made elsewhere (this script
# builds nothing; it checks and times):
#   unit    build/tests/test_backend_cuda (test_gpu_graph among them: graph
#           replays, per-launch records; the span's floor in the notes)
#   glm     scenarios/glm_1024.ini on cuda, timed whole: every case's copy
#           floor (the best of the four streaming copies, wall and CUPTI
#           kernel time), the fused arm's kernel time over the floor's, the
#           md5 of every case's outputs against the ones docs/PERF_NOTES.md
#           recorded (they must not change), the stop reasons, the run's
#           phase times and the span's floor (its notes)
#   span    wall - kernel of the one-kernel fused arms (B slots) under the
#           sample order of issue 24.3 and under ABBENCH_SPAN=legacy (the
#           order before it), runs alternating legacy, new, legacy on the
#           four cases whose fused arm is one launch
#   graph   glm_1024 with timing = graph (max_time_ms 500 a slot): each
#           arm's launch-free time beside its events time and CUPTI kernel
#           time, and its md5s (the same kernels: the same bytes); the
#           four 4096-token cases only: the text stream's arms (3-6 us) are
#           within the noise of ten L2 flushes, which the backend refuses
#           to call a time (run 5 of the H200's call 4: the fused txt arm's
#           replay took 198.11 us, the flushes alone 199.36)
# Usage: scripts/gpu/floor.sh [STAGE ...] (default: unit glm span graph);
# through scripts/gpu/session.sh: floor:200 (about 80-120 s).
# Results: $OUT (or ./gpu-out-floor): floor.db, the logs, floor-table.txt;
# the table is printed last.
# Exit status: 0 when every run succeeded and every md5 matched; 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
RESULTS=${OUT:-$PWD/gpu-out-floor}
mkdir -p "$RESULTS"
AB=build/abbench
DB="$RESULTS/floor.db"
rm -f "$DB" "$DB"-*
export ABBENCH_DB="$DB"
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
stages=${*:-unit glm span graph}
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
status=0
lines=()
note() { lines+=("$(printf '%-34s %s' "$1" "$2")"); }
# run LABEL LIMIT ARGS...: one bounded abbench run, its wall time noted
run() {
	local label=$1 limit=$2
	shift 2
	local t0 t1 rc=0
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "$AB" run "$@" --backend cuda --label "$label" --no-progress \
		>"$RESULTS/$label.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	note "run $label" "exit $rc, $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
	[ "$rc" -eq 0 ] || status=1
	return "$rc"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "floor.sh: abbench does not start here"; exit 1; }

if want unit; then
	if [ -x build/tests/test_backend_cuda ]; then
		timeout -k 5 90 build/tests/test_backend_cuda >"$RESULTS/unit.log" 2>&1
		rc=$?
		note "test_backend_cuda" "exit $rc ($(grep -c '^\[       OK \]' "$RESULTS/unit.log") ok, $(grep -c '^\[  FAILED  \] test' "$RESULTS/unit.log") failed)"
		[ "$rc" -eq 0 ] || status=1
		grep -m1 'graph: first wall' "$RESULTS/unit.log" | sed 's/^/  /' | cut -c1-200
	else
		note "test_backend_cuda" "not built"
	fi
fi

want glm && run glm 120 scenarios/glm_1024.ini

if want span; then
	one=img_ln_modulate,txt_ln_modulate,ln_continuous,img_gate_add,txt_gate_add
	ABBENCH_SPAN=legacy run span-legacy1 60 scenarios/glm_1024.ini --only "$one"
	run span-new 60 scenarios/glm_1024.ini --only "$one"
	ABBENCH_SPAN=legacy run span-legacy2 60 scenarios/glm_1024.ini --only "$one"
fi

if want graph; then
	sed 's/^launch_gaps = include$/launch_gaps = include\ntiming = graph/; s/^max_time_ms = .*/max_time_ms = 500/' \
		scenarios/glm_1024.ini >"$RESULTS/glm_1024_graph.ini"
	run graph 150 "$RESULTS/glm_1024_graph.ini" --only img_ln_modulate,qk_layernorm,ln_continuous,img_gate_add
fi

python3 - "$DB" >"$RESULTS/floor-table.txt" <<'PY' || status=1
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
q = lambda sql, *a: db.execute(sql, a).fetchall()
# glm_1024's md5s as docs/PERF_NOTES.md recorded them (session of 2026-12-01, unchanged since)
want = {"img_ln_modulate": "f580d733", "txt_ln_modulate": "613c9470", "qk_layernorm": "1677ad86+9d54a703",
        "ln_continuous": "bf6b1cde", "img_gate_add": "4ae11dc5", "txt_gate_add": "e8ad4036"}
# the floors measured in the issue-24 session (copy_floor.cu as cubin arms, CUPTI, us)
expect = {"img_ln_modulate": 17.95, "txt_ln_modulate": 2.82, "qk_layernorm": 35.30, "ln_continuous": 17.95,
          "img_gate_add": 26.62, "txt_gate_add": 3.49}
runs = {label: rid for rid, label in q("SELECT id, label FROM runs WHERE status = 'ok'")}
bad = 0

def slots(rid, case):
    return q("SELECT s.label, s.variant, s.median_ns, s.kernel_median_ns, s.n_samples, s.stopping_reason, s.id "
             "FROM slots s JOIN cases c ON c.id = s.case_id WHERE c.run_id = ? AND c.name = ? ORDER BY s.position",
             rid, case)

def md5s(slot_id):
    return "+".join(m[:8] for (m,) in q("SELECT md5 FROM outputs WHERE slot_id = ? ORDER BY idx", slot_id))

def us(x):
    return "n/a" if x is None else f"{x / 1e3:.2f}"

if "glm" in runs:
    rid = runs["glm"]
    print("glm_1024 (events): copy floor per case, fused over it, md5 against PERF_NOTES")
    print(f"{'case':<17} {'floor us':>9} {'kernel':>7} {'method':<7} {'expect':>6} {'B kernel':>8} {'B/floor':>7} "
          f"{'B wall':>7} {'A wall':>8} {'md5':<18} ok")
    for case, fl, flk, meth in q("SELECT name, copy_floor_ns, copy_floor_kernel_ns, copy_floor_method FROM cases "
                                 "WHERE run_id = ? ORDER BY ordinal", rid):
        ss = slots(rid, case)
        b = [s for s in ss if s[0] == "B"][0]
        a = statistics.median([s[2] for s in ss if s[0].startswith("A")])
        sums = {md5s(s[6]) for s in ss}
        ok = len(sums) == 1 and sums == {want.get(case)}
        bad += not ok
        ratio = b[3] / flk if b[3] and flk else None
        print(f"{case:<17} {us(fl):>9} {us(flk):>7} {meth:<7} {expect.get(case, 0):>6.2f} {us(b[3]):>8} "
              f"{'n/a' if ratio is None else f'{ratio:.3f}':>7} {us(b[2]):>7} {us(a):>8} {'/'.join(sorted(sums)):<18} "
              f"{'yes' if ok else 'NO'}")
    reasons = q("SELECT stopping_reason, count(*), sum(n_samples) FROM slots s JOIN cases c ON c.id = s.case_id "
                "WHERE c.run_id = ? GROUP BY stopping_reason", rid)
    print("stop reasons: " + ", ".join(f"{r} {n} slots ({m} samples)" for r, n, m in reasons))
    notes = q("SELECT notes FROM runs WHERE id = ?", rid)[0][0]
    for part in notes.split("; "):
        if part.startswith("cases ") or part.startswith("span"):
            print("notes: " + part)

labels = [l for l in ("span-legacy1", "span-new", "span-legacy2") if l in runs]
if labels:
    print("\nwall - kernel of the fused (one-launch) B slots, us: legacy order, issue-24.3 order, legacy again")
    cases = [c for (c,) in q("SELECT name FROM cases WHERE run_id = ? ORDER BY ordinal", runs[labels[0]])]
    print(f"{'case':<17} " + " ".join(f"{l:>13}" for l in labels))
    for case in cases:
        row = []
        for l in labels:
            b = [s for s in slots(runs[l], case) if s[0] == "B"]
            row.append(f"{(b[0][2] - b[0][3]) / 1e3:13.2f}" if b and b[0][3] else f"{'n/a':>13}")
        print(f"{case:<17} " + " ".join(row))
    for l in labels:
        notes = q("SELECT notes FROM runs WHERE id = ?", runs[l])[0][0]
        span = [p for p in notes.split("; ") if p.startswith("span")]
        print(f"{l}: {span[0] if span else 'no span note'}")

if "graph" in runs and "glm" in runs:
    g, e = runs["graph"], runs["glm"]
    print("\ntiming = graph against events (the glm run), us: launch-free, events, CUPTI kernel")
    print(f"{'case':<17} {'arm':<6} {'graph':>8} {'events':>8} {'kernel':>8} {'graph md5 ok':>12}")
    for case, in q("SELECT name FROM cases WHERE run_id = ? ORDER BY ordinal", g):
        gs, es = slots(g, case), slots(e, case)
        sums = {md5s(s[6]) for s in gs}
        ok = sums == {want.get(case)}
        bad += not ok
        for arm in ("A1", "B"):
            gg = [s for s in gs if s[0] == arm][0]
            ee = [s for s in es if s[0] == arm][0]
            print(f"{case:<17} {gg[1][:6]:<6} {us(gg[2]):>8} {us(ee[2]):>8} {us(ee[3]):>8} {'yes' if ok else 'NO':>12}")
    fl = q("SELECT name, copy_floor_ns, copy_floor_method FROM cases WHERE run_id = ? ORDER BY ordinal", g)
    print("graph copy floors: " + ", ".join(f"{n} {us(v)} ({m})" for n, v, m in fl))
sys.exit(1 if bad else 0)
PY
cat "$RESULTS/floor-table.txt"
echo
printf '%s\n' "${lines[@]}"
exit $status
