#!/usr/bin/env bash
# Arms per case: a [case]'s a and b override [arms]'s, so one scenario holds
# the arms of several sites. scenarios/sites_cpu.ini (declared sites and a
# built-in one, plugin and built-in arms) runs whole; each case's arms are
# stored with it and in run_arms once per side; show, report, compare,
# gate and JSON name a case's arms where they are not the run's; a
# scenario whose every case names its own has no run-level arms ("per
# case"); two shards of such a scenario merge into a set the gate reads
# as one run. Fake timer.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
root=$(cd "$(dirname "$0")/../.." && pwd)
plugdir="$(dirname "$AB")/examples/plugin"
db="$T/c.db"

# The shipped scenario, its includes and libraries made absolute.
sed -e "s|^include = sites/|include = $root/scenarios/sites/|; s|, sites/|, $root/scenarios/sites/|" \
	-e "s|\.\./build/examples/plugin|$plugdir|g" "$root/scenarios/sites_cpu.ini" >"$T/sites_cpu.ini"
expect_exit 0 "scenarios/sites_cpu.ini: three sites, one scenario" "$AB" run "$T/sites_cpu.ini" --db "$db" --quick \
	--label cpu --no-progress
check "the closing table names the arms of the cases that have their own" \
	bash -c "grep -Eq '^embed .* a=gather b=gather_rows$' '$T/out' && grep -Eq '^gate .* a=eager b=fused$' '$T/out'"
q() { sqlite3 "$db"; } # the query on stdin
got=$(q <<'SQL'
SELECT group_concat(printf('%s=%s/%s', name, arm_a, arm_b), ' ') FROM (SELECT * FROM cases ORDER BY ordinal)
 WHERE name NOT LIKE 'mod[%';
SELECT printf('%s/%s', arm_a, arm_b) FROM runs;
SELECT count(*) FROM slots s JOIN cases c ON c.id = s.case_id
 WHERE s.variant != CASE s.arm WHEN 'a' THEN c.arm_a ELSE c.arm_b END;
SELECT group_concat(printf('%s:%s', arm, name), ' ') FROM (SELECT * FROM run_arms ORDER BY arm, name);
SQL
)
check "each case's arms stored with it; the run's arms are [arms]'s; every slot ran its case's arm; run_arms: every user arm once per side" \
	test "$got" = "$(printf '%s\n' 'mod_special=mss_eager/mss_fused embed=gather/gather_rows gate=eager/fused' \
		mss_eager/mss_fused 0 'a:gather a:mss_eager b:gather_rows b:mss_fused')"
expect_exit 0 "show" "$AB" show cpu --db "$db"
check "show: a case with its own arms says so" grep -q '^  arms: a=gather b=gather_rows (its own; the run.s: a=mss_eager b=mss_fused)$' "$T/out"
check "show: the built-in case's reference is checked, the declared ones have none" \
	bash -c "grep -A4 '^case gate ' '$T/out' | grep -Eq 'yes +ok$' && grep -A4 '^case embed ' '$T/out' | grep -q 'no reference$'"
expect_exit 0 "report" "$AB" report cpu --db "$db" --out "$T/rep"
check "report: the summary names each case's own arms" \
	grep -q '^| `embed` (a `gather`, b `gather_rows`) |' "$T"/rep/*.md
check "report: the [arms] cases stay plain" grep -q '^| `mod_special` |' "$T"/rep/*.md
expect_exit 0 "export json" "$AB" export cpu --db "$db" --format json --out "$T/e.json"
check "JSON: a valid abbench.export" /usr/bin/python3 "$root/tests/tools/json_check.py" "$root/docs/JSON.md" abbench.export "$T/e.json"
check "JSON: each case's arms" /usr/bin/python3 -c "
import json, sys
c = {x['name']: x for x in json.load(open('$T/e.json'))['cases']}
sys.exit(not (c['embed']['arm_a'] == 'gather' and c['gate']['arm_b'] == 'fused' and c['mod_special']['arm_b'] == 'mss_fused'))"

# Every case its own arms: no run-level arms; compare, gate, shards.
cat >"$T/own.ini" <<EOF
[scenario]
name = own
include = $root/scenarios/sites/modulate_scale_shift.ini
backend = cpu
min_samples = 12
max_samples = 12
max_time_ms = 60000
[case mod]
site = modulate_scale_shift
shape = 1x32x128
a = plugin:$plugdir/libdeclared_plugin.so:mss_eager
b = plugin:$plugdir/libdeclared_plugin.so:mss_fused
[case ln]
site = ln_modulate
shape = 1x32x128
a = fused
b = twopass
[case qk]
site = qk_layernorm
shape = 1x8x2x64
EOF
expect_exit 0 "a scenario whose cases name their own arms (and one the defaults)" "$AB" run "$T/own.ini" --db "$db" \
	--label own1 --no-progress
got=$(q <<'SQL'
SELECT printf('%s/%s', arm_a, arm_b) FROM runs WHERE label = 'own1'
SQL
)
check "the run's arms: [arms]'s defaults, which case qk runs" test "$got" = "eager/fused"
sed '/^\[case qk\]/,$d' "$T/own.ini" >"$T/own2.ini"
expect_exit 0 "without the default case" "$AB" run "$T/own2.ini" --db "$db" --label own2 --no-progress
got=$(q <<'SQL'
SELECT printf('[%s/%s]', arm_a, arm_b) FROM runs WHERE label = 'own2'
SQL
)
check "no run-level arms: every case names its own" test "$got" = "[/]"
check "the closing table says per case" grep -q 'A (per case) .*B (per case)' "$T/out"
expect_exit 0 "again, for compare and gate" "$AB" run "$T/own2.ini" --db "$db" --label own3 --no-progress
expect_exit 0 "compare" "$AB" compare own2 own3 --db "$db"
check "compare names the case's arms" grep -q '^| `mod` (a `mss_eager`, b `mss_fused`) |' "$T/out"
expect_exit 0 "baseline" "$AB" baseline set base own2 --db "$db"
expect_exit 0 "the gate passes" "$AB" gate own3 --baseline base --db "$db"
check "the gate names the case's arms" grep -q '^| `ln` (a `fused`, b `twopass`) |' "$T/out"
expect_exit 0 "gate --format json" "$AB" gate own3 --baseline base --db "$db" --format json
check "JSON: a valid abbench.gate, the case's arms" bash -c "/usr/bin/python3 '$root/tests/tools/json_check.py' '$root/docs/JSON.md' abbench.gate '$T/out' && grep -q '\"arm_b\": \"mss_fused\"' '$T/out'"
for i in 1 2; do
	expect_exit 0 "shard $i/2" "$AB" run "$T/own2.ini" --db "$T/shard$i.db" --shard $i/2 --run-set own --no-progress
done
expect_exit 0 "merge the shards" "$AB" merge "$db" "$T/shard1.db" "$T/shard2.db"
expect_exit 0 "the gate reads the set as one run" "$AB" gate set:own --baseline base --db "$db"
finish
