#!/usr/bin/env bash
# A terminal never gets a control character from a database string
# (docs/RELIABILITY.md, "Names and messages"): list, show, baseline list and
# history print every name, label, commit and device escaped (\xNN, the
# rule of ab_put_escaped in common/diag.h) on stdout as on stderr. The
# strings are planted in the database as a merged shard could carry them:
# an ANSI colour, an OSC title sequence ended by BEL, a backspace, a
# carriage return. Where the store refuses such a row the command may exit
# 2; it may never print the bytes.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/e.db"
expect_exit 0 "a smoke run" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$db"
expect_exit 0 "a second" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$db"
# esc WORD: WORD wrapped in terminal control sequences, as an SQL expression.
esc() { echo "char(27) || '[31m$1' || char(27) || ']0;owned' || char(7) || char(8) || char(13) || '$1'"; }
sqlite3 "$db" "
UPDATE runs SET scenario_name = $(esc scen), label = $(esc lab) || id, git_commit = $(esc commit),
	started_at = started_at || $(esc time), arm_a = $(esc arma), only_cases = '';
UPDATE devices SET name = $(esc dev);
UPDATE cases SET name = $(esc case) || ordinal, shape = $(esc shape);
UPDATE slots SET variant = $(esc var), stopping_reason = $(esc stop);
INSERT INTO baselines (name, run_id, set_at, run_set) VALUES ($(esc base), 1, $(esc at), '')" ||
	fail "the control characters were planted"
check "a planted string holds ESC" bash -c "sqlite3 '$db' 'SELECT scenario_name FROM runs LIMIT 1' | LC_ALL=C grep -q $'\\x1b'"

# clean CMD...: exit 0 or 2, and neither stream holds a C0 control
# character but newline and tab, nor DEL.
clean() {
	local desc=$1; shift
	local got=0
	"$@" >"$T/out" 2>"$T/err" || got=$?
	check "$desc: printed or refused (exit $got)" test "$got" -eq 0 -o "$got" -eq 2
	check "  no control character reached the terminal" bash -c \
		"! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n\t' <'$T/out'; tr -d '\n\t' <'$T/err')"
	[ "$got" -eq 0 ] && check "  the planted text is there, escaped" grep -qi 'x1b' "$T/out"
}
clean "list" "$AB" list --db "$db"
clean "show" "$AB" show 1 --db "$db"
clean "baseline list" "$AB" baseline list --db "$db"
clean "history" "$AB" history --db "$db"
finish
