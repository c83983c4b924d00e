#!/usr/bin/env bash
# Python arms of a declared site (docs/SITES.md, docs/PYTHON_ARMS.md): t
# holds the site's tensors by its own axes (multi-letter names, a scalar)
# in every dtype (i32, f16, f32, u8, i64), inputs read-only, and d's axes
# are the site's axis names in order with the case's values, its dims its
# largest tensor's rows
# (tests/data/python/declared_tensors.py raises otherwise). Two arms of
# one function are byte-equal, one that gathers the next row is not, and
# a declared site's outputs have no reference. A site of nine inputs
# runs with its copy floor 'not measured', saying why. Fake timer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/d.db"
mod="$PYDATA/declared_tensors.py"
scenario() { # FILE B_FUNCTION
	cat >"$1" <<EOT
[scenario]
name = declared_python
backend = cpu
min_samples = 3
max_samples = 3
[site gather_bias]
axes = Seq K2 V E
tensors = idx:i32:Seq,K2:input, table:f16:V,E:input, bias:f32:E:input, mask:u8:Seq:input, n:i64::input
tensor.out = f16:Seq,K2,E:output
tensor.acc = f32:Seq,E:scratch
input.idx = randint(0, V)
input.mask = randint(0, 2)
input.n = constant(7)
[arm py_a]
type = python
module = $mod
function = gather
[arms]
a = py_a
b = python:$mod:$2
[case small]
site = gather_bias
shape = 4x3x10x8
[case wide]
site = gather_bias
shape = 2x5x33x16
EOT
}
scenario "$T/same.ini" gather
expect_exit 0 "a python arm of a declared site, each side" "$AB" run "$T/same.ini" --db "$db" --label same --no-progress
seen() { grep -c "^declared_tensors: $1\$" "$T/err"; }
check "t and d as the site declares them (small)" test "$(seen 'small gather_bias axes=Seq=4,K2=3,V=10,E=8')" -ge 2
check "t and d as the site declares them (wide)" test "$(seen 'wide gather_bias axes=Seq=2,K2=5,V=33,E=16')" -ge 2
expect_exit 0 "show it" "$AB" show same --db "$db"
check "byte-equal in both cases" test "$(grep -c '^  b byte-equal to a: yes$' "$T/out")" -eq 2
check "no reference" grep -q 'no reference' "$T/out"
check "outputs stored without a reference" test "$(sqlite3 "$db" 'SELECT count(*) FROM outputs WHERE has_ref = 1')" -eq 0

scenario "$T/off.ini" gather_off_by_one
expect_exit 0 "an arm that gathers the next row" "$AB" run "$T/off.ini" --db "$db" --label off --no-progress
expect_exit 0 "show it" "$AB" show off --db "$db"
check "not byte-equal in either case" test "$(grep -c '^  b byte-equal to a: NO$' "$T/out")" -eq 2

# A declared site of more inputs than the copy floor takes (9; it takes 8
# a stream) is measured without a floor, which says why.
cat >"$T/nine.ini" <<EOT
[scenario]
name = nine_inputs
backend = cpu
min_samples = 3
max_samples = 3
[site nine]
axes = N
tensors = i0:f32:N:input, i1:f32:N:input, i2:f32:N:input, i3:f32:N:input, i4:f32:N:input, i5:f32:N:input
tensor.i6 = f32:N:input
tensor.i7 = f32:N:input
tensor.i8 = f32:N:input
tensor.out = f32:N:output
[arms]
a = python:$mod:copy_first
b = python:$mod:copy_first
[case c]
site = nine
shape = 64
EOT
expect_exit 0 "a declared site of nine inputs" "$AB" run "$T/nine.ini" --db "$db" --label nine --no-progress
expect_exit 0 "show it" "$AB" show nine --db "$db"
check "its copy floor not measured, saying why" grep -q "^  copy floor: not measured (site 'nine' has 9 inputs, the copy floor takes at most 8)$" "$T/out"
no_floor="SELECT count(*) FROM cases WHERE name = 'c' AND copy_floor_ns IS NULL"
check "stored with no floor" test "$(sqlite3 "$db" "$no_floor")" -eq 1
finish
