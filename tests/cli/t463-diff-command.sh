#!/usr/bin/env bash
# abbench diff (issue 29.2): on a built-in site whose eager chain writes
# intermediates (ln_modulate, eager against the CPU's two-pass variant,
# which writes mean and rstd too): the chain's order mean, rstd, out and
# the departure at mean, the float64 reference's values and side; --output
# NAME; text, markdown and JSON (valid against docs/JSON.md); --out FILE;
# --out DIR with the document and a PNG heatmap per differing tensor
# (whole PNGs, gnuplot's script and data beside them); the same report
# from a merged database and from a run set; the errors (unknown case with
# a did-you-mean, unknown tensor, a missing run) exit 2. Fake timer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/d.db"
cat >"$T/tw.ini" <<'EOF'
[scenario]
name = tw
backend = cpu
warmup = 0
min_samples = 5
max_samples = 5
[arms]
a = eager
b = twopass
[case ln_mod]
site = ln_modulate
shape = 1x128x1024
[case qk_norm]
site = qk_layernorm
shape = 1x32x4x64
EOF
expect_exit 0 "eager against twopass on the CPU" "$AB" run "$T/tw.ini" --db "$db" --no-progress
expect_exit 0 "diff --help" "$AB" diff --help
check "its usage" grep -q "^usage: abbench diff RUN CASE" "$T/out"

expect_exit 0 "diff last ln" "$AB" diff last ln_mod --db "$db"
check "the chain's order and the departure at mean" \
	grep -q "compared       mean DIFFERS, rstd DIFFERS, out DIFFERS; the first stage that departs: 'mean'" "$T/out"
check "the output's elements with the float64 reference's value" \
	grep -Eq "^    first          at \[b=0, t=[0-9]+, w=[0-9]+\] \(element [0-9]+\): A .*, B .*, reference -?[0-9]" "$T/out"
check "which side is nearer the reference" grep -Eq "^    reference      B is the nearer on [0-9.]+% of the [0-9]+ compared" "$T/out"
check "statistics have no reference" grep -q "^  mean (stat, f32, \[B,T\] = \[1,128\])" "$T/out"
expect_exit 0 "--output out" "$AB" diff last ln_mod --db "$db" --output out
check "only out's figures" test "$(grep -c '^  [a-z_]* (\(stat\|output\|scratch\)' "$T/out")" -eq 1
expect_exit 0 "qk_layernorm: outputs byte-equal, statistics not" "$AB" diff last qk_norm --db "$db" --format json
check "q's statistics before its output, then k's; the departure at q_mean; the outputs byte-equal" /usr/bin/python3 -c "
import json; d = json.load(open('$T/out'))
(b,) = d['slots']
assert b['compared'] == ['q_mean', 'q_rstd', 'q_out', 'k_mean', 'k_rstd', 'k_out'] and b['departure'] == 'q_mean', b
assert b['byte_equal'] and d['summary']['differing'] == 0 and d['summary']['departure'] == 'q_mean', d['summary']
t = b['tensors'][0]
assert t['tensor'] == 'q_mean' and t['axes'] == ['B', 'T', 'H'] and set(t['first']['coords']) == {'b', 't', 'h'}, t"
python3 tests/tools/json_check.py docs/JSON.md abbench.diff "$T/out" && ok "valid abbench.diff" || fail "qk json schema"

expect_exit 0 "--format markdown --out FILE" "$AB" diff last ln_mod --db "$db" --format markdown --out "$T/ln.md"
check "a markdown document with a table per tensor" \
	test "$(grep -c '^| figure | value |$' "$T/ln.md")" -eq 3 -a "$(grep -c '^## Where the bits differ: `ln_mod`$' "$T/ln.md")" -eq 1
check "nothing on standard output" test ! -s "$T/out"

if command -v gnuplot >/dev/null; then
	expect_exit 0 "--out DIR/" "$AB" diff last ln_mod --db "$db" --format markdown --out "$T/dir/"
	check "the document in the directory" test -s "$T/dir/diff.md"
	for n in mean rstd out; do
		png="$T/dir/heatmap-B-$n.png"
		check "heatmap of $n: a whole PNG" test "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
		check "with its script and data" test -s "$T/dir/heatmap-B-$n.gp" -a -s "$T/dir/heatmap-B-$n.dat"
		check "linked from the document" grep -q "](heatmap-B-$n.png)$" "$T/dir/diff.md"
	done
	check "the data: 128 rows of 64 columns, their counts the differing elements" /usr/bin/python3 -c "
import json, subprocess
rows = [l.split() for l in open('$T/dir/heatmap-B-out.dat') if not l.startswith('#')]
assert len(rows) == 128 and all(len(r) == 64 for r in rows)
d = json.loads(subprocess.run(['$AB', 'diff', 'last', 'ln_mod', '--db', '$db', '--format', 'json', '--output', 'out'], capture_output=True).stdout)
assert sum(int(x) for r in rows for x in r) == d['slots'][0]['tensors'][0]['differing']"
	expect_exit 0 "--format json --out DIR (existing)" "$AB" diff last ln_mod --db "$db" --format json --out "$T/dir"
	check "names the heatmaps" /usr/bin/python3 -c "
import json; d = json.load(open('$T/dir/diff.json'))
assert [t['heatmap'] for t in d['slots'][0]['tensors']] == ['heatmap-B-mean.png', 'heatmap-B-rstd.png', 'heatmap-B-out.png']"
	python3 tests/tools/json_check.py docs/JSON.md abbench.diff "$T/dir/diff.json" && ok "valid" || fail "dir json schema"
fi

# the divergences travel with the run: merged, and read as a run set
expect_exit 0 "merge" "$AB" merge "$T/m.db" "$db"
"$AB" diff last ln_mod --db "$db" >"$T/a.txt"
"$AB" diff last ln_mod --db "$T/m.db" >"$T/b.txt"
check "the merged database gives the same report (but the run's id line)" \
	cmp -s <(tail -n +2 "$T/a.txt") <(tail -n +2 "$T/b.txt")
plant_scenario "$T/p.ini"
for i in 1 2; do
	expect_exit 0 "shard $i of a run set" "$AB" run "$T/p.ini" --db "$db" --no-progress --shard "$i/2" --run-set ps
done
expect_exit 0 "diff of a run set's case" "$AB" diff set:ps ulp1_f16 --db "$db" --format json
check "its figures" /usr/bin/python3 -c "
import json; d = json.load(open('$T/out')); s = d['summary']
assert s['differing'] == 1 and s['max_ulp'] == 1 and d['run']['run_set'] == 'ps', s"

expect_exit 2 "an unknown case" "$AB" diff 1 ln_modd --db "$db"
check "did you mean" grep -q "diff: run 1 has no case 'ln_modd' (did you mean 'ln_mod'?)" "$T/err"
expect_exit 2 "a case far from any" "$AB" diff 1 zzzzzz --db "$db"
check "lists the cases" grep -q "diff: run 1 has no case 'zzzzzz' (its cases: ln_mod, qk_norm)" "$T/err"
expect_exit 2 "a mistyped tensor" "$AB" diff 1 ln_mod --db "$db" --output mod_mull
check "did you mean" grep -q "diff: case 'ln_mod' has no tensor 'mod_mull' (did you mean 'mod_mul'?)" "$T/err"
expect_exit 2 "an unknown tensor" "$AB" diff 1 ln_mod --db "$db" --output zzzzzzzz
check "lists the case's tensors" \
	grep -q "diff: case 'ln_mod' has no tensor 'zzzzzzzz' (its tensors: mean rstd ln_out scale1 mod_mul out)" "$T/err"
expect_exit 2 "a run that does not exist" "$AB" diff 99 ln --db "$db"
expect_exit 2 "a format that prints no diff" "$AB" diff last ln_mod --db "$db" --format csv
finish
