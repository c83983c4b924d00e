#!/usr/bin/env bash
# Comparisons without false alarms, and the commands around them:
#   - compare holds a significant change to the gate's floors: an A/A pair
#     whose B arm moved +1.56% (every sample scaled in the database, as a
#     shared machine shifts a whole run) has p < 0.01 but is "no change
#     beyond the floors" (CPU profile: 15% threshold); with --no-floors it
#     is "slower (+1.56%)", the old verdict; a planted regression (b =
#     eager) is still slower;
#   - compare reads RUN_B from a second database (--db-b) and names both;
#   - list shows the commit, filters by scenario, label and count, hides the
#     re-measurement runs (run --recheck, whatever their label) unless
#     --rechecks, and no other run (a label ending in -recheck is a label);
#   - run ends with the summary table; --progress shows elapsed time and an
#     estimate of the time left.
# Fake timer (ABBENCH_FAKE_TIMER=1): the same samples on any machine.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/a.db" ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
cases=$(grep -c '^\[case ' "$T/base.ini")
run() { "$AB" run "$@" --backend cpu --no-progress >"$T/run.out" 2>"$T/run.err" || { cat "$T/run.err"; return 1; }; }

check "run main" run "$T/base.ini" --label main
check "run ends with the summary table" \
	bash -c "tail -n $((cases + 2)) '$T/run.out' | head -1 | grep -Eq '^case +shape +A eager median +B fused median +speedup A/B \[95% CI\] +n A/B +B byte-equal +verdict$'"
check "a row per case with its speedup and interval" \
	test "$(grep -Ec '^[a-z_]+ +1x[0-9x]+ +[0-9.]+ us +[0-9.]+ us +[0-9.]+x \[[0-9.]+, [0-9.]+\] +40/20 +yes +faster$' "$T/run.out")" -eq "$cases"
check "and the verdicts counted last" bash -c "tail -1 '$T/run.out' | grep -q '^verdict: faster in $cases of $cases cases (speedup [0-9.]*x to [0-9.]*x), slower 0, no clear change 0; bit-exact in $cases of $cases$'"
check "ln_modulate 4.001x (4 eager steps against 1 fused)" grep -Eq '^ln_modulate +1x16x256 .* 4\.001x ' "$T/run.out"
check "run pr" run "$T/base.ini" --label pr
# The whole pr run +1.56% on its B arm, as a shared machine moves a run.
sqlite3 "$ABBENCH_DB" "UPDATE samples SET wall_ns = wall_ns * 1.0156 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = 'pr' AND s.arm = 'b');"
expect_exit 0 "compare main pr" "$AB" compare main pr
check "every case: significant, but no change beyond the floors" \
	test "$(grep -c '| [0-9.]*e-0[3-9] | no change beyond the floors (+1.56%, within the 15.00% threshold) |' "$T/out")" -eq "$cases"
check "the text names the floors and their source" \
	grep -q "clears the gate's floors: beyond 15.00% (device profile 'CPU backend')" "$T/out"
expect_exit 0 "compare --no-floors" "$AB" compare main pr --no-floors
check "the old verdict: slower +1.56%, p < 0.01" test "$(grep -c '| [0-9.]*e-0[3-9] | slower (+1.56%) |' "$T/out")" -eq "$cases"
expect_exit 0 "compare --max-regression 1" "$AB" compare main pr --max-regression 1 --min-change-ns 0
check "under a 1% threshold it is slower" test "$(grep -c '| [0-9.]*e-0[3-9] | slower (+1.56%) |' "$T/out")" -eq "$cases"
expect_exit 2 "compare --max-regression 0" "$AB" compare main pr --max-regression 0
check "run reg" run "$T/reg.ini" --label reg
expect_exit 0 "compare main reg" "$AB" compare main reg
check "a planted regression is slower beyond the floors" test "$(grep -Ec '\| [0-9.]+e-0[3-9] \| slower \(\+[0-9.]+%\) \|' "$T/out")" -eq "$cases"

# Two databases.
check "a run in a second database" run "$T/reg.ini" --label pr --db "$T/b.db"
expect_exit 0 "compare main (a.db) pr (b.db)" "$AB" compare main pr --db-b "$T/b.db"
check "the second run is b.db's: slower" test "$(grep -Ec '\| [0-9.]+e-0[3-9] \| slower \(\+[0-9.]+%\) \|' "$T/out")" -eq "$cases"
check "the run lines name the databases" grep -q '^- second: run 1 of `b.db` label `pr`' "$T/out"
check "and the first" grep -q '^- first: run 1 of `a.db` label `main`' "$T/out"
expect_exit 2 "--db-b that does not exist" "$AB" compare main pr --db-b "$T/none.db"

# list: commit, filters, rechecks hidden.
check "a re-measurement run" run "$T/base.ini" --label second-look --only ln_modulate --recheck
check "another scenario" run scenarios/aa_smoke.ini --label other-recheck --quick
expect_exit 0 "list" "$AB" list
check "header with commit" grep -Eq '^id +started \(UTC\) +scenario +label +commit +cases +status +flags +backend/device$' "$T/out"
commit=$("$AB" --version | sed -n 's/.*(commit \(.*\))$/\1/p')
check "rows show the commit ($commit)" test "$(grep -c " $commit " "$T/out")" -eq 4
check "the recheck is hidden" bash -c "! grep -q second-look '$T/out'"
check "and counted on stderr" grep -qx '1 re-measurement run hidden (--rechecks shows them)' "$T/err"
expect_exit 0 "list --rechecks" "$AB" list --rechecks
check "shows it, partial, a recheck" grep -Eq '^4 .* second-look .* only ln_modulate, recheck ' "$T/out"
expect_exit 0 "list --scenario aa_smoke" "$AB" list --scenario aa_smoke
check "one run, the other scenario, quick" test "$(tail -n +2 "$T/out" | grep -c .)" -eq 1 -a -n "$(grep -E '^5 .* other-recheck .* quick ' "$T/out")"
expect_exit 0 "list --label 'ma*'" "$AB" list --label 'ma*'
check "main only" test "$(tail -n +2 "$T/out" | awk '{ print $4 }')" = main
expect_exit 0 "list --count 2" "$AB" list --count 2
check "the newest two (5 and 3: the recheck, 4, is hidden)" test "$(tail -n +2 "$T/out" | awk '{ print $1 }' | tr '\n' ' ')" = "5 3 "
expect_exit 0 "list --scenario nothing" "$AB" list --scenario nothing
check "says no run matches" grep -qx 'no run matches' "$T/err"
expect_exit 2 "list --count -1" "$AB" list --count -1

# progress: elapsed and time left, forced on without a terminal.
expect_exit 0 "run --progress" "$AB" run "$T/base.ini" --backend cpu --progress --label prog
check "progress lines show elapsed and an estimate of the time left" \
	bash -c "tr '\r' '\n' <'$T/err' | grep -Eq '^\[5/5\] residual_gate_add +A2 +eager +20 samples  elapsed [0-9]+:[0-9]{2}, left ~[0-9]+:[0-9]{2}'"
expect_exit 0 "run --progress --no-progress" "$AB" run "$T/base.ini" --backend cpu --progress --no-progress --label quiet
check "--no-progress wins" test ! -s "$T/err"
finish
