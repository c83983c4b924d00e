#!/usr/bin/env bash
# A --db path longer than SQLite can open (504 bytes as a full path:
# its unix VFS takes 512 with "-journal") is refused with its length and
# the limit, exit 2, before anything is made (issue 19, row 12: before,
# `run` failed with exit 3 "cannot open database" and the message, cut at
# 512 characters, never said why). A full path of exactly 504 works, and
# a relative path counts as the absolute path SQLite makes of it.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
scn="$PWD/scenarios/smoke.ini"
run() { "$AB" run "$scn" --backend cpu --quick --no-progress --only ln_modulate_short "$@"; }

# deep N: a directory under $T whose path is N - 5 characters ("/x.db" follows)
deep() {
	local want=$(($1 - 5)) d=$T/p
	mkdir -p "$d"
	while [ $((${#d} + 51)) -le "$want" ]; do d=$d/$(printf 'd%.0s' $(seq 50)) && mkdir -p "$d"; done
	[ "${#d}" -lt "$want" ] && d=$d/$(printf 'e%.0s' $(seq $((want - ${#d} - 1)))) && mkdir -p "$d"
	echo "$d"
}
d504=$(deep 504)
check "the 504-character path is built (${#d504} + 5)" test $((${#d504} + 5)) -eq 504
expect_exit 0 "run with a 504-character --db" run --db "$d504/x.db"
expect_exit 0 "list it" "$AB" list --db "$d504/x.db"

d505=$(deep 505)
expect_exit 2 "run with a 505-character --db" run --db "$d505/x.db"
check "the message gives the length and the limit" \
	grep -q "is 505 characters long as a full path; SQLite opens at most 504: use a shorter path$" "$T/err"
check "one whole line, under 512 characters" test "$(wc -l <"$T/err")" -eq 1 -a "$(wc -c <"$T/err")" -lt 512
check "no database was made" test ! -e "$d505/x.db"
expect_exit 2 "a reader on a 505-character --db" "$AB" show --db "$d505/x.db"
expect_exit 2 "merge into a 505-character OUT" "$AB" merge "$d505/x.db" "$d504/x.db"
check "no OUT and no temporary there" test -z "$(ls "$d505")"

# relative: the same directory from $T is shorter as typed, not as SQLite sees it
(cd "$T" && expect_exit 2 "a relative --db that is 505 characters as a full path" run --db "${d505#"$T"/}/x.db"
	grep -q "is 505 characters long" "$T/err") || fail "the relative path counted as its full path"
finish
