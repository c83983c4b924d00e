#!/usr/bin/env bash
# Output files under signals and full disks (docs/RELIABILITY.md, "Output
# files"): report and publish stopped by SIGINT or SIGTERM at any moment
# leave no temporary file (outfile.c removes them before the signal ends the
# process, and gnuplot writes no file: its PNG comes through a pipe); history
# --out past a file-size limit (EFBIG, as ENOSPC on a full disk) exits 3 as
# report does, naming the chart, with no truncated PNG; and publish makes no
# folder when the database cannot be opened or nothing matches.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/s.db"
expect_exit 0 "a smoke run" "$AB" run scenarios/smoke.ini --backend cpu --no-progress --db "$db"
expect_exit 0 "a second" "$AB" run scenarios/smoke.ini --backend cpu --no-progress --db "$db"

# stop SIGNAL DELAY CMD...: CMD in the background, SIGNAL after DELAY
# seconds; the status it ended with in $stopped. A script's background job
# starts with SIGINT ignored: env gives it back its default (exec keeps the
# pid).
stop() {
	local sig=$1 delay=$2; shift 2
	(exec env --default-signal=INT "$@" >/dev/null 2>&1) &
	local pid=$!
	sleep "$delay"
	kill -"$sig" "$pid" 2>/dev/null
	stopped=0
	wait "$pid" || stopped=$?
	sleep 0.2 # a child that outlived it would write now
}
if command -v gnuplot >/dev/null; then plots=""; else plots="--no-plots"; fi
left=0 killed=0 trials=0
for sig in INT TERM; do
	for delay in 0.2 0.6; do
		stop $sig $delay "$AB" report --db "$db" --out "$T/rep-$sig-$delay" $plots
		trials=$((trials + 1))
		[ "$stopped" -gt 128 ] && killed=$((killed + 1))
		left=$((left + $(find "$T/rep-$sig-$delay" -name '*.tmp*' 2>/dev/null | wc -l)))
		stop $sig $delay "$AB" publish "$T/pub-$sig-$delay" --db "$db" $plots
		trials=$((trials + 1))
		[ "$stopped" -gt 128 ] && killed=$((killed + 1))
		left=$((left + $(find "$T/pub-$sig-$delay" -name '*.tmp*' 2>/dev/null | wc -l)))
	done
done
check "$trials report and publish runs stopped at 0.2 and 0.6 s ($killed by the signal): no temporary left ($left)" \
	test "$left" -eq 0
check "  the signal stopped them, not their end (exit 130 or 143)" test "$killed" -gt $((trials / 2))

# history --out under a 8 KiB file-size limit: the scripts fit, a PNG does
# not. A rollback-journal copy: its reader writes nothing (no -shm).
if [ -z "$plots" ]; then
	cp "$db" "$T/j.db" && sqlite3 "$T/j.db" "PRAGMA journal_mode=DELETE" >/dev/null
	expect_exit 3 "history --out past the file-size limit" bash -c \
		'trap "" XFSZ; ulimit -f 8; exec "$0" history --db "$1" --out "$2"' "$AB" "$T/j.db" "$T/hist"
	check "  the message names the chart and the error" grep -q "cannot write '.*trend-.*\.png': File too large" "$T/err"
	check "  no PNG, whole or cut, and no temporary left" test -z "$(find "$T/hist" -name '*.png*' -o -name '*.tmp*')"
	expect_exit 3 "report past the same limit" bash -c \
		'trap "" XFSZ; ulimit -f 8; exec "$0" report --db "$1" --out "$2"' "$AB" "$T/j.db" "$T/rep-limit"
else
	ok "SKIP: no gnuplot: the history's PNGs are not written, so not past a limit"
fi

# publish makes no folder it cannot fill
expect_exit 2 "publish with no database" "$AB" publish "$T/none/pub" --db "$T/missing.db"
check "  no folder made" test ! -e "$T/none"
expect_exit 2 "publish when nothing matches" "$AB" publish "$T/nomatch/pub" --db "$db" --scenario nosuch
check "  no folder made" test ! -e "$T/nomatch"
finish
