#!/usr/bin/env bash
# JSON output, checked against the schemas in docs/JSON.md (jsonschema,
# tests/tools/json_check.py): export --json, show/compare/gate --json, the
# benchmark-trend list; for a plain run, a shard and a run set, a passing
# and a failing gate. The gate's JSON verdict and exit_status agree with
# its exit status, and the documents carry the same figures as the CSV.
# A checker that accepts anything would prove nothing: a document with an
# undocumented field and one with a missing field are rejected.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/s.ini"
sed 's/^b = fused/b = eager/' "$T/s.ini" >"$T/reg.ini"
db="$T/j.db"
export ABBENCH_DB="$db"
valid() { python3 tests/tools/json_check.py docs/JSON.md "$1" "$2"; }
run() { "$AB" run "$@" --backend cpu --no-progress >/dev/null; }
run "$T/s.ini" --label base
run "$T/reg.ini" --label reg
run "$T/s.ini" --shard 1/2 --run-set js
run "$T/s.ini" --shard 2/2 --run-set js

for r in base reg set:js 3; do
	expect_exit 0 "export $r --json --benchmark-json" "$AB" export "$r" --json "$T/e.json" --benchmark-json "$T/b.json"
	check "export $r: valid abbench.export" valid abbench.export "$T/e.json"
	check "benchmark $r: valid list" valid benchmark "$T/b.json"
	expect_exit 0 "show $r --json" "$AB" show "$r" --json
	check "show $r: valid abbench.show" valid abbench.show "$T/out"
done
expect_exit 0 "export to standard output" "$AB" export base --json -
"$AB" export base --json "$T/base.json"
check "is the document written to a file" cmp -s "$T/out" "$T/base.json"

expect_exit 0 "compare base reg --json" "$AB" compare base reg --json
check "valid abbench.compare" valid abbench.compare "$T/out"
check "every fused arm slower in reg" python3 -c "
import json, sys
d = json.load(open('$T/out'))
sys.exit(not all(c['verdict'] == 'slower' and c['ratio']['point'] > 1 for c in d['cases']))"
expect_exit 0 "compare --json --out FILE" "$AB" compare base set:js --json --out "$T/c.json"
check "valid, and written to the file" valid abbench.compare "$T/c.json"

expect_exit 0 "gate pass --json" "$AB" gate set:js --baseline base --json
check "valid abbench.gate" valid abbench.gate "$T/out"
check "verdict pass, exit_status 0" python3 -c "
import json, sys
d = json.load(open('$T/out'))
sys.exit(not (d['verdict'] == 'pass' and d['exit_status'] == 0 and d['counts']['failed'] == 0))"
expect_exit 1 "gate fail --json" "$AB" gate reg --baseline base --json --out "$T/g.json"
check "valid abbench.gate" valid abbench.gate "$T/g.json"
check "verdict fail, exit_status 1, every case regressed" python3 -c "
import json, sys
d = json.load(open('$T/g.json'))
ok = d['verdict'] == 'fail' and d['exit_status'] == 1 and d['counts']['failed'] == 5
ok = ok and all(c['verdict'] == 'regressed' and c['time_regressed'] and c['change'] > 0.15 for c in d['cases'])
sys.exit(not ok)"

# the same figures as the CSV: B medians of the whole run
"$AB" export base --csv "$T/b.csv" --benchmark-json "$T/b.json"
check "export JSON medians = CSV medians" python3 -c "
import csv, json, sys
rows = {(r['case'], r['slot']): float(r['median_ns']) for r in csv.DictReader(open('$T/b.csv'))}
e = json.loads(open('/dev/stdin').read())
got = {(c['name'], s['label']): s['median_ns'] for c in e['cases'] for s in c['slots']}
sys.exit(got != rows)" < <("$AB" export base --json -)
check "benchmark value of a fused arm = its B median" python3 -c "
import csv, json, sys
rows = {r['case']: float(r['median_ns']) for r in csv.DictReader(open('$T/b.csv')) if r['slot'] == 'B'}
b = {e['name'].split('/')[1]: e['value'] for e in json.load(open('$T/b.json')) if '/b:' in e['name']}
sys.exit(b != rows)"

# the checker rejects what the schema does not say
python3 -c "
import json
d = json.load(open('$T/g.json'))
d['cases'][0]['surprise'] = 1
json.dump(d, open('$T/extra.json', 'w'))
d = json.load(open('$T/g.json'))
del d['rule']['min_change_ns']
json.dump(d, open('$T/missing.json', 'w'))"
check "an undocumented field fails the check" bash -c "! python3 tests/tools/json_check.py docs/JSON.md abbench.gate '$T/extra.json' >/dev/null"
check "a missing field fails the check" bash -c "! python3 tests/tools/json_check.py docs/JSON.md abbench.gate '$T/missing.json' >/dev/null"
expect_exit 2 "export needs one of --csv, --json, --benchmark-json" "$AB" export base
finish
