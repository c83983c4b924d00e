#!/usr/bin/env bash
# show, report and the CSV export print the same figures for the same run
# (tests/tools/summary_agree.py, the lines show prints in words), and every
# row of the table of figures (analysis/figures.h, `abbench figures --format
# json`) is the same figure in every view that prints it: CSV, the
# abbench.show JSON, show's slot tables, run's closing table and the
# report's Summary, Bandwidth and Sweeps tables (tests/tools/figures_agree.py
# loops over the rows and formats each value by its hint). Per run:
# per case the pooled A and B medians (p10, p90, sample counts), the speedup
# with its 95% interval, the A drift, the exactness verdict and each arm's GB/s
# (tests/tools/summary_agree.py parses all three). Three runs: smoke on the
# fake timer; a real-timer --quick run of it (drift not zero, intervals of
# real noise); the twopass scenario, whose B arm is not byte-equal. Before
# the summary layer, show bootstrapped with its own seed and printed
# ln_modulate_short's interval as [3.991, 4.009] where report printed
# [3.991, 4.010]: the first run's checks catch that. Two more runs reach the
# round's rows: host times a call planted in a fake smoke run (its last
# case measured again by --resume, without: the columns of host time and
# the launch-bound mark, known and unknown), and the planted divergences
# of tests/plugins/div_plant.c in bf16 (the report's Where the bits differ).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_DB="$T/s.db"

expect_exit 0 "fake-timer smoke run" env ABBENCH_FAKE_TIMER=1 "$AB" run scenarios/smoke.ini --backend cpu --label fake --no-progress
cp "$T/out" "$T/fake.run"
expect_exit 0 "real-timer smoke run" "$AB" run scenarios/smoke.ini --backend cpu --quick --label real --no-progress
cp "$T/out" "$T/real.run"
expect_exit 0 "twopass run (B not byte-equal)" "$AB" run tests/scenarios/twopass_smoke.ini --backend cpu --quick --label twopass --no-progress
cp "$T/out" "$T/twopass.run"
expect_exit 0 "a run with a sweep, an ABABA bracket and a case of its own arms" env ABBENCH_FAKE_TIMER=1 \
	"$AB" run tests/scenarios/golden_mixed.ini --backend cpu --label mixed --no-progress
cp "$T/out" "$T/mixed.run"
expect_exit 0 "a fake smoke run for planted host times" env ABBENCH_FAKE_TIMER=1 "$AB" run scenarios/smoke.ini \
	--backend cpu --label host --no-progress
id=$(plant_host "$ABBENCH_DB" host ln_modulate) || fail "plant host times"
expect_exit 0 "its last case measured again (--resume), no host time" env ABBENCH_FAKE_TIMER=1 \
	"$AB" run scenarios/smoke.ini --resume "$id" --backend cpu --no-progress
cp "$T/out" "$T/host.run"
check "the closing table has host and launch-bound columns" grep -q 'B fused host a call .* B fused launch-bound$' "$T/host.run"
PLANT_DTYPES=bf16
plant_scenario "$T/plants.ini"
expect_exit 0 "the planted divergences (bf16)" env ABBENCH_FAKE_TIMER=1 "$AB" run "$T/plants.ini" --label plants --no-progress
cp "$T/out" "$T/plants.run"
"$AB" figures --format json >"$T/figures.json" || fail "figures --format json"

for run in fake real twopass mixed host plants; do
	"$AB" show "$run" >"$T/$run.show" || fail "show $run"
	"$AB" show "$run" --format json >"$T/$run.json" || fail "show $run --format json"
	"$AB" report "$run" --out "$T/$run-report" --no-plots >/dev/null 2>&1 || fail "report $run"
	"$AB" export "$run" --csv "$T/$run.csv" || fail "export $run"
	if [ "$run" = plants ]; then
		: # summary_agree.py reads the built-in sites' tables; figures_agree.py below reads every row
	elif python3 tests/tools/summary_agree.py "$T/$run.show" "$T/$run-report/report.md" "$T/$run.csv" >"$T/$run.agree"; then
		ok "$run: show, report and export agree ($(grep -c '^ok' "$T/$run.agree") checks)"
	else
		fail "$run: show, report and export disagree"
		grep '^not ok' "$T/$run.agree" | sed 's/^/    /'
	fi
	# every row of the table of figures, in every view that prints it
	if python3 tests/tools/figures_agree.py "$T/figures.json" "$T/$run.json" "$T/$run.csv" "$T/$run.show" \
		"$T/$run.run" "$T/$run-report/report.md" >"$T/$run.figs"; then
		ok "$run: every figure row agrees in csv, json, show, run and report ($(grep '^ok' "$T/$run.figs" |
			sed 's/^ok - //' | paste -sd ';' | sed 's/;/; /g'))"
	else
		fail "$run: a figure row disagrees between views"
		grep '^not ok' "$T/$run.figs" | head -10 | sed 's/^/    /'
	fi
done

# The checker itself fails on a disagreement: one interval bound changed in show.
sed -E '0,/speedup ([0-9.]+)x \[([0-9.]+), /s//speedup \1x [9\2, /' "$T/fake.show" >"$T/bad.show"
sed -E '0,/  B +b +fused +([0-9]+) /s//  B    b    fused   9\1 /' "$T/fake.show" >"$T/bad2.show"
check "the figures checker catches a changed cell of show's slot table" \
	bash -c "! python3 tests/tools/figures_agree.py '$T/figures.json' '$T/fake.json' '$T/fake.csv' '$T/bad2.show' \
		'$T/fake.run' '$T/fake-report/report.md' >/dev/null"
sed -E '0,/\| yes \| faster \|$/s//| **no** | faster |/' "$T/fake-report/report.md" >"$T/bad.md"
check "and a changed cell of the report" \
	bash -c "! python3 tests/tools/figures_agree.py '$T/figures.json' '$T/fake.json' '$T/fake.csv' '$T/fake.show' \
		'$T/fake.run' '$T/bad.md' >/dev/null"
check "the checker catches a changed interval bound" \
	bash -c "! python3 tests/tools/summary_agree.py '$T/bad.show' '$T/fake-report/report.md' '$T/fake.csv' >/dev/null"
check "the twopass run has a case that is not bit-exact" grep -q '^ok - .*exactness (False)' "$T/twopass.agree"
check "the host run's report has the columns of host time and the launch-bound mark" \
	grep -q '| A eager host a call | B fused host a call | .* | B fused launch-bound |$' "$T/host-report/report.md"
check "and show its host column" grep -q '^  slot .* kernel-sum  *host  *stopped by' "$T/host.show"
check "the plants run's divergence table was checked" grep -q 'report Where the bits differ cells: [1-9]' "$T/plants.figs"
check "the real-timer run has a drift above 0" grep -Eq "^ok - .*show's drift (0\.0[1-9]|0\.[1-9]|[1-9])" "$T/real.agree"
finish
