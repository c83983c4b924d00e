#!/usr/bin/env bash
# A bad row never crashes a reader (issue 19, rows 3 and 6). Rows of a
# database edited by hand: a slot's n_samples negative, past an int
# (2^32 + 5, which once read back as 5), larger than any scenario takes;
# a label and a case name that are not valid UTF-8; a slot out of its
# bracket's order; an output numbered twice. Each is refused with exit 2
# naming the table, the run, the case and the slot, by every reader
# (show, show --json, export, report, compare, gate, history, publish) and
# by merge, which copies nothing of it. Before: merge took them (exit 0),
# readers died of SIGSEGV (exit 139) on the negative count, read 2^32 + 5
# as 5, and printed the rest as if nothing were wrong.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
run() { "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --only ln_modulate_short "$@" >/dev/null; }
run --db "$T/good.db" --label main
run --db "$T/good.db"
"$AB" baseline set nightly main --db "$T/good.db" >/dev/null

slot() { echo "(SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 2 AND s.position = $1)"; }
a1=$(slot 0) b=$(slot 1)
# name|SQL on run 2|what the message must hold (after "bad row in table")
cases=(
	"negative n_samples|UPDATE slots SET n_samples = -1 WHERE id = $a1|table slots (run 2, case 'ln_modulate_short' (ordinal 0), slot 'A1' (position 0)): n_samples is -1, not 0 to 10000000"
	"n_samples past an int|UPDATE slots SET n_samples = 4294967301 WHERE id = $b|table slots (run 2, case 'ln_modulate_short' (ordinal 0), slot 'B' (position 1)): n_samples is 4294967301, more than an int holds"
	"n_samples past any scenario|UPDATE slots SET n_samples = 100000000 WHERE id = $b|n_samples is 100000000, not 0 to 10000000"
	"a label of invalid UTF-8|UPDATE runs SET label = CAST(x'6361666ce9' AS TEXT) WHERE id = 2|label is not valid UTF-8 (byte 4)"
	"a case name of invalid UTF-8|UPDATE cases SET name = CAST(x'6c6eff' AS TEXT) WHERE run_id = 2|table cases (run 2, case 'ln\\xFF' (ordinal 0)): name is not valid UTF-8 (byte 2)"
	"a slot out of its bracket|UPDATE slots SET arm = 'a' WHERE id = $b|slot 1 ('B') is of arm 'a', bracket 'ABA' has B there"
	"an output numbered twice|UPDATE outputs SET idx = 3 WHERE slot_id = $b|table outputs (run 2, case 'ln_modulate_short' (ordinal 0), slot 'B' (position 1), output 3)"
)
readers=(show "show --json" "export --csv x.csv" "report --no-plots --out rep" "compare main 2" "gate 2 --baseline nightly"
	"history" "publish pub")
for c in "${cases[@]}"; do
	IFS='|' read -r name sql want <<<"$c"
	db="$T/bad.db"
	rm -rf "$T"/bad.db* "$T/x.csv" "$T/rep" "$T/pub"
	cp "$T/good.db" "$db"
	sqlite3 "$db" "$sql"
	crashed=0 other=""
	for r in "${readers[@]}"; do
		rc=0
		# shellcheck disable=SC2086 # the reader's words
		(cd "$T" && "$AB" $r --db "$db") >"$T/out" 2>"$T/err" || rc=$?
		[ "$rc" -ge 128 ] && crashed=$((crashed + 1))
		if [ "$rc" -ne 2 ] || ! grep -qF "$want" "$T/err" || ! grep -q "bad row in table" "$T/err"; then other="${other:-$r: exit $rc $(head -c 200 "$T/err")}"; fi
	done
	check "$name: no reader crashed" test "$crashed" -eq 0
	check "$name: every reader exits 2 naming the row${other:+ (first: $other)}" test -z "$other"
	expect_exit 2 "$name: merge refuses it" "$AB" merge "$T/m.db" "$db"
	check "$name: merge names the row" grep -qF "$want" "$T/err"
	check "$name: and made no OUT" test ! -e "$T/m.db"
done
finish
