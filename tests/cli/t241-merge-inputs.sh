#!/usr/bin/env bash
# merge refuses inputs that are not sound database files, with exit 2 and
# OUT unchanged (issue 19, row 10): a FIFO (before: merge blocked forever
# reading it; now it is refused without being opened), a directory
# (before: exit 3 "disk I/O error"), a file that fails SQLite's integrity
# check (before: merged, exit 0). The same checks hold for OUT and for
# --db of any command.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --only ln_modulate_short --db "$T/a.db" >/dev/null
"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --only ln_modulate_short --db "$T/b.db" >/dev/null
"$AB" merge "$T/out.db" "$T/a.db" >/dev/null
sum() { sha256sum "$1" | cut -d' ' -f1; }
before=$(sum "$T/out.db")

# A FIFO: refused at once, never opened (a writer waiting on it stays blocked).
mkfifo "$T/fifo.db"
bash -c "echo x >'$T/fifo.db' && touch '$T/fifo-was-read'" &
writer=$!
expect_exit 2 "a FIFO input" timeout 20 "$AB" merge "$T/out.db" "$T/b.db" "$T/fifo.db"
check "the message says it is a FIFO" grep -q "'$T/fifo.db' is a FIFO, not a database file" "$T/err"
sleep 0.2
check "the FIFO was never opened for reading" test ! -e "$T/fifo-was-read"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
expect_exit 2 "a FIFO as OUT" timeout 20 "$AB" merge "$T/fifo.db" "$T/b.db"
expect_exit 2 "a FIFO as --db of a reader" timeout 20 "$AB" list --db "$T/fifo.db"

# A directory.
mkdir "$T/dir.db"
expect_exit 2 "a directory input" "$AB" merge "$T/out.db" "$T/b.db" "$T/dir.db"
check "the message says it is a directory" grep -q "'$T/dir.db' is a directory, not a database file" "$T/err"
expect_exit 2 "a directory as OUT" "$AB" merge "$T/dir.db" "$T/b.db"

# A file whose index disagrees with its table: it reads, but SQLite's
# integrity check fails.
cp "$T/b.db" "$T/bad.db"
sqlite3 "$T/bad.db" "PRAGMA writable_schema = ON;
	UPDATE sqlite_master SET sql = 'CREATE INDEX runs_label ON runs(host)' WHERE name = 'runs_label';"
check "the planted damage fails the integrity check" test "$(sqlite3 "$T/bad.db" 'PRAGMA integrity_check')" != ok
expect_exit 2 "an input that fails the integrity check" "$AB" merge "$T/out.db" "$T/b.db" "$T/bad.db"
check "the message names the file and SQLite's finding" \
	grep -q "'$T/bad.db' fails SQLite's integrity check (row 1 missing from index runs_label)" "$T/err"
expect_exit 2 "the same into a new OUT" "$AB" merge "$T/new.db" "$T/bad.db"
check "no new OUT was made" test ! -e "$T/new.db"
check "OUT is byte for byte unchanged after every refusal" test "$(sum "$T/out.db")" = "$before"
check "OUT still holds one run" test "$(sqlite3 "$T/out.db" 'SELECT count(*) FROM runs')" -eq 1
expect_exit 0 "the sound input still merges" "$AB" merge "$T/out.db" "$T/b.db"
finish
