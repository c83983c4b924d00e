#!/usr/bin/env bash
# Batch invariance (issue 29.5): a swept case with `invariance = rows`
# draws every case's inputs from the sweep's one stream, so row r of x is
# the same at T = 1, 5 and 9 (checked in the dumped .npy, and that a sweep
# without the key keeps each case's own stream); each arm's first slot's
# rows are held to the rows earlier cases produced: the reference arm is
# invariant ("yes across T = 1, 5, 9"), the planted rowvar arm breaks at
# row 0 (at T = 5 against T = 1, and at T = 9 against T = 1), stored per
# case and arm, in diff's text and JSON. The scenario's checks: the key on
# a case that sweeps nothing, a swept axis with an axis of extent above 1
# before it, an unknown value. Fake timer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/p.db"
plant_scenario "$T/p.ini"
expect_exit 0 "the planted run, dumped" "$AB" run "$T/p.ini" --db "$db" --no-progress --dump "$T/dump"

inv() { # case arm -> slot|rows_compared|first_row|other_value|tensor
	sqlite3 "$db" <<SQL
SELECT i.slot || '|' || i.rows_compared || '|' || i.first_row || '|' || i.other_value || '|' || i.tensor
FROM invariance i JOIN cases c ON c.id = i.case_id WHERE c.name = '$1' AND i.arm = '$2';
SQL
}
for D in $PLANT_DTYPES; do
	check "$D rowvar T=1: the sweep's first case, nothing to compare yet" test "$(inv "rowvar_$D[T=1]" b)" = "B|0|-1|0|"
	check "$D rowvar T=5: arm b's row 0 differs from T=1's (1 row compared)" test "$(inv "rowvar_$D[T=5]" b)" = "B|1|0|1|out"
	check "$D rowvar T=9: arm b's row 0 differs from T=1's (5 rows compared)" test "$(inv "rowvar_$D[T=9]" b)" = "B|5|0|1|out"
	check "$D rowvar T=9: arm a (the reference) invariant" test "$(inv "rowvar_$D[T=9]" a)" = "A1|5|-1|0|"
	got=$(sqlite3 "$db" <<SQL | tr '\n' ' '
SELECT count(*) FROM invariance i JOIN cases c ON c.id = i.case_id WHERE c.name LIKE 'inv_$D%' AND i.first_row = -1;
SELECT count(*) FROM invariance i JOIN cases c ON c.id = i.case_id WHERE c.name = 'ulp1_$D';
SQL
)
	check "$D inv: both arms invariant at every T; no invariance row for a case outside such a sweep" test "$got" = "6 0 "
	expect_exit 0 "$D diff of an invariant case" "$AB" diff last "inv_$D[T=5]" --db "$db"
	check "$D: batch-invariant: yes across T = 1, 5, 9" grep -q "^batch-invariant: yes across T = 1, 5, 9$" "$T/out"
	expect_exit 0 "$D diff of a case of the broken sweep" "$AB" diff last "rowvar_$D[T=1]" --db "$db"
	check "$D: where it breaks" grep -q "^batch-invariant: NO: arm b's row 0 of 'out' at T = 5 differs from the same row at T = 1$" "$T/out"
	expect_exit 0 "$D diff json" "$AB" diff last "rowvar_$D[T=9]" --db "$db" --format json
	check "$D json: the sweep's verdict and its break" /usr/bin/python3 -c "
import json; d = json.load(open('$T/out'))
v = d['invariance']
assert v['verdict'] == 'no' and v['values'] == [1, 5, 9] and v['checked'] == 3 and v['axis'] == 'T', v
assert v['break'] == {'arm': 'b', 'row': 0, 'value': 5, 'other_value': 1, 'tensor': 'out'}, v
assert d['summary']['batch_invariant'] == 'no'"
done

/usr/bin/python3 - "$T/dump" <<'PY' && ok "inputs: row r of x the same at T = 1, 5 and 9, for every dtype" || fail "inputs of the sweep"
import sys, numpy as np
d = sys.argv[1]
for D in ("bf16", "f16", "f32"):
    x = {t: np.load(f"{d}/rowvar_{D}[T={t}]/in_x.npy") for t in (1, 5, 9)}
    assert x[9].shape == (1, 9, 16)
    assert (x[1] == x[5][:, :1]).all() and (x[5] == x[9][:, :5]).all(), D
    assert len(np.unique(x[9])) > 20, D  # drawn, not constant
    # the two sweeps of one dtype draw from their own streams
    assert not (np.load(f"{d}/inv_{D}[T=9]/in_x.npy") == x[9]).all(), D
PY
sed 's/^invariance = rows$//' "$T/p.ini" >"$T/noinv.ini"
expect_exit 0 "the same sweeps without the key" "$AB" run "$T/noinv.ini" --db "$T/n.db" --no-progress --dump "$T/dump2"
/usr/bin/python3 - "$T/dump2" <<'PY' && ok "without it each case draws its own inputs (row 0 differs), and nothing is compared" || fail "without the key"
import sys, numpy as np
d = sys.argv[1]
a, b = np.load(f"{d}/rowvar_bf16[T=1]/in_x.npy"), np.load(f"{d}/rowvar_bf16[T=5]/in_x.npy")
assert not (a == b[:, :1]).all()
PY
check "no invariance rows without the key" test "$(sqlite3 "$T/n.db" 'SELECT count(*) FROM invariance')" -eq 0

# the scenario's checks
cat >"$T/bad.ini" <<EOF
[scenario]
name = bad
backend = cpu
[site s]
axes = B T W
tensors = x:bf16:B,T,W:input, out:bf16:B,T,W:output, m:f32:B,T:stat
[case c]
site = s
shape = 1x4x8
invariance = rows
a = plugin:$PLANT_LIB:ref_bf16
b = plugin:$PLANT_LIB:ref_bf16
EOF
expect_exit 2 "invariance = rows on a case that sweeps nothing" "$AB" run "$T/bad.ini" --db "$T/bad.db"
check "names the line and says what it needs" \
	grep -q "bad.ini:10: invariance: case 'c' sweeps no dimension: invariance = rows compares row r across a sweep's cases" "$T/err"
sed 's/^shape = 1x4x8$/shape = 2x{1,4}x8/' "$T/bad.ini" >"$T/outer.ini"
expect_exit 2 "a swept axis with an axis of extent 2 before it" "$AB" run "$T/outer.ini" --db "$T/bad.db"
check "names the tensor and the axis" grep -q "outer.ini:10: invariance: tensor 'x' has axis B = 2 before the swept axis T" "$T/err"
sed 's/^shape = 1x4x8$/shape = 1x4x{8,16}/' "$T/bad.ini" >"$T/inner.ini"
expect_exit 2 "sweeping the row's own axis" "$AB" run "$T/inner.ini" --db "$T/bad.db"
check "its tokens come before it" grep -q "inner.ini:10: invariance: tensor 'x' has axis T = 4 before the swept axis W" "$T/err"
sed 's/^invariance = rows$/invariance = cols/' "$T/bad.ini" >"$T/word.ini"
expect_exit 2 "an unknown value" "$AB" run "$T/word.ini" --db "$T/bad.db"
check "lists the values" grep -q "word.ini:10: invariance: 'cols' is not one of: none, rows" "$T/err"
check "nothing written" test ! -e "$T/bad.db"
finish
