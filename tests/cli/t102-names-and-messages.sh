#!/usr/bin/env bash
# Names: a label over 63 characters is refused (not cut), so are labels and
# baseline names that would read as a run (all digits, 'last'), a
# baseline name that is a run's label, and both with a control character
# or invalid UTF-8. Messages: an oversized scenario is
# named FILE:LINE; control characters from a scenario or the command line
# never reach the terminal raw; --dump refuses a non-empty directory.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
scn=scenarios/smoke.ini
db="$T/n.db"
run() { "$AB" run "$scn" --backend cpu --quick --no-progress --only ln_modulate_short --db "$db" "$@"; }

l63=$(printf 'l%.0s' $(seq 63))
expect_exit 2 "a 64-character label" run --label "${l63}x"
check "the message gives the length" grep -q "is 64 characters long, more than 63" "$T/err"
check "no database was created" test ! -e "$db"
for bad in 7 0042 last; do
	expect_exit 2 "label '$bad' would shadow a run" run --label "$bad"
done
expect_exit 2 "a label with a control character" run --label "$(printf 'a\tb')"
expect_exit 0 "a 63-character label" run --label "$l63"
expect_exit 0 "the whole label finds the run" "$AB" show "$l63" --db "$db"
expect_exit 0 "a labelled run" run --label main

for bad in 1 007 last main; do
	expect_exit 2 "baseline name '$bad'" "$AB" baseline set "$bad" main --db "$db"
done
check "an existing label is named as such" grep -q "is the label of run" "$T/err"
expect_exit 2 "a 64-character baseline name" "$AB" baseline set "${l63}x" main --db "$db"
# control characters and invalid UTF-8, as for labels (before: baseline names took them)
for bad in "$(printf 'a\tb')" "$(printf 'red\033[31m')" "$(printf 'del\177')" "$(printf 'c1\302\233')" \
	"$(printf 'caf\351')"; do
	expect_exit 2 "baseline name $(printf '%q' "$bad")" "$AB" baseline set "$bad" main --db "$db"
	check "  said why" grep -Eq "holds a control character|is not valid UTF-8" "$T/err"
done
expect_exit 2 "a label of invalid UTF-8" run --label "$(printf 'caf\351')"
expect_exit 0 "a good baseline name" "$AB" baseline set nightly main --db "$db"
check "no baseline was made of the refused names" test "$(sqlite3 "$db" 'SELECT group_concat(name) FROM baselines')" = nightly

# A scenario over 1 MiB: FILE:LINE of the line where it passes the limit.
python3 -c "import sys; sys.stdout.write('[scenario]\n' + ('; ' + 'x' * 97 + '\n') * 11000)" >"$T/big.ini"
line=$(awk '{ n += length($0) + 1; if (n > 1048576) { print NR; exit } }' "$T/big.ini")
expect_exit 2 "a scenario over 1 MiB" "$AB" run "$T/big.ini" --db "$db"
check "FILE:LINE and the reason" grep -q "^abbench: error: $T/big.ini:$line: the file is larger than 1 MiB" "$T/err"

# Control characters: refused at their line, echoed escaped.
printf '[scenario]\nname = evil\033[31mred\n' >"$T/esc.ini"
expect_exit 2 "a scenario with an escape sequence" "$AB" run "$T/esc.ini" --db "$db"
check "FILE:LINE of the control character" grep -q "esc.ini:2: control character 0x1B" "$T/err"
esc=$(printf '\033')
check "no raw escape on stderr" bash -c "! grep -q '$esc' '$T/err'"
expect_exit 2 "a run spec with escape sequences" "$AB" show "$(printf 'x\033[2J\033]0;title\007')" --db "$db"
check "the spec is echoed escaped" grep -qF "no run 'x\\x1B[2J\\x1B]0;title\\x07'" "$T/err"
check "and nothing raw" bash -c "! grep -q '$esc' '$T/err'"
expect_exit 2 "a file name with a newline" "$AB" run "$(printf 'a\nb.ini')" --db "$db"
check "one line of error" test "$(wc -l <"$T/err")" -eq 1

# --dump: a new directory is filled; a non-empty one is refused untouched.
expect_exit 0 "--dump into a new directory" run --dump "$T/dump"
check "the dump was written" test -s "$T/dump/manifest.json"
sum=$(find "$T/dump" -type f -exec md5sum {} + | sort | md5sum)
expect_exit 2 "--dump into the same directory again" run --dump "$T/dump"
check "the message says why" grep -q "dump directory '$T/dump' is not empty" "$T/err"
check "the old dump is untouched" test "$(find "$T/dump" -type f -exec md5sum {} + | sort | md5sum)" = "$sum"
mkdir "$T/other" && touch "$T/other/notes.txt"
expect_exit 2 "--dump into a directory holding another file" run --dump "$T/other"
mkdir "$T/empty"
expect_exit 0 "--dump into an existing empty directory" run --dump "$T/empty"
finish
