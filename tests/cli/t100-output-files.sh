#!/usr/bin/env bash
# Output files (docs/RELIABILITY.md, "Output files"): export --csv, compare
# --out, gate --out, gate --failing-cases and report files never replace a
# FIFO or a symbolic link (FIFOs are written through, links followed), a
# directory or a dangling link is refused with exit 2, and a write error
# (EFBIG under `ulimit -f`, as ENOSPC on a full disk) exits 3 leaving the
# old file and no temporary. Only FIFOs and files in the test's directory.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/o.db"
cd "$T" || exit 1

expect_exit 0 "a smoke run" "$AB" run "$OLDPWD/scenarios/smoke.ini" --backend cpu --no-progress --db "$db"
# A rollback-journal copy for the ulimit test: a reader of it creates no
# -shm file (which a 1 KiB file-size limit would refuse).
sqlite3 "$db" "PRAGMA journal_mode=DELETE" >/dev/null

# reader_done PID: the FIFO's reader ends within 30 s once the writer is
# done (at once on an idle machine); one still blocked means nothing was
# written through (it is killed).
reader_done() {
	for _ in $(seq 300); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return 0; }
		sleep 0.1
	done
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 1
}

# through_fifo NAME DESCRIPTION command... : runs the command with a reader
# on the FIFO NAME; checks exit 0, the FIFO kept, what the reader got.
through_fifo() {
	local fifo=$1 desc=$2; shift 2
	rm -f "$fifo" "$fifo.got"
	mkfifo "$fifo"
	cat "$fifo" >"$fifo.got" &
	local reader=$!
	expect_exit 0 "$desc" "$@"
	check "$desc: the reader saw the end of the output" reader_done "$reader"
	check "$desc: the FIFO is still a FIFO" test -p "$fifo"
	check "$desc: the reader got the output" test -s "$fifo.got"
}

through_fifo csv.fifo "export --csv into a FIFO" "$AB" export --db "$db" --csv csv.fifo
check "the CSV came through the FIFO" grep -q '^case,site,shape' csv.fifo.got
through_fifo cmp.fifo "compare --out into a FIFO" "$AB" compare 1 1 --db "$db" --out cmp.fifo
through_fifo gate.fifo "gate --out into a FIFO" "$AB" gate 1 --baseline 1 --db "$db" --out gate.fifo
check "the verdict came through" grep -qi 'gate' gate.fifo.got
# --failing-cases of a passing gate is empty: check the node only.
rm -f fail.fifo && mkfifo fail.fifo
cat fail.fifo >fail.got &
reader=$!
expect_exit 0 "gate --failing-cases into a FIFO" "$AB" gate 1 --baseline 1 --db "$db" --out gate.md --failing-cases fail.fifo
check "the --failing-cases reader saw the end" reader_done "$reader"
check "--failing-cases FIFO kept" test -p fail.fifo
mkdir -p rep
through_fifo rep/report.md "report whose report.md is a FIFO" "$AB" report 1 --db "$db" --out rep --no-plots
check "the report came through" grep -q '^## Summary' rep/report.md.got

echo old >target.csv
ln -s target.csv link.csv
expect_exit 0 "export --csv into a symbolic link" "$AB" export --db "$db" --csv link.csv
check "the link is still a link" test -L link.csv
check "its target got the CSV" grep -q '^case,site,shape' target.csv
ln -s missing.csv dangling.csv
expect_exit 2 "export --csv into a dangling link" "$AB" export --db "$db" --csv dangling.csv
check "the message says why" grep -q 'symbolic link to a missing file' "$T/err"
check "nothing created behind the link" test ! -e missing.csv
mkdir adir
expect_exit 2 "export --csv into a directory" "$AB" export --db "$db" --csv adir
check "the message names the directory" grep -q "'adir' is a directory" "$T/err"
expect_exit 2 "compare --out into a directory" "$AB" compare 1 1 --db "$db" --out adir

# A write error: 1 KiB file-size limit, SIGXFSZ ignored so write() fails
# with EFBIG. The old file stays, no temporary is left.
echo "old contents" >big.csv
before=$(ls | sort | md5sum)
expect_exit 3 "export past the file-size limit" bash -c 'trap "" XFSZ; ulimit -f 1; exec "$0" export --db "$1" --csv big.csv' "$AB" "$db"
check "the message names the file and the error" grep -q "cannot write 'big.csv': File too large" "$T/err"
check "the old file is untouched" test "$(cat big.csv)" = "old contents"
check "no temporary file left" test "$(ls | sort | md5sum)" = "$before"
expect_exit 3 "gate --out past the file-size limit" bash -c 'trap "" XFSZ; ulimit -f 1; exec "$0" gate 1 --baseline 1 --db "$1" --out big.csv' "$AB" "$db"
check "the old file is untouched after the gate" test "$(cat big.csv)" = "old contents"
finish
