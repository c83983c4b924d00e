#!/usr/bin/env bash
# Bad scenarios exit 2 with FILE:LINE in one line and leave the database
# exactly as it was (no run row, no file change).
. "$(dirname "$0")/lib.sh"
db="$T/bad.db"

expect_exit 0 "a first good run" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick
"$AB" list --db "$db" >"$T/list.before"
sum_before=$(md5sum "$db" | cut -d' ' -f1)

n=0
for f in tests/scenarios/bad/*.ini; do
	n=$((n + 1))
	expect_exit 2 "$(basename "$f") is refused" "$AB" run "$f" --backend cpu --db "$db"
	check "$(basename "$f"): message names $f:LINE" grep -Eq "^abbench: error: $f:[0-9]+: " "$T/err"
	check "$(basename "$f"): one line of error" test "$(wc -l <"$T/err")" -eq 1
done
check "there are bad scenarios to try" test "$n" -ge 10
expect_exit 2 "missing scenario file" "$AB" run "$T/nope.ini" --db "$db"
check "missing file named" grep -q "nope.ini" "$T/err"

"$AB" list --db "$db" >"$T/list.after"
check "list unchanged" cmp -s "$T/list.before" "$T/list.after"
check "database file unchanged" test "$(md5sum "$db" | cut -d' ' -f1)" = "$sum_before"
finish
