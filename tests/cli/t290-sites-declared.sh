#!/usr/bin/env bash
# A site declared in a scenario (docs/SITES.md), with no C of abbench:
# scenarios/sites/modulate_scale_shift.ini, included by a scenario here,
# and the example plugin's arms of it (examples/plugin/declared_plugin.c).
# abbench sites lists its tensors (and the built-in ones': gate is B,W);
# the plugin's eager chain against its fused arm is byte-equal; the run
# says "no reference" for every output, never "ok"; JSON carries it;
# the bytes of the [arm]'s bytes = expression give the eager arm's GB/s;
# --dump writes each tensor in its dtype and the intermediates the eager
# arm says it writes; the baseline passes the gate, the inexact arm fails
# it for lost bit-exactness (exit 1); history follows the case. Fake timer.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
root=$(cd "$(dirname "$0")/../.." && pwd)
lib="$(dirname "$AB")/examples/plugin/libdeclared_plugin.so"
db="$T/d.db"
check "the declared-site plugin is built beside abbench" test -f "$lib"

expect_exit 0 "abbench sites" "$AB" sites
check "a built-in site's tensors: gate is bf16 B,W, an input" grep -Eq '^    gate +bf16 +B,W +input' "$T/out"
check "qk_layernorm's statistics are f32 per head of a token" grep -Eq '^    q_mean +f32 +B,T,H +stat$' "$T/out"
expect_exit 0 "abbench sites FILE" "$AB" sites "$root/scenarios/sites/modulate_scale_shift.ini"
check "the declared site, its axes and rule, where it is declared" \
	grep -q "^modulate_scale_shift  (BxTxW, W % 8 == 0)  declared at $root/scenarios/sites/modulate_scale_shift.ini:" "$T/out"
check "its tensors: scale bf16 B,W input, mul a scratch" \
	bash -c "grep -Eq '^    scale +bf16 +B,W +input$' '$T/out' && grep -Eq '^    mul +bf16 +B,T,W +scratch$' '$T/out'"
check "its inputs' own generators" grep -q '^  inputs drawn: scale = normal(0, 0.5), shift = normal(0, 0.5)' "$T/out"

scenario() { # FILE B_ARM
	cat >"$1" <<EOF
[scenario]
name = declared
include = $root/scenarios/sites/modulate_scale_shift.ini
backend = cpu
min_samples = 12
max_samples = 12
max_time_ms = 60000
[arms]
a = mss_eager
b = $2
[arm mss_eager]
type = plugin
site = modulate_scale_shift
library = $lib
name = mss_eager
writes = s1, mul
bytes = 2 * (2 * B * W + 4 * B * T * W + 2 * B * W)
[case mod]
site = modulate_scale_shift
shape = 2x32x256
[case mod_special]
site = modulate_scale_shift
shape = 1x16x512
input = special
EOF
}
scenario "$T/exact.ini" "plugin:$lib:mss_fused"
scenario "$T/inexact.ini" "plugin:$lib:mss_inexact"
expect_exit 0 "the fused arm against the eager chain" "$AB" run "$T/exact.ini" --db "$db" --label exact --no-progress \
	--dump "$T/dump"
expect_exit 0 "show" "$AB" show exact --db "$db"
check "b byte-equal to a in both cases" test "$(grep -c '^  b byte-equal to a: yes$' "$T/out")" -eq 2
check "every slot says no reference, none ok" \
	test "$(grep -c ' no reference$' "$T/out")" -eq 6 -a "$(grep -Ec '(yes|NO) +ok$' "$T/out")" -eq 0
check "no reference check is shown as failed" bash -c "! grep -q 'REFERENCE CHECK FAILED' '$T/out'"
check "the eager arm is credited its bytes expression (2x32x256: 2 x (2BW + 4BTW + 2BW) = 135168 bytes)" \
	grep -q '^  bandwidth: a mss_eager 135.2 kB' "$T/out"
check "the fused arm the site's minimum (x, out: 2 x 32768; scale, shift: 2 x 1024)" grep -q '; b mss_fused 67.6 kB' "$T/out"
got=$(sqlite3 "$db" <<'SQL'
SELECT count(*), sum(has_ref), sum(ref_ok) FROM outputs
SQL
)
check "the stored outputs have no reference (has_ref 0, never ref_ok 1)" test "$got" = "6|0|0"
expect_exit 0 "show --format json" "$AB" show exact --db "$db" --format json
check "JSON: a valid abbench.show" /usr/bin/python3 "$root/tests/tools/json_check.py" "$root/docs/JSON.md" abbench.show "$T/out"
check "JSON: has_reference false, in the slot and the summary" \
	/usr/bin/python3 -c "import json,sys; d=json.load(open('$T/out')); c=d['cases'][0]; sys.exit(not (c['summary']['has_reference'] is False and not any(s['has_reference'] for s in c['slots']) and c['arm_b'] == 'mss_fused'))"
expect_exit 0 "report" "$AB" report exact --db "$db" --out "$T/rep"
check "report: the accuracy says no reference" grep -q 'with no reference' "$T"/rep/*.md
/usr/bin/python3 - "$T/dump" <<'PY' && ok "dump: dtypes and shapes of the declared tensors, the eager arm's intermediates" || fail "dump: dtypes and shapes"
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
c = m["cases"][0]
assert c["dtypes"] == {"x": "bf16", "scale": "bf16", "shift": "bf16", "out": "bf16", "s1": "bf16", "mul": "bf16"}, c["dtypes"]
a1, b = c["slots"][0]["files"], c["slots"][1]["files"]
assert sorted(a1) == ["mul", "out", "s1"], a1  # eager says it writes them
assert sorted(b) == ["out"], b                 # the fused arm writes its output only
for f in list(c["inputs"].values()) + list(a1.values()) + list(b.values()):
    assert os.path.exists(os.path.join(d, f)), f
def shape(f):  # the .npy header's shape
    h = open(os.path.join(d, f), "rb").read(128).decode("latin-1")
    return h[h.index("(") : h.index(")") + 1]
assert shape(c["inputs"]["scale"]) == "(2, 256)", shape(c["inputs"]["scale"])
assert shape(a1["mul"]) == "(2, 32, 256)"
PY
expect_exit 0 "baseline set" "$AB" baseline set nightly exact --db "$db"
expect_exit 0 "the exact arm passes the gate against itself" "$AB" gate exact --baseline nightly --db "$db"

expect_exit 0 "the inexact arm runs (not byte-equal is a finding)" "$AB" run "$T/inexact.ini" --db "$db" --label inexact \
	--no-progress
check "its closing table says NO" test "$(grep -Ec ' NO( |$)' "$T/out")" -ge 2
expect_exit 1 "the gate fails it for lost bit-exactness" "$AB" gate inexact --baseline nightly --db "$db"
check "the verdict names lost bit-exactness" grep -qi 'bit-exact' "$T/out"
expect_exit 0 "history of the declared case" "$AB" history --case mod --db "$db"
check "history: both runs of case mod" test "$(grep -c 'exact\|inexact' "$T/out")" -ge 2
finish
