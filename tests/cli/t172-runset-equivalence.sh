#!/usr/bin/env bash
# Shards read as one run: smoke.ini measured whole, and measured as 3 shards
# (--shard I/3 --run-set n, each into its own file) then merged, give the
# same results case for case and sample for sample (fake timer: samples are
# a function of the case and the sample id, not of the process). Checked on
# every output a user reads: export CSV (minus run_id) and JSON, show
# --json, report.md, compare, and the gate's verdict, exit status and JSON,
# both for a passing run and for a planted regression (b = eager); the
# figures in run ids and times aside. Then: a set missing a shard, or with
# two 'ok' runs of one shard, is refused (exit 2).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
strip() { python3 tests/tools/json_strip.py "$1"; }
# 20 samples a slot, a time limit no slow build reaches (as t052)
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/s.ini"
sed 's/^b = fused/b = eager/' "$T/s.ini" >"$T/reg.ini"
db="$T/all.db"
run() { "$AB" run "$@" --backend cpu --no-progress >/dev/null; }

run "$T/s.ini" --db "$db" --label whole
run "$T/s.ini" --db "$db" --label base
run "$T/reg.ini" --db "$db" --label regwhole
for i in 1 2 3; do
	run "$T/s.ini" --shard "$i/3" --run-set n --db "$T/n$i.db" --label shard
	run "$T/reg.ini" --shard "$i/3" --run-set r --db "$T/r$i.db"
done
expect_exit 0 "merge 6 shard files" "$AB" merge "$db" "$T"/n?.db "$T"/r?.db
check "6 runs copied" grep -q '6 runs copied' "$T/out"

# export: CSV without the run_id column; JSON without ids and times
"$AB" export whole --db "$db" --csv "$T/w.csv" --json "$T/w.json"
"$AB" export set:n --db "$db" --csv "$T/n.csv" --json "$T/n.json"
# every column but run_id, by name
cols() { python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])): r.pop("run_id"); print(r)' "$1"; }
check "CSV has a run_id column" bash -c "head -1 '$T/w.csv' | grep -q ',run_id,'"
check "CSV: $(($(wc -l <"$T/w.csv") - 1)) rows equal, case for case" cmp -s <(cols "$T/w.csv") <(cols "$T/n.csv")
check "JSON export equal, sample for sample" cmp -s <(strip "$T/w.json") <(strip "$T/n.json")
check "the samples are there ($(grep -c '"samples_ns"' "$T/n.json") slots)" \
	test "$(grep -c '"samples_ns"' "$T/n.json")" -eq 15
check "cases in the scenario's order" cmp -s <(sed -n 's/^\[case \(.*\)\]$/\1/p' "$T/s.ini") \
	<(tail -n +2 "$T/n.csv" | cut -d, -f1 | uniq)

"$AB" show whole --db "$db" --json >"$T/w.show"
"$AB" show set:n --db "$db" --json >"$T/n.show"
check "show --json equal" cmp -s <(strip "$T/w.show") <(strip "$T/n.show")
expect_exit 0 "show set:n" "$AB" show set:n --db "$db"
check "show names the set and its runs" grep -q "^run set 'n': 3 shards, runs" "$T/out"

# report.md: equal once the lines naming run ids, times and the command
# line are left out and the slot table's wall-clock "slot time (s)" blanked
"$AB" report whole --db "$db" --out "$T/rw" --no-plots >/dev/null 2>&1
"$AB" report set:n --db "$db" --out "$T/rn" --no-plots >/dev/null 2>&1
norun() {
	grep -v -E 'run [0-9]+|Run [0-9]+|[0-9]{4}-[0-9]{2}-[0-9]{2}T|command line' "$1" |
		sed -E 's/^(\| `[^|]*` \| [AB][0-9]* \|([^|]*\|){5})[^|]*\|/\1 - |/'
}
check "report.md equal (run ids, times and command line aside)" cmp -s <(norun "$T/rw/report.md") <(norun "$T/rn/report.md")
check "report.md has its slot table" grep -q 'slot time (s)' "$T/rn/report.md"

# compare: the set against the whole run, every case the same
expect_exit 0 "compare set:n whole --json" "$AB" compare set:n whole --db "$db" --json
check "compare: every case 'same', md5 equal" python3 -c "
import json, sys
d = json.load(open('$T/out'))
sys.exit(not (len(d['cases']) == 5 and all(c['verdict'] == 'same' and c['md5_differ'] == 0 for c in d['cases'])))"

# gate: the same verdict, exit status and figures
for pair in "whole set:n 0" "regwhole set:r 1"; do
	set -- $pair
	expect_exit "$3" "gate $1 against base" "$AB" gate "$1" --baseline base --db "$db" --json
	strip "$T/out" >"$T/g1"
	expect_exit "$3" "gate $2 against base" "$AB" gate "$2" --baseline base --db "$db" --json
	strip "$T/out" >"$T/g2"
	check "gate JSON equal for $1 and $2" cmp -s "$T/g1" "$T/g2"
	expect_exit 0 "gate base against $1 as the baseline" "$AB" gate base --baseline "$1" --db "$db" --json
	strip "$T/out" >"$T/g3"
	expect_exit 0 "gate base against $2 as the baseline" "$AB" gate base --baseline "$2" --db "$db" --json
	check "gate JSON equal for $1 and $2 as baselines" cmp -s "$T/g3" <(strip "$T/out")
done
check "the regression is one" grep -q '"verdict": "fail"' "$T/g2"
expect_exit 0 "baseline set nightly set:n" "$AB" baseline set nightly set:n --db "$db"
expect_exit 0 "gate whole against the set baseline" "$AB" gate whole --baseline nightly --db "$db"
expect_exit 1 "gate the regressed set against it" "$AB" gate set:r --baseline nightly --db "$db"

# incomplete sets, duplicated shards, mixed shard counts
run "$T/s.ini" --shard 1/2 --run-set half --db "$db"
expect_exit 2 "a set missing shard 2/2" "$AB" show set:half --db "$db"
check "says which shard is missing" grep -q "run set 'half' is incomplete: shard 2/2 has no run" "$T/err"
run "$T/s.ini" --shard 1/3 --run-set n --db "$db"
expect_exit 2 "two 'ok' runs of shard 1/3" "$AB" gate set:n --baseline base --db "$db"
check "names both runs" grep -q "run set 'n' has two 'ok' runs of shard 1/3" "$T/err"
run "$T/s.ini" --shard 2/2 --run-set half --db "$db" --quick
expect_exit 2 "shards that differ (--quick)" "$AB" show set:half --db "$db"
check "says what differs" grep -q "shards differ in --quick setting" "$T/err"
expect_exit 2 "no such set" "$AB" show set:none --db "$db"
check "says so" grep -q "no run set 'none'" "$T/err"
expect_exit 2 "a run set where one run is needed" "$AB" baseline set x set:nope --db "$db"
finish
