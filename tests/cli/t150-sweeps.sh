#!/usr/bin/env bash
# Sweeps in scenarios: tests/scenarios/sweep_small.ini expands into one case
# per value, named CASE[T=N] and stored with their sweep, axis and value;
# `--only` takes names and globs; bad sweeps and expansions past the
# limits stop the run with FILE:LINE and exit 2, leaving the database
# without a run. Fake timer: the run takes a second.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
db="$T/s.db"
scn=tests/scenarios/sweep_small.ini

expect_exit 0 "run the sweeps" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --label all
names=$(sqlite3 "$db" "SELECT name FROM cases ORDER BY ordinal" | tr '\n' ' ')
check "expanded in place and in written order ($names)" \
	test "$names" = "ln[T=16] ln[T=32] ln[T=64] ln[T=128] qk[T=64] qk[T=16] plain "
v=$(sqlite3 "$db" -separator : "SELECT sweep, axis, axis_value, shape FROM cases ORDER BY ordinal" | tr '\n' ' ')
check "each stores its sweep, axis and value" test "$v" = "ln:T:16:1x16x256 ln:T:32:1x32x256 ln:T:64:1x64x256 ln:T:128:1x128x256 qk:T:64:1x64x4x64 qk:T:16:1x16x4x64 ::0:1x16x256 "
expect_exit 0 "show" "$AB" show --db "$db"
check "show names the expanded cases" grep -q '^case qk\[T=16\]  site qk_layernorm  shape 1x16x4x64 ' "$T/out"
expect_exit 0 "export" "$AB" export --db "$db" --csv "$T/s.csv"
csv_cell() { # file case slot column
	python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["case"] == sys.argv[2] and r["slot"] == sys.argv[3]: print(r[sys.argv[4]])' "$@"
}
check "the CSV carries sweep, axis and axis_value" \
	test "$(csv_cell "$T/s.csv" 'ln[T=64]' B sweep)/$(csv_cell "$T/s.csv" 'ln[T=64]' B axis)/$(csv_cell "$T/s.csv" 'ln[T=64]' B axis_value)" = ln/T/64

# --only: exact names (brackets are not a glob there), globs, lists
only() { # pattern: the case names of the run it makes
	"$AB" run "$scn" --backend cpu --db "$db" --no-progress --only "$1" >/dev/null &&
		sqlite3 "$db" "SELECT group_concat(name, ' ') FROM cases WHERE run_id = (SELECT max(id) FROM runs)"
}
check "--only 'ln[T=32]' is that case" test "$(only 'ln[T=32]')" = "ln[T=32]"
check "--only 'ln*' is the sweep" test "$(only 'ln*')" = "ln[T=16] ln[T=32] ln[T=64] ln[T=128]"
check "--only 'qk*,plain' keeps scenario order" test "$(only 'plain,qk*')" = "qk[T=64] qk[T=16] plain"
check "--only '*[[]T=16]' across sweeps" test "$(only '*[[]T=16]')" = "ln[T=16] qk[T=16]"
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs")
expect_exit 2 "--only matching nothing" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --only 'ln*,nope*'
check "names the pattern and the cases" grep -q "no case matches 'nope\*' in '$scn' (cases: ln\[T=16\], " "$T/err"
expect_exit 2 "--only with an empty pattern" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --only 'ln*,'
now=$(sqlite3 "$db" "SELECT count(*) FROM runs")
check "neither left a run row" test "$now" -eq "$runs"

# bad sweeps: FILE:LINE, exit 2, nothing stored
bad() { # description, shape line, expected message after FILE:3:
	printf '[case c]\nsite = ln_modulate\nshape = %s\n' "$2" >"$T/bad.ini"
	expect_exit 2 "$1" "$AB" run "$T/bad.ini" --backend cpu --db "$db" --no-progress
	check "  says '$3'" grep -qF "$T/bad.ini:3: shape: $3" "$T/err"
}
bad "unclosed sweep" '1x{16,32x256' "'1x{16,32x256' opens a sweep with '{' and never closes it"
bad "two swept dimensions" '{1,2}x{16,32}x256' "'{1,2}x{16,32}x256' sweeps more than one dimension (one per case)"
bad "factor 1" '1x{16:64:x1}x256' "sweep '16:64:x1' multiplies by 1: the factor must be at least 2"
bad "past 64 values" '1x{1:100:+1}x256' "sweep '1:100:+1' has more than 64 values (the limit of one sweep)"
bad "a value the site rejects" '1x16x{256,250}' "site 'ln_modulate' rejects '1x16x250' (W=250 of the sweep)"
for i in $(seq 1 17); do printf '[case c%d]\nsite = residual_gate_add\nshape = 1x{1:64:+1}x4\n' "$i"; done >"$T/many.ini"
expect_exit 2 "17 x 64 cases: past the 1024 limit" "$AB" run "$T/many.ini" --backend cpu --db "$db" --no-progress
check "  at the case that crosses it" grep -qF "$T/many.ini:51: [case c17]: the scenario expands to more than 1024 cases (the limit)" "$T/err"
now=$(sqlite3 "$db" "SELECT count(*) FROM runs")
check "no run row from any of them" test "$now" -eq "$runs"
finish
