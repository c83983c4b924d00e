#!/usr/bin/env bash
# --dump writes each case's inputs and each arm's outputs as .npy files
# plus a manifest that names them all.
. "$(dirname "$0")/lib.sh"
db="$T/d.db"
dump="$T/dump"

expect_exit 0 "run with --dump" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick --dump "$dump"
check "manifest written" test -s "$dump/manifest.json"
check "no temporary manifest left" test ! -e "$dump/manifest.json.tmp"
check "inputs of ln_modulate" test -s "$dump/ln_modulate/in_x.npy"
check "A1 eager output" test -s "$dump/ln_modulate/A1_eager_out.npy"
check "B fused output" test -s "$dump/ln_modulate/B_fused_out.npy"
check "eager mean statistics" test -s "$dump/ln_modulate/A1_eager_mean.npy"
check "qk outputs" test -s "$dump/qk_layernorm/B_fused_k_out.npy"
check "npy magic" test "$(head -c 6 "$dump/ln_modulate/in_x.npy" | od -An -c | tr -d ' ')" = '223NUMPY'
# 1x16x256 bf16 = 8192 bytes of payload after the header
size=$(stat -c %s "$dump/ln_modulate/in_x.npy")
check "npy payload size (header multiple of 64)" test $(((size - 8192) % 64)) -eq 0
python3 - "$dump" <<'PY' && ok "manifest parses and every file exists" || fail "manifest parses and every file exists"
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
files = [f for c in m["cases"] for f in c["inputs"].values()]
files += [f for c in m["cases"] for s in c["slots"] for f in s["files"].values()]
missing = [f for f in files if not os.path.exists(os.path.join(d, f))]
assert not missing, missing
assert len(m["cases"]) == 5
PY
expect_exit 2 "--dump into a file path" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick --dump "$T/d.db"
finish
