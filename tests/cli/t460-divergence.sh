#!/usr/bin/env bash
# Where the bits differ (issue 29.1): planted differences of known figures
# (tests/cli/plant_lib.sh, tests/plugins/div_plant.c) in bf16, f16 and f32,
# every figure of the stored divergence checked: one ULP at [0,3,5] (the
# histogram, the largest ULP and |B - A| of one ULP at 1.x, its element,
# the first difference, rows touched, the map's one cell, the intermediates
# compared and equal before it); a sign flip of 1.5 (2m + 1 ULPs, |B - A| =
# 3, a sign flip); a NaN where A has 1.5 (a class mismatch, no ULP, no
# finite pair); a difference only in rstd (outputs byte-equal, the
# departure at rstd); nothing stored for byte-equal slots. The same figures
# through `abbench diff --format json` (coordinates, values, the map), and
# the document against its schema. Fake timer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/p.db"
plant_scenario "$T/p.ini"
expect_exit 0 "a run of planted arms in bf16, f16 and f32" "$AB" run "$T/p.ini" --db "$db" --no-progress
valid() { python3 tests/tools/json_check.py docs/JSON.md abbench.diff "$1"; }

cols="n_diff, elems, ulp_1, ulp_2, ulp_3_10, ulp_11_1000, ulp_over_1000, n_class, n_nan_bits, n_sign, max_ulp,
	max_ulp_index, first_index, max_abs_index, rows, rows_touched, map_rows, map_cols, stage, role, d.dtype, has_ref"
for D in $PLANT_DTYPES; do
	case $D in
	bf16) one=16320 sign=32768 nan=32704 ulp=0.0078125 ;;     # 1.5 = 0x3fc0, NaN 0x7fc0, 1 ULP at 1.x = 2^-7
	f16) one=15872 sign=32768 nan=32256 ulp=0.0009765625 ;;    # 0x3e00, 0x7e00, 2^-10
	f32) one=1069547520 sign=2147483648 nan=2143289344 ulp=1.1920928955078125e-07 ;; # 0x3fc00000, 2^-23
	esac
	check "$D one ULP at [0,3,5]: 1 of 128, histogram 1|0|0|0|0, max 1 ULP at element 53, first 53, 1 of 8 rows, map 8x16, stage 2" \
		test "$(plant_div "$db" "ulp1_$D" B out "$cols")" = "1|128|1|0|0|0|0|0|0|0|1|53|53|53|8|1|8|16|2|output|$D|0"
	check "$D one ULP: |B - A| is one ULP at 1.x, B's bits A's + 1, no reference value" \
		test "$(plant_div "$db" "ulp1_$D" B out "max_abs = $ulp, first_b - first_a, max_ulp_b - max_ulp_a, first_ref IS NULL")" = "1|1|1|1"
	got=$(sqlite3 "$db" <<SQL | tr '\n' ' '
SELECT s.label || ':' || k.compared || ':' || (SELECT count(*) FROM divergence d WHERE d.slot_id = s.id)
FROM slot_checks k JOIN slots s ON s.id = k.slot_id JOIN cases c ON c.id = s.case_id
WHERE c.name = 'ulp1_$D' ORDER BY s.position;
SELECT mismatches || bit_exact FROM outputs o JOIN slots s ON s.id = o.slot_id JOIN cases c
ON c.id = s.case_id WHERE c.name = 'ulp1_$D' AND s.label = 'B';
SQL
)
	check "$D one ULP: B compared mean, rstd and out in the chain's order (mean and rstd equal: no row); its output row 1 mismatch, not bit-exact" \
		test "$got" = "A1::0 B:mean,rstd,out:1 A2:mean,rstd,out:0 10 "
	check "$D sign flip of 1.5 at [0,1,2]: 2m + 1 ULPs (>1000), one sign flip, |B - A| = 3" \
		test "$(plant_div "$db" "sign_$D" B out "$cols")" = "1|128|0|0|0|0|1|0|0|1|$((2 * one + 1))|18|18|18|8|1|8|16|0|output|$D|0"
	check "$D sign flip: A 1.5, B -1.5 in bits" \
		test "$(plant_div "$db" "sign_$D" B out "max_abs, first_a, first_b")" = "3.0|$one|$((one + sign))"
	check "$D NaN where A has 1.5 at [0,2,7]: a class mismatch, no ULP, no finite pair" \
		test "$(plant_div "$db" "nan_$D" B out "$cols")" = "1|128|0|0|0|0|0|1|0|0|0|-1|39|-1|8|1|8|16|0|output|$D|0"
	check "$D NaN: B's bits the quiet NaN, |B - A| unknown" \
		test "$(plant_div "$db" "nan_$D" B out "first_a, first_b, max_abs IS NULL")" = "$one|$nan|1"
	got=$(sqlite3 "$db" <<SQL | tr '\n' ' '
SELECT d.tensor, d.role, d.dtype, d.stage, d.n_diff, d.ulp_1, d.first_index, d.max_ulp,
  (SELECT min(bit_exact) FROM outputs o WHERE o.slot_id = s.id)
FROM divergence d JOIN slots s ON s.id = d.slot_id JOIN cases c ON c.id = s.case_id WHERE c.name = 'rstd_$D';
SELECT count(*) FROM divergence d JOIN slots s ON s.id = d.slot_id JOIN cases c ON c.id = s.case_id
WHERE (s.arm = 'a' OR c.name LIKE 'nondet_%' OR c.name LIKE 'inv_%') AND c.name LIKE '%_$D%';
SQL
)
	check "$D rstd only: B's outputs byte-equal, rstd (f32 stat, stage 1) one ULP in row 2; no divergence stored for a byte-equal slot" \
		test "$got" = "rstd|stat|f32|1|1|1|2|1|1 0 "

	expect_exit 0 "$D diff --format json of the one-ULP case" "$AB" diff last "ulp1_$D" --db "$db" --format json
	cp "$T/out" "$T/ulp1_$D.json"
	check "$D: valid abbench.diff" valid "$T/ulp1_$D.json"
	/usr/bin/python3 - "$T/ulp1_$D.json" "$ulp" <<'PY' && ok "$D diff json: 0.78125%, coordinates b=0 t=3 w=5, B = A + 1 ULP, the map's one cell, mean and rstd before out" || fail "$D diff json figures"
import json, sys
d = json.load(open(sys.argv[1])); ulp = float(sys.argv[2])
s = d["summary"]
assert s["tensor"] == "out" and s["differing"] == 1 and s["elements"] == 128 and s["percent"] == 100 / 128, s
assert s["max_ulp"] == 1 and s["departure"] == "out" and not s["nondeterministic"], s
(slot,) = d["slots"]
assert slot["label"] == "B" and not slot["byte_equal"] and slot["compared"] == ["mean", "rstd", "out"], slot
assert slot["departure"] == "out" and slot["determinism"]["calls_checked"] == 7, slot
(t,) = slot["tensors"]
assert t["axes"] == ["B", "T", "W"] and t["shape"] == [1, 8, 16] and t["ulp_histogram"]["1"] == 1, t
for k in ("max_ulp", "max_abs", "first"):
    e = t[k]
    assert e["coords"] == {"b": 0, "t": 3, "w": 5} and e["index"] == 53, (k, e)
    assert 1 <= e["a"] < 2 and e["b"] == e["a"] + ulp and e["b_bits"] == e["a_bits"] + 1 and e["ulp"] == 1, (k, e)
    assert e["reference"] is None and e["abs_diff"] == ulp, (k, e)
m = t["map"]
assert m["rows"] == 8 and m["cols"] == 16 and not m["by_head"], m
assert m["cells"][3][5] == 1 and sum(map(sum, m["cells"])) == 1, m
assert t["rows"] == 8 and t["rows_touched"] == 1 and t["reference"] is None and t["heatmap"] is None, t
PY
	expect_exit 0 "$D diff --format json of the NaN case" "$AB" diff last "nan_$D" --db "$db" --format json
	check "$D NaN: valid, B 'nan', A 1.5, no ULP, no largest |B - A|" /usr/bin/python3 -c "
import json, sys
d = json.load(open('$T/out')); t = d['slots'][0]['tensors'][0]
assert t['class_mismatches'] == 1 and t['max_ulp'] is None and t['max_abs'] is None, t
f = t['first']
assert f['a'] == 1.5 and f['b'] == 'nan' and f['ulp'] is None and f['abs_diff'] is None and f['coords'] == {'b': 0, 't': 2, 'w': 7}, f"
	valid "$T/out" || fail "$D NaN: schema"
	expect_exit 0 "$D diff text of the rstd case" "$AB" diff last "rstd_$D" --db "$db"
	check "$D rstd: mean equal, rstd differs, out equal; departs at rstd" \
		grep -q "compared       mean equal, rstd DIFFERS, out equal; the first stage that departs: 'rstd'" "$T/out"
	check "$D rstd: the case line says byte-equal, departs at rstd" grep -q "^B: byte-equal to A1; departs at 'rstd'; deterministic$" "$T/out"
	check "$D rstd: its element [b=0, t=2], one ULP" grep -q "largest ULP    1 ULP at \[b=0, t=2\] (element 2)" "$T/out"
done

# a damaged row is refused, naming its table
cp "$db" "$T/bad.db"
sqlite3 "$T/bad.db" "UPDATE divergence SET ulp_1 = ulp_1 + 1 WHERE rowid IN (SELECT rowid FROM divergence LIMIT 1)" 2>/dev/null ||
	sqlite3 "$T/bad.db" "UPDATE divergence SET ulp_1 = ulp_1 + 1 WHERE idx = 0 AND slot_id = (SELECT min(slot_id) FROM divergence)"
expect_exit 2 "a divergence whose histogram does not add up" "$AB" show last --db "$T/bad.db"
check "is refused naming the table and why" grep -q "bad row in table divergence.*n_diff 1 is not the histogram's 2" "$T/err"
finish
