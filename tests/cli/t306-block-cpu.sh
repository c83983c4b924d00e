#!/usr/bin/env bash
# The block at model level on the CPU (issue 22 items 2, 3, 4, 5): the
# declared sites glm_block and glm_step (scenarios/sites/glm_block.ini) run
# end to end through abbench with the numpy stand-in
# (examples/python/glm_block_np.py, via glm_block.py's arms) at 1x16x8x64x2x16:
# A/B/A, both outputs byte-equal between eager and fused (the md5 analogue
# of the seed's images), stored; `report --projected-by glm_cpu` puts the
# site cases' projection beside the measured saving with its error and the
# families; scripts/nightly.sh gates a second glm_block_cpu run against the
# first like any scenario (exit 0); a
# fused arm made inexact (GLM_BLOCK_NP_BREAK_GATE) loses bit-exactness and
# the gate fails it (exit 1). Fake timer: the verdicts do not depend on
# this machine's load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_DB="$T/b.db" ABBENCH_FAKE_TIMER=1
ROOT=$PWD
expect_exit 0 "glm_block_cpu runs" "$AB" run scenarios/glm_block_cpu.ini --no-progress --label block-1
check "both cases, byte-equal" bash -c "grep -E '^(glm_block|glm_step) ' '$T/out' | grep -c ' yes ' | grep -qx 2"
"$AB" show block-1 --format json >"$T/block.json"
check "each case: 3 slots, the md5s of its two outputs the same in every slot" "$PY" - "$T/block.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["cases"]]
assert names == ["glm_block", "glm_step"], names
for c in d["cases"]:
    assert c["summary"]["b_byte_equal"] and c["summary"]["a_deterministic"], c["name"]
    assert len(c["slots"]) == 3, c["name"]
    sums = {tuple(s["md5"]) for s in c["slots"]}
    assert len(sums) == 1 and len(next(iter(sums))) == 2, (c["name"], sums)
PY
# glm_cpu.ini at 20 samples a slot in 2 rounds (the fake timer charges its
# cases a real run's milliseconds: its own budget would cost 20 s here)
sed -e 's/^max_samples = .*/max_samples = 20/' -e 's/^rounds = .*/rounds = 2/' scenarios/glm_cpu.ini >"$T/glm_cpu.ini"
expect_exit 0 "glm_cpu (the site cases)" "$AB" run "$T/glm_cpu.ini" --no-progress --label sites
expect_exit 0 "report --projected-by glm_cpu" "$AB" report block-1 --projected-by glm_cpu --no-plots --out "$T/r"
md="$T/r/report.md"
# (the fake timer costs both arms' calls alike: a saving of about 0, whose
# error is n/a; t305 checks the error's figure)
check "the projection beside both measured cases, with an error" \
	bash -c "grep -Eq '^\| measured: \`glm_block\` \(a \`block_eager\`, b \`block_fused\`\) x 30 \|.*\| yes \| (\*\*[-+][0-9.]+%\*\*|n/a) ' '$md' &&
		grep -Eq '^\| measured: \`glm_step\` \(a \`step_eager\`, b \`step_fused\`\) x 1 \|.*\| yes \| (\*\*[-+][0-9.]+%\*\*|n/a) ' '$md'"
check "the block's families: the stand-in's kernels in context, the sites' in isolation" \
	bash -c "sed -n '/Where the difference goes: \`glm_step\`/,/^| \*\*total/p' '$md' | grep -q '^| \*\*total\*\* |'"

expect_exit 0 "the block case alone, the night's baseline" "$AB" run scenarios/glm_block_cpu.ini --no-progress \
	--label block-0 --only glm_block
expect_exit 0 "baseline set" "$AB" baseline set block block-0
# the step (30 blocks a call) gets a few samples a slot in the scenario's
# 300 ms, fewer than the gate's 10: gated, it is inconclusive (exit 4), so
# the night measures and gates the block case (against a baseline of it)
expect_exit 0 "nightly.sh gates a second run of the block case against it" env NIGHTLY_LABEL=block-2 \
	NIGHTLY_OUT="$T/n" scripts/nightly.sh scenarios/glm_block_cpu.ini block --only glm_block
check "its summary line: 1 case, passed" grep -Eq "^PASS.*1 cases of 'block-2' against baseline 'block': 1 passed" "$T/n/summary.txt"

# a fused arm that skips one bf16 rounding (the gate's product), as
# tests/tools/block_standin_check.py plants it: not byte-equal, and the
# gate fails it
cat >"$T/broken.py" <<PY
import sys
sys.path.insert(0, "$ROOT/examples/python")
import glm_block, glm_block_np as nb


def block_broken(t, d):
    exact = nb.FUSED["gate"]
    nb.FUSED["gate"] = lambda x, y, g: nb.to_bf16(nb.to_f32(x) + nb.to_f32(y) * nb.to_f32(g)[:, None, :])
    try:
        return glm_block.block_fused(t, d)
    finally:
        nb.FUSED["gate"] = exact
PY
sed -e "s|^include = sites/|include = $ROOT/scenarios/sites/|" -e "s|python:\.\./examples/python/|python:$ROOT/examples/python/|" \
	-e "s|^b = python:.*:block_fused$|b = python:$T/broken.py:block_broken|" scenarios/glm_block_cpu.ini >"$T/broken.ini"
expect_exit 0 "an inexact fused block runs" "$AB" run "$T/broken.ini" --no-progress --label broken --only glm_block
check "not byte-equal" grep -Eq '^glm_block .* NO +lost bit-exactness +a=block_eager b=block_broken$' "$T/out"
expect_exit 1 "the gate fails it for lost bit-exactness" "$AB" gate broken --baseline block --only glm_block
check "says so" grep -qi "bit-exact" "$T/out"
cd "$ROOT" || exit 1
finish
