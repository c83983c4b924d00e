#!/usr/bin/env bash
# `abbench run --shard I/N --run-set ID`: the split is round-robin over the
# scenario's cases in their order (case k goes to shard k mod N + 1), the
# same wherever it runs; each shard is a run that knows its shard and set,
# and its cases keep their place in the scenario. Bad --shard, --run-set and
# option mixes are usage errors (exit 2) that write nothing.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
names() { sed -n 's/^\[case \(.*\)\]$/\1/p' scenarios/smoke.ini; }
mapfile -t all < <(names)
check "smoke.ini has 5 cases" test "${#all[@]}" -eq 5

for i in 1 2 3; do
	expect_exit 0 "shard $i/3" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress \
		--shard "$i/3" --run-set ci-42 --db "$T/s$i.db"
	check "it says shard $i/3 of run set 'ci-42'" grep -q "(shard $i/3 of run set 'ci-42')" "$T/out"
	"$AB" export --db "$T/s$i.db" --csv "$T/s$i.csv"
	want=""
	for k in "${!all[@]}"; do
		[ $((k % 3 + 1)) -eq "$i" ] && want+="${all[$k]} "
	done
	got=$(tail -n +2 "$T/s$i.csv" | cut -d, -f1 | uniq | tr '\n' ' ')
	check "shard $i/3 holds cases k with k mod 3 = $((i - 1)): '$got'" test "$got" = "$want"
	"$AB" export --db "$T/s$i.db" --json "$T/s$i.json"
	check "its JSON: shard $i of 3, run set ci-42, ordinals k" python3 -c "
import json, sys
d = json.load(open('$T/s$i.json'))
r = d['run']
ok = r['shard'] == {'index': $i, 'count': 3} and r['run_set'] == 'ci-42' and len(r['uuid']) == 36
ok = ok and all(c['ordinal'] % 3 == $i - 1 for c in d['cases'])
sys.exit(not ok)"
	expect_exit 0 "show shard $i" "$AB" show --db "$T/s$i.db"
	check "show says which shard" grep -q "^shard $i/3 of run set 'ci-42'" "$T/out"
done
check "every case in exactly one shard" cmp -s <(printf '%s\n' "${all[@]}" | sort) \
	<(cat "$T"/s?.csv | grep -v '^case,' | cut -d, -f1 | sort -u)
check "the three runs' UUIDs differ" python3 -c "
import json, sys
u = {json.load(open('$T/s%d.json' % i))['run']['uuid'] for i in (1, 2, 3)}
sys.exit(len(u) != 3)"

# more shards than cases: the extra shards hold no case and still store a run
expect_exit 0 "shard 7/7 of a 5-case scenario" "$AB" run scenarios/smoke.ini --backend cpu --quick \
	--no-progress --shard 7/7 --run-set many --db "$T/e.db"
expect_exit 0 "list it" "$AB" list --db "$T/e.db"
check "a run with 0 cases" grep -qE ' 0 +ok ' "$T/out"
check "list names its shard and run set (issue 23: list showed neither)" \
	grep -qE ' 0 +ok +quick, shard 7/7 of set:many ' "$T/out"
expect_exit 0 "list a shard" "$AB" list --db "$T/s2.db"
check "shard 2/3 of set:ci-42" grep -qE ' ok +quick, shard 2/3 of set:ci-42 ' "$T/out"

# usage errors: nothing written
for bad in "0/3" "4/3" "3" "a/b" "1/0" "-1/2" "1/5000"; do
	expect_exit 2 "--shard $bad" "$AB" run scenarios/smoke.ini --backend cpu --shard "$bad" --run-set x --db "$T/bad.db"
done
check "names the syntax" grep -q -- "--shard must be I/N" "$T/err"
expect_exit 2 "--shard without --run-set" "$AB" run scenarios/smoke.ini --backend cpu --shard 1/2 --db "$T/bad.db"
check "asks for --run-set" grep -q -- "--shard needs --run-set" "$T/err"
expect_exit 2 "--shard with --only" "$AB" run scenarios/smoke.ini --backend cpu --shard 1/2 --run-set x --only ln_modulate --db "$T/bad.db"
expect_exit 2 "a run set id with a slash" "$AB" run scenarios/smoke.ini --backend cpu --shard 1/2 --run-set a/b --db "$T/bad.db"
expect_exit 2 "an empty run set id" "$AB" run scenarios/smoke.ini --backend cpu --run-set "" --db "$T/bad.db"
check "no database was written by bad usage" test ! -e "$T/bad.db"

# --run-set alone: shard 1/1, readable as the set
expect_exit 0 "--run-set without --shard" "$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --run-set solo --db "$T/solo.db"
expect_exit 0 "reads as set:solo" "$AB" show set:solo --db "$T/solo.db"
check "a set of 1 shard" grep -q "^run set 'solo': 1 shards" "$T/out"
finish
