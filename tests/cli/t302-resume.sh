#!/usr/bin/env bash
# Interrupted runs keep their finished cases (issue 23.6): SIGTERM while
# the second of three cases is measured leaves the run 'interrupted' with
# the first case stored whole; show and report print it marked INCOMPLETE,
# the gate refuses it, `baseline set` too. `run --resume RUN` measures the
# two cases it lacks into the same run, which is then 'ok' and reads like
# a run that was never stopped. Resuming is refused for an 'ok' run, a
# changed scenario text, another build, other options and another
# backend or timer, each with its reason, exit 2. (About 8 s.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/r.db"
# c1 and c3 end at 3000 samples a slot (a fraction of a second); c2's slots
# at their 700 ms cap, so a signal finds the run inside c2.
cat >"$T/r.ini" <<'INI'
[scenario]
name = resume
backend = cpu
warmup = 0
min_samples = 3000
max_samples = 3000
min_time_ms = 1
max_time_ms = 700
target_noise = 0.0000001
l2_flush = false
[arms]
a = eager
b = fused
[case c1]
site = ln_modulate
shape = 1x4x64
[case c2]
site = ln_modulate
shape = 1x64x4096
[case c3]
site = residual_gate_add
shape = 1x4x64
INI
q() { sqlite3 "$db" "$1"; }

(exec "$AB" run "$T/r.ini" --no-progress --db "$db" --label mine >"$T/o1" 2>"$T/e1") &
pid=$!
for _ in $(seq 1200); do # 60 s at most, less as soon as it is there
	[ "$(q 'SELECT count(*) FROM cases' 2>/dev/null)" = 1 ] && break
	sleep 0.05
done
check "the first case is committed while the run goes on" test "$(q 'SELECT count(*) FROM cases')" = 1
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
check "SIGTERM exits 143 (got $rc)" test "$rc" -eq 143
check "the run is 'interrupted' in c2" test "$(q 'SELECT status || error FROM runs')" = "interruptedcase 'c2': interrupted by SIGTERM"
check "it keeps c1, whole (3 slots, every sample)" \
	test "$(q 'SELECT group_concat(name) || count(*) FROM cases')/$(q 'SELECT count(*) FROM slots')/$(q 'SELECT count(*) FROM samples')" = "c11/3/9000"
check "it planned 3 cases" test "$(q 'SELECT cases_planned FROM runs')" = 3

expect_exit 0 "show of the interrupted run" "$AB" show 1 --db "$db"
check "show marks it INCOMPLETE" grep -q "^INCOMPLETE: the run is interrupted with 1 of 3 cases finished; never gated (abbench run --resume 1 measures the rest)" "$T/out"
check "show has c1's slots" grep -q "^case c1 " "$T/out"
expect_exit 0 "report of the interrupted run" "$AB" report 1 --db "$db" --out "$T/rep" --no-plots
check "the report opens INCOMPLETE" grep -q '^\*\*INCOMPLETE\*\*: run 1 is `interrupted` with 1 of 3 cases finished' "$T/rep/report.md"
expect_exit 0 "its JSON export" "$AB" export 1 --format json --db "$db" --out "$T/r.json"
check "the JSON says interrupted" grep -q '"status": *"interrupted"' "$T/r.json"
expect_exit 2 "the gate refuses it" "$AB" gate 1 --baseline 1 --db "$db"
check "saying why" grep -q "run 1 is 'interrupted', not 'ok'" "$T/err"
expect_exit 2 "baseline set refuses it" "$AB" baseline set b1 1 --db "$db"

cp "$T/r.ini" "$T/changed.ini"
echo "; a comment changes the text" >>"$T/changed.ini"
expect_exit 2 "resume with another scenario text" "$AB" run "$T/changed.ini" --resume 1 --db "$db" --no-progress
check "it names the text" grep -q "run 1 measured another scenario text (sha256 .*resume needs the text the run measured" "$T/err"
expect_exit 2 "resume with --label" "$AB" run --resume 1 --db "$db" --label other
check "it names the option" grep -q "\-\-resume takes the run's own options: drop --label" "$T/err"
expect_exit 2 "resume without the fake timer" env -u ABBENCH_FAKE_TIMER "$AB" run --resume 1 --db "$db" --no-progress
check "it names the timer" grep -q "run 1 was measured with the fake timer; this one would be without it" "$T/err"
q "UPDATE runs SET git_commit = 'another'"
expect_exit 2 "resume by another build" "$AB" run --resume 1 --db "$db" --no-progress
check "it names both builds" grep -q "run 1 was measured by abbench .* (commit another); this is abbench" "$T/err"
q "UPDATE runs SET git_commit = '$("$AB" --version | sed -n 's/.*commit \([^ ,)]*\).*/\1/p' | head -1)'"
check "the refusals changed nothing" test "$(q 'SELECT status || count(*) FROM runs JOIN cases')" = "interrupted1"

expect_exit 0 "run --resume 1 (the scenario from its stored path)" "$AB" run --resume 1 --db "$db" --no-progress
check "it says the same run" grep -q "^run 1 stored in" "$T/out"
check "the closing table has the 3 cases" test "$(grep -Ec '^c[123] ' "$T/out")" -eq 3
check "run 1 is 'ok' with c1, c2, c3 in order" test "$(q 'SELECT status FROM runs')/$(q 'SELECT group_concat(name) FROM (SELECT name FROM cases ORDER BY ordinal)')" = "ok/c1,c2,c3"
c1_samples="SELECT count(*) FROM samples m JOIN slots s ON s.id = m.slot_id JOIN cases c ON c.id = s.case_id WHERE c.name = 'c1'"
check "c1 is the one measured before" test "$(q "$c1_samples")" -eq 9000
check "one run, resumed once, its label kept" test "$(q 'SELECT count(*) || resumed || label FROM runs')" = "11mine"
check "its notes say so" grep -q "^resumed (1 time; 1 of 3 cases measured before)" <(q 'SELECT notes FROM runs')
expect_exit 0 "show of the resumed run" "$AB" show 1 --db "$db"
check "no INCOMPLETE mark now" bash -c "! grep -q INCOMPLETE '$T/out'"
expect_exit 0 "the gate takes it" "$AB" gate 1 --baseline 1 --db "$db"
expect_exit 2 "resume of an 'ok' run" "$AB" run --resume 1 --db "$db" --no-progress
check "it says there is nothing to resume" grep -q "run 1 is 'ok': it has every case, nothing to resume" "$T/err"
expect_exit 2 "resume of a run that is not there" "$AB" run --resume 7 --db "$db" --no-progress
finish
