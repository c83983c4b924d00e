#!/usr/bin/env bash
# `abbench merge OUT IN...`: runs with everything they hold, matched by
# UUID (merging twice adds nothing), baselines by name (a clash keeps OUT's
# and warns), 'running' runs left out. Refused with exit 2 and OUT's bytes
# unchanged: a UUID that arrives with other content, an input of another
# schema version, an input that is OUT itself, a file that is not a
# database; a new OUT is not left behind.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
run() { "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress "$@" >/dev/null; }
for i in 1 2; do run --shard "$i/2" --run-set m --db "$T/in$i.db"; done
"$AB" baseline set nightly --db "$T/in1.db" >/dev/null
"$AB" baseline set other --db "$T/in2.db" >/dev/null

expect_exit 0 "merge two files into a new OUT" "$AB" merge "$T/out.db" "$T/in1.db" "$T/in2.db"
check "2 runs copied, 2 baselines added" grep -q "2 runs copied, 0 already there, 2 baselines added" "$T/out"
expect_exit 0 "merge the same files again" "$AB" merge "$T/out.db" "$T/in1.db" "$T/in2.db" "$T/in1.db"
check "adds nothing ($(cat "$T/out"))" grep -q "0 runs copied, 3 already there, 0 baselines added" "$T/out"
check "OUT holds 2 runs" test "$(sqlite3 "$T/out.db" 'SELECT count(*) FROM runs')" -eq 2

# everything a run holds arrived: the JSON export of each run is equal
for i in 1 2; do
	"$AB" export --db "$T/in$i.db" --json "$T/in$i.json"
	id=$(sqlite3 "$T/out.db" "SELECT id FROM runs WHERE shard_index = $i")
	"$AB" export "$id" --db "$T/out.db" --json "$T/o$i.json"
	check "run of shard $i/2: JSON export equal but for its id" cmp -s \
		<(grep -v '"id":' "$T/in$i.json") <(grep -v '"id":' "$T/o$i.json")
done
rows() { sqlite3 "$1" "SELECT count(*) FROM $2"; }
for t in cases slots samples kernel_times outputs devices; do
	shared=0
	[ $t = devices ] && shared=1 # one device row, both shards'
	want=$(($(rows "$T/in1.db" $t) + $(rows "$T/in2.db" $t) - shared))
	check "table $t: as many rows as both inputs ($want)" test "$(rows "$T/out.db" $t)" -eq "$want"
done
expect_exit 0 "baseline list" "$AB" baseline list --db "$T/out.db"
check "both baselines, pointing at the copied runs" bash -c "grep -q '^nightly ' '$T/out' && grep -q '^other ' '$T/out'"
check "nightly points at shard 1's copy" test "$(sqlite3 "$T/out.db" \
	"SELECT r.shard_index FROM baselines b JOIN runs r ON r.id = b.run_id WHERE b.name = 'nightly'")" -eq 1

# a baseline name OUT already uses for another run: kept, with a warning
run --db "$T/in3.db"
"$AB" baseline set nightly --db "$T/in3.db" >/dev/null
expect_exit 0 "merge a file whose 'nightly' names another run" "$AB" merge "$T/out.db" "$T/in3.db"
check "warns about the clash" grep -q "kept 1 baseline of '$T/out.db' that the inputs name otherwise: 'nightly'" "$T/err"
check "OUT's nightly still points at shard 1" test "$(sqlite3 "$T/out.db" \
	"SELECT r.shard_index FROM baselines b JOIN runs r ON r.id = b.run_id WHERE b.name = 'nightly'")" -eq 1

# a 'running' run (a killed process) is left out
cp "$T/in3.db" "$T/run.db"
sqlite3 "$T/run.db" "UPDATE runs SET status = 'running', finished_at = NULL"
expect_exit 0 "merge a file with a running run" "$AB" merge "$T/new.db" "$T/run.db"
check "left out with a warning" grep -q "left out 1 run still 'running'" "$T/err"

# refusals: OUT byte for byte unchanged
sum() { sha256sum "$1" | cut -d' ' -f1; }
before=$(sum "$T/out.db")
cp "$T/in2.db" "$T/tampered.db"
sqlite3 "$T/tampered.db" "UPDATE samples SET wall_ns = wall_ns + 1 WHERE idx = 0 AND slot_id = (SELECT max(id) FROM slots)"
expect_exit 2 "a known UUID with other content" "$AB" merge "$T/out.db" "$T/in3.db" "$T/tampered.db"
check "names the run and the difference" grep -q "differs from run .* with the same UUID: case '.*' slot '.*' a sample's wall time differs" "$T/err"
check "OUT unchanged (sha256)" test "$(sum "$T/out.db")" = "$before"
check "in3's run was not copied either (one transaction)" test "$(sqlite3 "$T/out.db" 'SELECT count(*) FROM runs')" -eq 3

cp "$T/in1.db" "$T/v99.db"
sqlite3 "$T/v99.db" "PRAGMA user_version = 99"
expect_exit 2 "an input of a newer schema" "$AB" merge "$T/out.db" "$T/in3.db" "$T/v99.db"
check "says which version" grep -q "has schema version 99, this abbench knows up to" "$T/err"
cp "$T/in1.db" "$T/v1.db"
sqlite3 "$T/v1.db" "PRAGMA user_version = 1"
expect_exit 2 "an input of an older schema" "$AB" merge "$T/out.db" "$T/v1.db"
check "says how to upgrade it" grep -q "has schema version 1 and needs migrating to version .*'abbench run' or 'abbench baseline set'" "$T/err"
expect_exit 2 "OUT as an input" "$AB" merge "$T/out.db" "$T/in1.db" "$T/out.db"
echo "not a database" >"$T/junk.db"
expect_exit 2 "an input that is not a database" "$AB" merge "$T/out.db" "$T/junk.db"
expect_exit 2 "a missing input" "$AB" merge "$T/out.db" "$T/none.db"
check "OUT still unchanged (sha256)" test "$(sum "$T/out.db")" = "$before"
expect_exit 2 "a conflict into a new OUT" "$AB" merge "$T/fresh.db" "$T/in2.db" "$T/tampered.db"
check "leaves no new OUT behind" test ! -e "$T/fresh.db"
expect_exit 2 "merge needs an input" "$AB" merge "$T/out.db"
finish
