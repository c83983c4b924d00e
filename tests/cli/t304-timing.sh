#!/usr/bin/env bash
# The scenario key `timing` (issue 24.3): `events` (the default) is stored
# with the run; `graph` (CUDA graph replays, launch overhead excluded) is
# refused by the CPU backend with a reason before anything is written; a
# bad value names FILE:LINE and the choices; a run stored as `graph` says
# so in show, report and JSON. The CUDA path is test_backend_cuda's
# test_gpu_graph, on a GPU. (About 1 s.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/t.db"
sed 's/^launch_gaps = include$/launch_gaps = include\ntiming = graph/' scenarios/smoke.ini >"$T/graph.ini"
check "the scenario asks for graph timing" grep -q '^timing = graph$' "$T/graph.ini"
expect_exit 2 "timing = graph on the cpu backend" "$AB" run "$T/graph.ini" --backend cpu --quick --no-progress --db "$db"
check "it says why and what to use" grep -q "timing = graph needs CUDA graphs: the cpu backend times each step with the clock and launches nothing (use timing = events, or the cuda backend)" "$T/err"
check "no database was made" test ! -e "$db"
sed 's/^timing = graph$/timing = graphs/' "$T/graph.ini" >"$T/bad.ini"
expect_exit 2 "timing = graphs" "$AB" run "$T/bad.ini" --backend cpu --quick --no-progress --db "$db"
check "FILE:LINE and the choices" grep -Eq "bad.ini:[0-9]+: timing: .*graphs.*(events|graph)" "$T/err"

expect_exit 0 "a run with the default timing" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$db"
check "it is stored as events" test "$(sqlite3 "$db" 'SELECT timing FROM runs')" = events
expect_exit 0 "show JSON" "$AB" show 1 --format json --db "$db"
check "the JSON says events" grep -q '"timing": *"events"' "$T/out"
sqlite3 "$db" "UPDATE runs SET timing = 'graph'"
expect_exit 0 "show of a graph-timed run" "$AB" show 1 --db "$db"
check "show says how it was timed" grep -q '^timing graph: each sample a CUDA graph of flushed launches replayed, less its flushes, per launch (no launch overhead)$' "$T/out"
expect_exit 0 "its report" "$AB" report 1 --db "$db" --out "$T/rep" --no-plots
check "the report's provenance says timing graph" grep -q 'timing graph' "$T/rep/report.md"
finish
