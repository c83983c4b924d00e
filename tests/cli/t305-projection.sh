#!/usr/bin/env bash
# report --projected-by (issue 22.3): the saving a site run projects beside
# the saving a run's cases measured, with the error and the kernel families.
# On the fake timer: glm_cpu.ini's six site cases (run 1) project, and
# smoke.ini's five cases (run 2) are held against them. The report's
# figures must be the ones `show --format json` gives for the same runs:
# projected = sum of count x (median A - median B) over run 1's cases, and
# each measured case's error = projected / (count x (A - B)) - 1. A name
# that matches nothing, the reported run itself, and a run still running
# are one-line errors that leave the database as it was. A device name
# with a backtick, a quote and a newline is markdown-escaped. Before: report
# had no --projected-by (exit 2, unknown option).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/p.db" ABBENCH_FAKE_TIMER=1
# glm_cpu.ini with 20 samples a slot in 2 rounds: the fake timer's model
# charges its cases what a real run costs, milliseconds a sample, and its
# stopping rule reads that time, so the scenario's own budget would cost
# this test a real run's 20 s; the name, and so --projected-by, is the same
sed -e 's/^max_samples = .*/max_samples = 20/' -e 's/^rounds = .*/rounds = 2/' scenarios/glm_cpu.ini >"$T/glm_cpu.ini"
"$AB" run "$T/glm_cpu.ini" --no-progress >/dev/null 2>&1
"$AB" run scenarios/smoke.ini --no-progress >/dev/null 2>&1
"$AB" show 1 --format json >"$T/sites.json"
"$AB" show 2 --format json >"$T/block.json"

expect_exit 0 "report 2 --projected-by glm_cpu (a scenario's name)" \
	"$AB" report 2 --projected-by glm_cpu --no-plots --out "$T/r"
md="$T/r/report.md"
check "the section is there" grep -q '^## Projection against measurement$' "$md"
check "it names the projecting run and the fake timer" \
	bash -c "grep -q 'The saving that run 1 (\`glm_cpu\`' '$md' && grep -q 'its times are a cost model' '$md'"
/usr/bin/python3 - "$T/sites.json" "$T/block.json" "$md" >"$T/py" 2>&1 <<'PY' || { cat "$T/py"; fail "figures agree with show --format json"; }
import json, re, sys
sites, block, md = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
proj = sum(c['count'] * (c['summary']['median_a_ns'] - c['summary']['median_b_ns']) for c in sites['cases'])
sec = md[md.index('## Projection against measurement'):]
row = re.search(r'^\| projected: 6 site cases of run 1 \|.*$', sec, re.M)
assert row, 'no projected row'
saving = re.findall(r'\*\*([0-9.]+) (ns|us|ms|s)\*\*', row.group(0))[0]
scale = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}[saving[1]]
assert abs(float(saving[0]) * scale - proj) <= 0.0006 * proj, (saving, proj)
for c in block['cases']:
    meas = c['count'] * (c['summary']['median_a_ns'] - c['summary']['median_b_ns'])
    r = re.search(r'^\| measured: `%s` x %d \|.*\*\*([-+][0-9.]+)%%\*\*' % (re.escape(c['name']), c['count']), sec, re.M)
    assert r, 'no row for ' + c['name']
    want = 100 * (proj / meas - 1)
    assert abs(float(r.group(1)) - want) <= 0.05 + 1e-6 * abs(want), (c['name'], r.group(1), want)
    assert ('### Where the difference goes: `%s` against run 1' % c['name']) in sec, c['name']
print('ok')
PY
check "figures agree with show --format json" grep -qx ok "$T/py"
# each family table's total row sums to the projected saving (isolated)
check "family tables: LayerNorm, elementwise and fused rows, gaps last" \
	bash -c "sed -n '/Where the difference goes: \`ln_modulate\`/,/^\*\*\|^###/p' '$md' | grep -c '^| \(LayerNorm\|elementwise\|fused\) |' | grep -qx 3"

expect_exit 0 "by run id" "$AB" report 2 --projected-by 1 --no-plots --out "$T/r2"
check "the same section" cmp -s <(sed -n '/^## Projection against/,/^## Accuracy/p' "$md") \
	<(sed -n '/^## Projection against/,/^## Accuracy/p' "$T/r2/report.md")
check "no section without the option" bash -c "! grep -q 'Projection against measurement' \"\$(\"$AB\" report 2 --no-plots --out '$T/r3' 2>/dev/null)\""

# the projecting run's device from a merged database, with a backtick, a
# quote, a newline and a pipe in it: the section's intro holds it on one
# line, markdown-escaped (md_cell), with no code span opened by it
cp "$ABBENCH_DB" "$T/odd.db"
sqlite3 "$T/odd.db" "INSERT INTO devices (name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes,
	driver_version, runtime_version, default_sm_mhz, copy_gbps) SELECT 'GPU \`touch PWN\` \"q\"' || char(10) ||
	'| x', 'odd-uuid', backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes, driver_version, runtime_version,
	default_sm_mhz, copy_gbps FROM devices WHERE id = (SELECT device_id FROM runs WHERE id = 1);
	UPDATE runs SET device_id = (SELECT id FROM devices WHERE uuid = 'odd-uuid') WHERE id = 1;"
expect_exit 0 "report with an odd device name" "$AB" report 2 --projected-by 1 --db "$T/odd.db" --no-plots --out "$T/r4"
check "the device name escaped on the intro's line" \
	grep -qF 'The saving that run 1 (`glm_cpu`, GPU \`touch PWN\` "q" \| x, ' "$T/r4/report.md"
check "and named again as a different device, escaped" grep -qF '(GPU \`touch PWN\` "q" \| x, CPU fake timer' "$T/r4/report.md"

sum_before=$(sha256sum "$ABBENCH_DB")
expect_exit 2 "a name that matches nothing" "$AB" report 2 --projected-by nosuch --no-plots --out "$T/e1"
check "one line naming it" bash -c "test \$(wc -l <'$T/err') -eq 1 && grep -q \"projected-by 'nosuch': no run, label or scenario\" '$T/err'"
expect_exit 2 "the reported run itself" "$AB" report 2 --projected-by 2 --no-plots --out "$T/e2"
check "says so" grep -q "names run 2, the run reported" "$T/err"
sqlite3 "$ABBENCH_DB" "UPDATE runs SET status = 'failed' WHERE id = 1"
sum_before=$(sha256sum "$ABBENCH_DB")
expect_exit 2 "a failed site run (by id)" "$AB" report 2 --projected-by 1 --no-plots --out "$T/e3"
check "says it is not ok" grep -q "run 1 is 'failed', not 'ok'" "$T/err"
expect_exit 2 "a failed site run (by scenario: none ok)" "$AB" report 2 --projected-by glm_cpu --no-plots --out "$T/e4"
check "the database is as it was" test "$(sha256sum "$ABBENCH_DB")" = "$sum_before"
check "no report written on error" test ! -e "$T/e1/report.md" -a ! -e "$T/e2/report.md" -a ! -e "$T/e3/report.md"
finish
