#!/usr/bin/env bash
# Without a GPU, --backend cuda exits 2 in one line and writes nothing;
# auto falls back to the CPU and says so. Reading commands on a missing
# database or run exit 2.
. "$(dirname "$0")/lib.sh"
db="$T/e.db"

if "$AB" run scenarios/smoke.ini --backend cuda --db "$T/probe.db" --quick >/dev/null 2>&1; then
	echo "SKIP: a CUDA device answers here; the no-GPU checks do not apply"
	exit 0
fi
expect_exit 2 "--backend cuda without a device" "$AB" run scenarios/smoke.ini --backend cuda --db "$db" --quick
check "one line saying cuda is unavailable" grep -q "backend 'cuda' is not available" "$T/err"
check "exactly one line" test "$(wc -l <"$T/err")" -eq 1
check "no database created" test ! -e "$db"
expect_exit 0 "auto falls back to cpu" "$AB" run scenarios/smoke.ini --db "$db" --quick --no-progress
check "fallback is said" grep -q "running on the CPU backend" "$T/err"
expect_exit 0 "show" "$AB" show --db "$db"
check "run used the cpu backend" grep -q '^backend cpu' "$T/out"

expect_exit 2 "show on a missing database" "$AB" show --db "$T/none.db"
check "missing database named" grep -q "none.db" "$T/err"
check "missing database not created" test ! -e "$T/none.db"
expect_exit 2 "show a run that does not exist" "$AB" show 999 --db "$db"
expect_exit 2 "export without --csv" "$AB" export --db "$db"
expect_exit 3 "export into a missing directory" "$AB" export --csv "$T/no/dir/x.csv" --db "$db"
check "failed export leaves no file" test ! -e "$T/no/dir/x.csv"
echo "not a database" >"$T/junk.db"
expect_exit 2 "a file that is not a database" "$AB" list --db "$T/junk.db"
expect_exit 2 "--only with an unknown case" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --only nosuch
finish
