#!/usr/bin/env bash
# The stopping rule's noise measure: the median's interval by default,
# `noise_measure = mean` for the rule before it; the run records which,
# show and the report name it, a slot's stored noise is that measure, and
# a bad value is a FILE:LINE error. On the fake timer (+-0.5% noise), with
# min_time_ms out of the way, both rules end every slot by target_noise at
# min_samples (10).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1 ABBENCH_PROFILES="$PWD/profiles"
db="$T/n.db"
scn=tests/scenarios/sweep_small.ini

sed 's/^min_time_ms = .*/min_time_ms = 0.001/' "$scn" >"$T/med.ini"
sed 's/^\[scenario\]$/[scenario]\nnoise_measure = mean/' "$T/med.ini" >"$T/mean.ini"
expect_exit 0 "median rule (the default)" "$AB" run "$T/med.ini" --backend cpu --db "$db" --no-progress --label med
expect_exit 0 "mean rule" "$AB" run "$T/mean.ini" --backend cpu --db "$db" --no-progress --label mean
v=$(sqlite3 -separator : "$db" "SELECT label, noise_measure FROM runs" | tr '\n' ' ')
check "each run records its measure" test "$v" = "med:median mean:mean "
v=$(sqlite3 "$db" "SELECT count(*) FROM slots s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = 'med' AND s.stopping_reason != 'target_noise'")
check "median: every slot ended by target_noise" test "$v" -eq 0
v=$(sqlite3 -separator ' ' "$db" "SELECT min(n_samples), max(n_samples) FROM slots")
check "both: 10 samples a slot, the minimum" test "$v" = "10 10"
v=$(sqlite3 "$db" "SELECT count(*) FROM slots WHERE stopping_reason != 'target_noise'")
check "mean: every slot ended by target_noise too" test "$v" -eq 0
v=$(sqlite3 "$db" "SELECT max(noise) < 0.005 FROM slots s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 1")
check "median: the stored noise is under the 0.005 target" test "$v" -eq 1
expect_exit 0 "show" "$AB" show med --db "$db"
check "show names the measure" grep -q '  noise median$' "$T/out"
expect_exit 0 "report" "$AB" report med --db "$db" --out "$T/rep" --no-plots
check "the report explains the noise column" grep -q "relative noise (half-width of the median's 95% interval over the median)" "$T/rep/report.md"
expect_exit 0 "report of the mean run" "$AB" report mean --db "$db" --out "$T/rep2" --no-plots
check "that one says stdev / mean" grep -q 'relative noise (stdev / mean)' "$T/rep2/report.md"

printf '[scenario]\nnoise_measure = mad\n[case c]\nsite = ln_modulate\nshape = 1x16x256\n' >"$T/bad.ini"
expect_exit 2 "noise_measure = mad" "$AB" run "$T/bad.ini" --backend cpu --db "$db" --no-progress
check "FILE:LINE" grep -qF "$T/bad.ini:2: noise_measure: 'mad' is not one of: median, mean" "$T/err"
finish
