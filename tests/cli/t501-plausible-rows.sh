#!/usr/bin/env bash
# Stored figures are plausible or refused (issue 31 item 2, row 7): a run
# edited by hand with a median of -1 ns, a kernel sum of -5 ns, a copy
# bandwidth of 1e308 GB/s, quantiles out of order, a mean past the max, a
# kernel record of -5 ns, a copy floor faster than any device, more
# mismatches than bytes, a negative error, a temperature of 5000 C, a
# slot of 23 days. `show` exits 2 naming the table, the row and the
# field, and so do the other readers (here show --json and export, and
# the gate for its baseline); the unedited run shows (exit 0). Before:
# each was printed as if measured.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --only ln_modulate_short --db "$T/good.db" >/dev/null
expect_exit 0 "the run as measured shows" "$AB" show 1 --db "$T/good.db"
slot_b="(SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 1 AND s.position = 1)"
# name|SQL|what the message must hold
cases=(
	"median -1 ns|UPDATE slots SET median_ns = -1 WHERE id = $slot_b|table slots (run 1, case 'ln_modulate_short' (ordinal 0), slot 'B' (position 1)): median_ns is -1, not a time"
	"kernel sum -5 ns|UPDATE slots SET kernel_median_ns = -5 WHERE id = $slot_b|slot 'B' (position 1)): kernel_median_ns is -5, not a time"
	"copy 1e308 GB/s|UPDATE devices SET copy_gbps = 1e308|table devices (run 1, device 1): copy_gbps is 1e+308, not a bandwidth"
	"p10 above the median|UPDATE slots SET p10_ns = median_ns * 2 WHERE id = $slot_b|p10_ns"
	"mean past the max|UPDATE slots SET mean_ns = max_ns * 3 WHERE id = $slot_b|is above max_ns"
	"a 23-day slot|UPDATE slots SET elapsed_s = 2e6 WHERE id = $slot_b|elapsed_s is 2e+06, not a time"
	"negative noise|UPDATE slots SET noise = -0.5 WHERE id = $slot_b|noise is -0.5, not a relative spread"
	"5000 C|UPDATE slots SET before_temp_c = 5000 WHERE id = $slot_b|before_temp_c is 5000, not -273 to 1000"
	"a sample of 2e15 ns|UPDATE samples SET wall_ns = 2e15 WHERE slot_id = $slot_b AND idx = 0|table samples (run 1, case 'ln_modulate_short' (ordinal 0), slot 'B' (position 1), sample 0): wall_ns is 2e+15, not a time"
	"a kernel record of -5 ns|UPDATE kernel_times SET total_ns = -5 WHERE slot_id = $slot_b|table kernel_times (run 1, case 'ln_modulate_short' (ordinal 0), slot 'B' (position 1), kernel record 0): total_ns is -5, not a time"
	"a copy floor faster than any device|UPDATE cases SET copy_floor_ns = 1e-300|table cases (run 1, case 'ln_modulate_short' (ordinal 0)): copy_floor_ns 1e-300 ns for"
	"more mismatches than bytes|UPDATE outputs SET mismatches = bytes + 1 WHERE slot_id = $slot_b|mismatches"
	"a negative error|UPDATE outputs SET max_abs_err = -1 WHERE slot_id = $slot_b|max_abs_err is -1, not an error's size"
	"a negative eps|UPDATE cases SET eps = -1|eps is -1, not a LayerNorm epsilon"
)
for c in "${cases[@]}"; do
	IFS='|' read -r name sql want <<<"$c"
	rm -f "$T"/bad.db*
	cp "$T/good.db" "$T/bad.db"
	sqlite3 "$T/bad.db" "$sql"
	expect_exit 2 "$name: show refuses the run" "$AB" show 1 --db "$T/bad.db"
	check "$name: naming the row and the field" grep -qF "$want" "$T/err"
	check "$name: printing none of it" test ! -s "$T/out"
	other=""
	for r in "show --json" "export --csv $T/x.csv"; do
		rc=0
		# shellcheck disable=SC2086 # the reader's words
		"$AB" $r --db "$T/bad.db" >/dev/null 2>"$T/err2" || rc=$?
		{ [ "$rc" -eq 2 ] && grep -qF "$want" "$T/err2"; } || other="${other:-$r: exit $rc}"
	done
	check "$name: show --json and export refuse it too${other:+ ($other)}" test -z "$other"
done
# the gate names the bad row of its baseline too (before: "no baseline or run '1'", found by the probe)
rm -f "$T"/bad.db*
cp "$T/good.db" "$T/bad.db"
sqlite3 "$T/bad.db" "UPDATE devices SET copy_gbps = 1e308"
expect_exit 2 "gate against a baseline run whose device row is implausible" "$AB" gate 1 --baseline 1 --db "$T/bad.db"
check "it names the bad row, not a missing run" grep -q "bad row in table devices (run 1, device 1): copy_gbps is 1e+308" "$T/err"
finish
