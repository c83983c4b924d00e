#!/usr/bin/env bash
# Reading commands (list, show, export, report, gate, compare, baseline
# list) open the database read-only: no WAL switch, no migration, not a
# byte or an mtime changed, no -wal/-shm/-journal created. A WAL database
# in a directory the reader cannot write (read-only media) is read too.
# A WAL that holds committed transactions there is read with them, never
# without. A database of an older schema gets a clear message from a
# reader and is migrated by a writer; a negative user_version is refused
# cleanly.
#
# Root writes through any permission, so the read-only directory is tested
# by dropping to user 'nobody' with setpriv (as a plain user: chmod a-w).
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
scn="$PWD/scenarios/smoke.ini"

db="$T/r.db"
expect_exit 0 "a run" "$AB" run "$scn" --backend cpu --no-progress --db "$db" --label main
expect_exit 0 "a baseline" "$AB" baseline set nightly main --db "$db"

# every_reader DB OUTDIR [RUNNER...]: each reading command on DB must exit 0.
every_reader() {
	local d=$1 out=$2; shift 2
	expect_exit 0 "list" "$@" "$AB" list --db "$d"
	expect_exit 0 "show" "$@" "$AB" show --db "$d"
	expect_exit 0 "export" "$@" "$AB" export --db "$d" --csv "$out/x.csv"
	expect_exit 0 "report" "$@" "$AB" report --db "$d" --out "$out/rep" --no-plots
	expect_exit 0 "gate" "$@" "$AB" gate --db "$d" --baseline nightly --out "$out/gate.md"
	expect_exit 0 "compare" "$@" "$AB" compare main last --db "$d" --out "$out/cmp.md"
	expect_exit 0 "baseline list" "$@" "$AB" baseline list --db "$d"
}
fingerprint() { # bytes and mtime of the file, and which side files exist
	echo "$(md5sum <"$1") $(stat -c %Y.%y "$1") $(ls "$1"-* 2>/dev/null)"
}

# 1. A rollback-journal database: it must stay one, unchanged.
sqlite3 "$db" "PRAGMA journal_mode=DELETE" >/dev/null
before=$(fingerprint "$db")
sleep 1
every_reader "$db" "$T"
check "the database is byte for byte and mtime unchanged, no side file" test "$(fingerprint "$db")" = "$before"
check "still in rollback-journal mode (no WAL switch)" test "$(sqlite3 "$db" 'PRAGMA journal_mode')" = delete

# 2. A WAL database nobody has open, in a directory the reader cannot
# write: SQLite cannot create its -shm there; it is read as immutable.
ro="$T/ro"
mkdir "$ro" "$T/o"
cp "$db" "$ro/w.db"
sqlite3 "$ro/w.db" "PRAGMA journal_mode=WAL" >/dev/null
check "the copy is in WAL mode with no -wal or -shm left" test -z "$(ls "$ro"/w.db-* 2>/dev/null)"
if [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$T"
	chown nobody "$T/o"
	as_reader=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	check "the reader really cannot write there" "${as_reader[@]}" sh -c "! touch '$ro/probe' 2>/dev/null"
else
	chmod a-w "$ro"
	as_reader=()
fi
before=$(fingerprint "$ro/w.db")
every_reader "$ro/w.db" "$T/o" "${as_reader[@]}"
check "the WAL database is unchanged" test "$(fingerprint "$ro/w.db")" = "$before"
chmod u+w "$ro"

# 2b. The same, with a WAL that holds a committed transaction (its writer
# killed before any checkpoint; the -wal kept, no -shm, as on read-only
# media): readers must see it. immutable=1 alone ignores the -wal and
# served the old data with exit 0 (issue 19, row 5); the database and its
# WAL are now read from a private copy, removed afterwards.
wr="$T/wr"
mkdir "$wr" "$T/o/tmp"
cp "$ro/w.db" "$wr/w.db"
python3 - "$wr/w.db" <<'EOF'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("UPDATE runs SET label = 'after' WHERE label = 'main'")
os._exit(0)  # no close, no checkpoint: the commit is in the -wal only
EOF
rm -f "$wr/w.db-shm"
check "the commit is in the -wal only" test "$(sqlite3 "file:$wr/w.db?immutable=1" "SELECT label FROM runs")" = main
if [ "$(id -u)" -eq 0 ]; then chown nobody "$T/o/tmp"; else chmod a-w "$wr"; fi
before=$(md5sum "$wr"/w.db*)
export TMPDIR="$T/o/tmp"
expect_exit 0 "list on a WAL with a committed transaction, as the reader" "${as_reader[@]}" "$AB" list --db "$wr/w.db"
check "the transaction is seen (label 'after', not 'main')" grep -q " after " "$T/out"
expect_exit 0 "show the run by its new label" "${as_reader[@]}" "$AB" show after --db "$wr/w.db"
expect_exit 0 "gate the run by its new label" "${as_reader[@]}" "$AB" gate after --baseline nightly --db "$wr/w.db" \
	--out "$T/o/g.md"
expect_exit 0 "report it" "${as_reader[@]}" "$AB" report after --db "$wr/w.db" --out "$T/o/rep2" --no-plots
check "the report is of run 'after'" grep -rq "after" "$T/o/rep2"
unset TMPDIR
check "the database and its WAL are unchanged, no side file made" test "$(md5sum "$wr"/w.db*)" = "$before"
check "the private copies are gone" test -z "$(ls -A "$T/o/tmp")"
# a -shm that exists and cannot be opened: a writer may be at work, and a
# copy could be torn; refused, saying why
chmod u+w "$wr"
: >"$wr/w.db-shm"
chmod 000 "$wr/w.db-shm"
[ "$(id -u)" -eq 0 ] || chmod a-w "$wr"
expect_exit 3 "a WAL with transactions and a -shm the reader cannot open" "${as_reader[@]}" "$AB" list --db "$wr/w.db"
check "the message says why and what to do" grep -q "its -shm cannot be opened (a writer may be at work)" "$T/err"
chmod u+w "$wr"

# 3. Schema version 1 (tests/data/schema1.sql): readers say it needs
# migrating; a writer migrates it; its 'running' row of unknown owner stays.
old="$T/v1.db"
sqlite3 "$old" <tests/data/schema1.sql
before=$(fingerprint "$old")
expect_exit 2 "list on a schema-1 database" "$AB" list --db "$old"
check "the message says it needs migrating and how" grep -q "schema version 1 and needs migrating to version .*'abbench run' or 'abbench baseline set'" "$T/err"
check "the reader left it as it was" test "$(fingerprint "$old")" = "$before"
expect_exit 0 "baseline set migrates it" "$AB" baseline set old 1 --db "$old"
check "now at the current schema (as a new file)" test "$(sqlite3 "$old" 'PRAGMA user_version')" -eq "$(sqlite3 "$db" 'PRAGMA user_version')"
check "the integrity check passes" test "$(sqlite3 "$old" 'PRAGMA integrity_check')" = ok
check "'interrupted' is now a valid status" sqlite3 "$old" "BEGIN; UPDATE runs SET status = 'interrupted' WHERE id = 2; ROLLBACK"
check "any other status is still refused" bash -c "! sqlite3 '$old' \"UPDATE runs SET status = 'bogus' WHERE id = 2\" 2>/dev/null"
check "the row of unknown owner is left 'running'" test "$(sqlite3 "$old" 'SELECT status FROM runs WHERE id = 2')" = running
expect_exit 0 "show last on the migrated database" "$AB" show last --db "$old"
check "'last' is the finished run" grep -q '^run 1 ' "$T/out"
expect_exit 0 "a new run on the migrated database" "$AB" run "$scn" --backend cpu --quick --no-progress --db "$old"

# 4. A negative (or absurd) user_version: a clear refusal, not a crash.
sqlite3 "$old" "PRAGMA user_version = -1"
expect_exit 2 "list on user_version -1" "$AB" list --db "$old"
check "the message names the version" grep -q "schema version -1, which no abbench writes" "$T/err"
expect_exit 2 "run on user_version -1" "$AB" run "$scn" --backend cpu --quick --no-progress --db "$old"
sqlite3 "$old" "PRAGMA user_version = 2147483647"
expect_exit 2 "list on user_version 2147483647" "$AB" list --db "$old"
check "too new, said so" grep -q "this abbench knows up to" "$T/err"
finish
