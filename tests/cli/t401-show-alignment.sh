#!/usr/bin/env bash
# show's and run's tables stay in line whatever the arms are called (issue
# 33.6): a plugin arm declared under a 31-character name (as long as
# declared Python arms such as py_triton_f32_blocked_rows get) and a case
# with arms of its own. tests/tools/text_columns.py checks every table of
# the output: each row has the head's columns, a word column starts where
# its head starts and a number column ends where its head ends. Before the
# tables were sized to their cells, run's closing table printed
# "A eager  B py_triton_..." heads 12 wide: every row after them was out of
# line (the check fails on that output: the last check). No table prints
# nan where a figure is unknown. (About 3 s.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
lib="$(dirname "$AB")/examples/plugin/librga_plugin.so"
long=rga_exact_declared_plugin_arm31
cat >"$T/long.ini" <<INI
[scenario]
name = long_arms
min_samples = 10
max_samples = 10
min_time_ms = 1
max_time_ms = 600000

[arms]
a = eager
b = $long

[arm $long]
type = plugin
site = residual_gate_add
library = $lib
name = rga_exact

[case gate]
site = residual_gate_add
shape = 1x16x256

[case gate_wide_shape_and_long_name]
site = residual_gate_add
shape = 1x1024x4096

[case own]
site = residual_gate_add
shape = 1x8x64
a = $long
b = eager
INI
expect_exit 0 "a run with a 31-character arm name" "$AB" run "$T/long.ini" --backend cpu --no-progress --db "$T/l.db"
cp "$T/out" "$T/run.txt"
check "its closing table names the long arm in a head" grep -q "B $long median" "$T/run.txt"
check "the closing table's columns line up" python3 tests/tools/text_columns.py "$T/run.txt"
expect_exit 0 "show" "$AB" show --db "$T/l.db"
cp "$T/out" "$T/show.txt"
check "show's slot tables name the arm as a variant" grep -Eq "^  B +b +$long " "$T/show.txt"
check "show's slot tables line up" python3 tests/tools/text_columns.py "$T/show.txt"
check "the case with its own arms says them after its row" grep -Eq "^own .*  a=$long b=eager$" "$T/run.txt"

# Never nan: a declared site (no float64 reference) with 3 samples a slot
# (no noise figure) printed "nan" in the report's brackets, Accuracy and
# Sampling tables; every unknown figure reads n/a.
decl="$(dirname "$AB")/examples/plugin/libdeclared_plugin.so"
cat >"$T/decl.ini" <<INI
[scenario]
name = declared
include = $PWD/scenarios/sites/modulate_scale_shift.ini
min_samples = 3
max_samples = 3
min_time_ms = 1
max_time_ms = 600000

[arms]
a = plugin:$decl:mss_eager
b = plugin:$decl:mss_fused

[case mod]
site = modulate_scale_shift
shape = 1x64x256
INI
expect_exit 0 "a declared site's run, 3 samples a slot" "$AB" run "$T/decl.ini" --backend cpu --no-progress --db "$T/d.db"
expect_exit 0 "its report" "$AB" report --db "$T/d.db" --out "$T/drep" --no-plots
check "its outputs have no reference" grep -q '| no reference |' "$T/drep/report.md"
check "and the report prints no nan" bash -c "! grep -Eiw 'nan%?' '$T/drep/report.md'"
expect_exit 0 "show" "$AB" show --db "$T/d.db"
check "nor does show" bash -c "! grep -Eiw 'nan%?' '$T/out'"

# The checker fails on a table out of line: this run's closing table as
# abbench printed it before (fixed widths: the head's arm names ran into
# each other, a long case name pushed its row out).
cat >"$T/old.txt" <<'TXT'
case                     shape               A eager B rga_exact_declared_plugin_arm31  speedup [95% CI]           n A/B     bit-exact verdict
gate                     1x16x256            8.09 us      4.04 us  2.000x [1.994, 2.006]      20/10     yes       faster
gate_wide_shape_and_long_name 1x1024x4096        4.196 ms     2.098 ms  2.000x [1.994, 2.006]      20/10     yes       faster
TXT
check "the checker catches a table out of line" bash -c "! python3 tests/tools/text_columns.py '$T/old.txt' >/dev/null"
finish
