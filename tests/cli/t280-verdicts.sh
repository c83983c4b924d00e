#!/usr/bin/env bash
# One verdict per case (analysis/summary.h), printed by every printer.
# A fake-timer run of tests/scenarios/sweep_small.ini (7 cases, every one
# 2x-4x faster) with one case's A2 slot made 30% slower in the database:
# that case drifted (30% > the CPU profile's 5% noise floor). Before, the
# report opened "**FASTER**: ... faster beyond noise in 7 of 7" with the
# drifted case's 4.597x in bold; now the headline counts it apart, it is
# not bold, and show, the CSV, JSON, compare and the charts mark it. Then
# run's closing table marks drift on its own (a --quick run of smoke.ini
# on the fake timer with a drift planted into it, ABBENCH_FAKE_DRIFT: every
# case's A2 10-25% above its A1, beyond the profile's 5% noise floor;
# before, a real-timer run under a 0.001% floor, whose verdict a slot
# median equal to the nanosecond could flip).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/v.db" ABBENCH_PROFILES="$PWD/profiles"
ABBENCH_FAKE_TIMER=1 "$AB" run tests/scenarios/sweep_small.ini --backend cpu --no-progress >/dev/null 2>&1
sqlite3 "$ABBENCH_DB" "
UPDATE samples SET wall_ns = wall_ns * 1.3 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.name = 'ln[T=32]' AND s.label = 'A2');
UPDATE slots SET median_ns = median_ns * 1.3 WHERE label = 'A2' AND case_id IN (SELECT id FROM cases WHERE name = 'ln[T=32]');"

expect_exit 0 "report" "$AB" report --out "$T/r"
md="$T/r/report.md"
check "the headline counts the drifted case apart and keeps the word" grep -q \
	'^\*\*FASTER\*\*: B `fused` vs A `eager`: faster in 6 of 7 cases (speedup 2.00x to 4.00x), drifted 1 (not trusted), slower 0, no clear change 0; bit-exact in 7 of 7' "$md"
check "its speedup is not bold, its verdict says drifted" \
	grep -Eq '^\| `ln\[T=32\]` \|.*\| 4\.[0-9]{3}x \[[0-9.]+, [0-9.]+\] \| yes \| drifted 30\.00% \(not trusted\) \|$' "$md"
check "the six others are bold and faster" test "$(grep -Ec '\| \*\*[0-9.]+x\*\* \[[0-9.]+, [0-9.]+\] \| yes \| faster \|$' "$md")" -eq 6
check "the speedup chart hatches it and its key says why" \
	grep -q "with boxes fs transparent pattern 4 .* title 'drifted: not trusted'" "$T/r/speedup.gp"
check "the sweep chart crosses it out" grep -q "title 'drifted: not trusted'" "$T/r/sweep-ln.gp"
check "its box plot names the drift" grep -q 'DRIFTED 30.00%: not trusted' "$T/r/samples-ln_T_32_.gp"

expect_exit 0 "show" "$AB" show
check "show prints each case's verdict" test "$(grep -c '^  verdict: faster$' "$T/out")" -eq 6
check "and the drifted one" grep -q '^  verdict: drifted 30.00% (not trusted)$' "$T/out"
expect_exit 0 "export --csv" "$AB" export --out "$T/e.csv"
check "the CSV's verdict column" python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$T/e.csv')))
v = {r['case']: r['verdict'] for r in rows}
sys.exit(not (v['ln[T=32]'] == 'drifted' and sum(x == 'faster' for x in v.values()) == 6))"
expect_exit 0 "show --json" "$AB" show --json
check "JSON: the case's verdict and the run's counts" python3 -c "
import json, sys
d = json.load(open('$T/out'))
c = {x['name']: x['summary']['verdict'] for x in d['cases']}
sys.exit(not (c['ln[T=32]'] == 'drifted' and d['verdict']['word'] == 'FASTER' and d['verdict']['counts']['drifted'] == 1))"
expect_exit 0 "compare the run with itself" "$AB" compare 1 1
check "compare marks the drifted case" grep -q '^| `ln\[T=32\]` |.*; drifted in the first run (A arm 30.00%, and in the second): not trusted |' "$T/out"

# run's closing table, held to the device profile: +100% per modelled ms
# of each case, whose A1 and A2 (up to 10 samples each of at most 4 steps
# of about 4 us) sit 0.1-0.25 ms apart
expect_exit 0 "a fake-timer run with a planted drift" env ABBENCH_FAKE_TIMER=1 ABBENCH_FAKE_DRIFT=linear:100@1 \
	"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$T/q.db"
cases=$(grep -c '^\[case ' scenarios/smoke.ini)
check "the closing table marks every case drifted" test "$(grep -Ec ' drifted [0-9.]+% \(not trusted\)$' "$T/out")" -eq "$cases"
check "and counts them last" grep -Eq "^verdict: faster in 0 of $cases cases, drifted $cases \(not trusted\)" "$T/out"
finish
