#!/usr/bin/env bash
# The copy floor measured per case (issue 24.1), on the CPU backend under
# the fake timer, where its cost is known: 2 us plus the case's minimum
# bytes at 16 GB/s (a fused arm: 2 us plus 0.5 ns an element). show prints
# it and each arm as a multiple of it; the CSV, the JSON (checked against
# docs/JSON.md) and the report carry the same figures; a database made
# before schema 8 is migrated and its run reads "not measured". (About 2 s.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/f.db"
expect_exit 0 "smoke on the fake timer" "$AB" run scenarios/smoke.ini --backend cpu --no-progress --db "$db"
q() { sqlite3 "$db" "$1"; }
# ln_modulate 1x16x256: x and out 8192 bytes each, scale and shift 512 each
method="SELECT copy_floor_method || copy_floor_samples FROM cases WHERE name = 'ln_modulate'"
median="SELECT copy_floor_ns FROM cases WHERE name = 'ln_modulate'"
measured="SELECT count(*) FROM cases WHERE copy_floor_ns > 0"
check "the floor is stored with its method" test "$(q "$method")" = "memcpy20"
check "its median is 2 us + 17408 bytes at 16 GB/s (+-1%)" \
	python3 -c "import sys; v = float(sys.argv[1]); sys.exit(not abs(v - 3088) <= 31)" "$(q "$median")"
check "every case has one" test "$(q "$measured")" -eq 5

expect_exit 0 "show" "$AB" show 1 --db "$db"
check "show prints the floor and both arms over it" \
	grep -Eq '^  copy floor: 3\.[01][0-9] us \(memcpy, n=20, [0-9.]+ GB/s, [0-9.]+% of copy\); A [0-9.]+x, B 1\.3[01]x of it \(kernel 1\.3[01]x\); methods: memcpy 3\.[01][0-9]* us$' "$T/out"
check "five cases, five floor lines" test "$(grep -c '^  copy floor:' "$T/out")" -eq 5

expect_exit 0 "export CSV" "$AB" export 1 --format csv --out "$T/f.csv" --db "$db"
check "CSV: arm_over_copy = arm median / copy_floor_ns, on every row" python3 - "$T/f.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["copy_floor_method"] == "memcpy" for r in rows), rows[0]
for r in rows:
    want = float(r["arm_median_ns"]) / float(r["copy_floor_ns"])
    assert abs(float(r["arm_over_copy"]) - want) <= 1e-9 * want, r
PY
expect_exit 0 "export JSON" "$AB" export 1 --format json --out "$T/e.json" --db "$db"
check "the export JSON matches its schema" python3 tests/tools/json_check.py docs/JSON.md abbench.export "$T/e.json"
check "its cases have a copy_floor" python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not all(c['copy_floor']['method'] == 'memcpy' for c in d['cases']))" "$T/e.json"
expect_exit 0 "show JSON" "$AB" show 1 --format json --db "$db"
cp "$T/out" "$T/s.json"
check "the show JSON matches its schema" python3 tests/tools/json_check.py docs/JSON.md abbench.show "$T/s.json"
check "its summaries have b_over_copy" python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not all(0.99 < c['summary']['b_over_copy'] < 2.0 for c in d['cases']))" "$T/s.json"
expect_exit 0 "report" "$AB" report 1 --db "$db" --out "$T/rep" --no-plots
check "the bandwidth table's floor is the copy floor, B kernel over it beside" grep -q '| floor | B fused / floor | B kernel / floor | A kernel / floor |$' "$T/rep/report.md"
check "and its values" grep -Eq '\| 3\.[01][0-9] us \| 1\.3[01]x \| 1\.3[01]x \| 5\.2[0-9]x \|$' "$T/rep/report.md"

old="$T/v1.db"
sqlite3 "$old" <tests/data/schema1.sql
expect_exit 0 "an older database migrated (baseline set)" "$AB" baseline set old 1 --db "$old"
expect_exit 0 "show of its run" "$AB" show 1 --db "$old"
check "its cases read 'copy floor: not measured'" grep -q '^  copy floor: not measured$' "$T/out"
expect_exit 0 "its JSON export" "$AB" export 1 --format json --out "$T/old.json" --db "$old"
check "with copy_floor null" python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not all(c['copy_floor'] is None for c in d['cases']))" "$T/old.json"
finish
