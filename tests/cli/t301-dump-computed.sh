#!/usr/bin/env bash
# --dump writes only what an arm computed (issue 23.11): the eager chains
# (and twopass) compute the LayerNorm's mean and rstd and have them dumped;
# the fused arms never store statistics, so neither their files nor their
# manifest entries exist (before, the fused slots' poisoned buffers were
# dumped and an independent oracle flagged every row of them). Every
# statistics file listed is finite and equals the A1 eager slot's, as an
# oracle checking whatever the manifest lists would demand. (About 1 s.)
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
PY=/usr/bin/python3
db="$T/d.db"

expect_exit 0 "smoke with --dump" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick --dump "$T/dump"
check "the eager slot's mean is dumped" test -s "$T/dump/ln_modulate/A1_eager_mean.npy"
check "qk's eager q_rstd is dumped" test -s "$T/dump/qk_layernorm/A1_eager_q_rstd.npy"
check "no fused mean file" test ! -e "$T/dump/ln_modulate/B_fused_mean.npy"
check "no fused qk statistics" bash -c "! ls '$T/dump/qk_layernorm/' | grep -q 'B_fused_.*\(mean\|rstd\)'"
check "the fused outputs are dumped" test -s "$T/dump/qk_layernorm/B_fused_q_out.npy"

printf '[scenario]\nname = tp\nbackend = cpu\n[arms]\na = eager\nb = twopass\n' >"$T/twopass.ini"
printf '[case ln_modulate]\nsite = ln_modulate\nshape = 1x16x256\n' >>"$T/twopass.ini"
printf '[case qk_layernorm]\nsite = qk_layernorm\nshape = 1x8x2x64\n' >>"$T/twopass.ini"
expect_exit 0 "twopass with --dump" "$AB" run "$T/twopass.ini" --backend cpu --db "$db" --quick --dump "$T/tp"
check "twopass computes statistics: dumped" test -s "$T/tp/ln_modulate/B_twopass_mean.npy"

cat >"$T/check.py" <<'PY'
import json, os, sys
import numpy as np
d, tolerant = sys.argv[1], sys.argv[2] == "twopass"
m = json.load(open(os.path.join(d, "manifest.json")))
bad = []
for c in m["cases"]:
    a1 = next(s for s in c["slots"] if s["slot"] == "A1")
    for s in c["slots"]:
        stats = [k for k in s["files"] if k.endswith("mean") or k.endswith("rstd")]
        if s["variant"] == "fused" and stats:
            bad.append(f"{c['name']} {s['slot']}: a fused slot lists {stats}")
        if s["variant"] in ("eager", "twopass") and c["site"] != "residual_gate_add" and not stats:
            bad.append(f"{c['name']} {s['slot']}: no statistics listed for {s['variant']}")
        for k in stats:
            got = np.load(os.path.join(d, s["files"][k]))
            ref = np.load(os.path.join(d, a1["files"][k]))
            if not np.isfinite(got).all():
                bad.append(f"{c['name']} {s['slot']} {k}: not finite (poison)")
            elif not tolerant and not np.array_equal(got, ref):
                bad.append(f"{c['name']} {s['slot']} {k}: differs from A1's")
            elif tolerant and not np.allclose(got, ref, rtol=1e-4, atol=1e-5):
                bad.append(f"{c['name']} {s['slot']} {k}: far from A1's")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "every listed statistics file is computed (smoke)" "$PY" "$T/check.py" "$T/dump" eager
check "every listed statistics file is computed (twopass)" "$PY" "$T/check.py" "$T/tp" twopass
finish
