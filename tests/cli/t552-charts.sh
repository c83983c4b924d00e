#!/usr/bin/env bash
# The report's charts a reviewer would paste (print/plot*.c): scales,
# keys, labels and margins, read from the scripts gnuplot is given, and
# drawn when gnuplot is installed. Fake timer, so every figure is known:
#   - box plots of arms 2x-4x apart are linear with numbers (log only
#     across more than a decade); a case planted 20x apart is logarithmic
#     with labelled 1-2-5 ticks;
#   - the speedup chart's bars take their colour from one palette that the
#     key shares; a drifted case (planted) is hatched with a key entry of
#     its own, a case that is not bit-exact (B = twopass) is outlined red
#     with its key entry and a red value; with two runs of six cases the
#     values stand upright above their whiskers (too narrow a bar for them
#     flat), with one run they lie flat; the
#     key sits below the chart; the x range ends half a row past the bars;
#   - the kernel chart is as wide as its bars and key need;
#   - the time series' key is beside its panels, not on the samples.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1 ABBENCH_PROFILES="$PWD/profiles"
db="$T/c.db"
cat >"$T/a.ini" <<'EOF'
[scenario]
name = charts
min_samples = 12
max_samples = 12
[arms]
a = eager
b = fused
[case ln_a]
site = ln_modulate
shape = 1x64x512
[case ln_b]
site = ln_continuous
shape = 1x128x512
[case qk]
site = qk_layernorm
shape = 1x16x4x64
[case ln_c]
site = ln_modulate
shape = 1x8x256
[case ln_d]
site = ln_modulate
shape = 1x16x256
[case ln_e]
site = ln_modulate
shape = 1x32x256
EOF
sed 's/^b = fused/b = twopass/; /^\[case qk\]/,$d' "$T/a.ini" >"$T/b.ini"
"$AB" run "$T/a.ini" --backend cpu --db "$db" --no-progress >/dev/null 2>&1
"$AB" run "$T/b.ini" --backend cpu --db "$db" --no-progress >/dev/null 2>&1
# run 1: ln_b's A2 slot 30% slower (drifted); qk's A arm 20x slower (its boxes span more than a decade);
# every figure of a slot scaled with its samples (the row check holds the quantiles in order)
sqlite3 "$db" "
UPDATE samples SET wall_ns = wall_ns * 1.3 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id = 1 AND c.name = 'ln_b' AND s.label = 'A2');
UPDATE slots SET median_ns = median_ns * 1.3, p10_ns = p10_ns * 1.3, p90_ns = p90_ns * 1.3, min_ns = min_ns * 1.3,
	max_ns = max_ns * 1.3, mean_ns = mean_ns * 1.3 WHERE id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id = 1 AND c.name = 'ln_b' AND s.label = 'A2');
UPDATE samples SET wall_ns = wall_ns * 20 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id = 1 AND c.name = 'qk' AND s.arm = 'a');
UPDATE slots SET median_ns = median_ns * 20, p10_ns = p10_ns * 20, p90_ns = p90_ns * 20, min_ns = min_ns * 20,
	max_ns = max_ns * 20, mean_ns = mean_ns * 20 WHERE id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id = 1 AND c.name = 'qk' AND s.arm = 'a');"

expect_exit 0 "report of one run" "$AB" report 1 --db "$db" --out "$T/one"
d="$T/one"
check "ln_a's boxes (4x apart): linear, numbered" bash -c "grep -qx 'unset logscale y' '$d/samples-ln_a.gp' && ! grep -q '^set logscale y' '$d/samples-ln_a.gp' && grep -qx 'set format y \"%g\"' '$d/samples-ln_a.gp'"
check "qk's boxes (20x apart): logarithmic" grep -qx 'set logscale y 10' "$d/samples-qk.gp"
check "with labelled 1-2-5 ticks" grep -Eq '^set ytics \("[0-9.e+-]+" [0-9.e+-]+(, "[0-9.e+-]+" [0-9.e+-]+){2,}\)$' "$d/samples-qk.gp"
check "the speedup bars' colour is the key's" grep -q "using 3:4:5:xtic(.*) lc rgb \"#0072b2\" title 'CPU fake timer" "$d/speedup.gp"
check "the drifted case hatched, with its key entry" \
	grep -q "with boxes fs transparent pattern 4 border lc rgb \"#555555\" lc rgb \"#555555\" title 'drifted: not trusted'" "$d/speedup.gp"
check "its data marks ln_b only" test "$(awk '!/^#/ && $6 != "?" { print $1 }' "$d/speedup.dat")" = '"ln_b"'
check "the key below the chart, the x range tight" bash -c "grep -q '^set key outside below center horizontal' '$d/speedup.gp' && grep -qx 'set xrange \[-0.5:5.5\]' '$d/speedup.gp'"
check "one run: the values flat above their whiskers" bash -c "grep -q 'with labels center offset 0,0.9' '$d/speedup.gp' && ! grep -q 'rotate by 90' '$d/speedup.gp'"
check "no red where all is bit-exact" bash -c "! grep -q 'c0392b' '$d/speedup.gp'"
w=$(sed -n 's/^set terminal pngcairo size \([0-9]*\),.*/\1/p' "$d/kernels-ln_a.gp")
check "the kernel chart no wider than its bars and key ($w px)" test "$w" -ge 640 -a "$w" -le 900
check "its x range holds the two bars" grep -qx 'set xrange \[-0.6:1.6\]' "$d/kernels-ln_a.gp"
check "the time series' key beside the panels" grep -q '^set key outside right top vertical' "$d/series-ln_a.gp"

expect_exit 0 "report of the two runs (B fused, then twopass)" "$AB" report 1 2 --db "$db" --out "$T/two"
d="$T/two"
check "the inexact bars outlined red, with their key entry" \
	grep -q "with boxes fs empty border lc rgb \"#c0392b\" lw 3 lc rgb \"#c0392b\" title 'not bit-exact: B’s bytes differ from A’s, or calls disagree'" "$d/speedup.gp"
check "marked in run 2's columns only" test "$(awk '!/^#/ { print $7 "/" $14 }' "$d/speedup.dat" | tr '\n' ' ')" = "?/1 ?/1 ?/? ?/? ?/? ?/? "
check "their values red" grep -q 'textcolor rgb "#c0392b" notitle' "$d/speedup.gp"
check "two runs: the values upright" grep -q 'with labels rotate by 90 left offset 0,0.5' "$d/speedup.gp"
check "series in the palette's second colour" grep -q "lc rgb \"#e69f00\" title 'run 2: A eager, B twopass" "$d/speedup.gp"
# Long case names: the labels turn 30 degrees and end at their ticks, so
# the plot's left edge moves right until the first one fits the image.
cp "$db" "$T/long.db"
sqlite3 "$T/long.db" "UPDATE cases SET name = 'img_ln_modulate_' || name || '[T=16384]'"
"$AB" report 1 --db "$T/long.db" --out "$T/long" --no-plots >/dev/null 2>&1
check "long names: the labels turned" grep -q '^set xtics rotate by 30 right' "$T/long/speedup.gp"
check "and the left margin made room for the first" grep -Eq '^set lmargin at screen 0\.[0-9]+$' "$T/long/speedup.gp"
check "short names: gnuplot's own margin" bash -c "! grep -q lmargin '$T/one/speedup.gp'"
if command -v gnuplot >/dev/null; then
	for png in "$T"/one/*.png "$T/two/speedup.png"; do
		check "$(basename "$png") is a whole PNG" test "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
	done
	check "every chart of run 1 drawn" test "$(ls "$T"/one/*.png | wc -l)" -eq 19
	check "gnuplot said nothing" test ! -s "$T/err"
	cp "$T/two/speedup.png" "$(dirname "$AB")/charts-speedup-marks.png"
else
	echo "ok - # SKIP gnuplot not installed"
fi
finish
