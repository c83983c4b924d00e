#!/usr/bin/env bash
# Certificates of bit-exactness on the GPU (issue 30, docs/CERTIFICATE.md),
# on the GPU machine with build/ made elsewhere by `make` (this script
# builds nothing):
#   1. glm_1024.ini (the built-in sites at GLM-Image's real shapes) run
#      --quick, certified, and the certificate checked here (--check);
#   2. swiglu.ini (a declared site, PyTorch eager and Triton as Python
#      arms) run --quick, certified (mlp_777_f32 is inexact: left out),
#      checked;
#   3. a signature log written by examples/python/glm_block.py's forward
#      (the model's own calls, PyTorch eager) at 1024x1024 (4096 image
#      tokens: glm_1024's shapes) and at 512x512 (1024 image tokens: shapes
#      no scenario measured), held against the glm_1024 certificate
#      (coverage: the 512x512 ones fall back), the scenario coverage emits
#      for them run --quick, both runs certified, and the coverage again
#      (every signature certified).
# Usage: scripts/gpu/certify.sh. PYTHON picks the interpreter (default the
# venv); GLM_BLOCKS the blocks the forward runs (default 1: every block
# meets the same shapes, the counts scale with it). Results: $OUT (or
# ./gpu-out) gets certify.db, the certificates (glm.cert.json,
# swiglu.cert.json, glm_all.cert.json), the signature log
# (glm_sigs.jsonl), the emitted scenario (missing.ini) and every step's
# output; the table last (step, exit status, what it said). Exit 0 when
# every step ended as expected, else 1.
. "$(dirname "$0")/lib.sh" certify "$@"
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$AB" ] || { echo "certify.sh: no $AB: run make first"; exit 2; }
export ABBENCH_PYTHON=$PY PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export TRITON_CACHE_DIR=$TMP/triton
DB=$RESULTS/certify.db
table=$TMP/table.txt
printf '%-34s %4s %4s  %s\n' step want exit "what it said" >"$table"

# step NAME WANT SAYS_PATTERN command...: runs it (output in $RESULTS/NAME.txt),
# one table row: its exit status against the one expected, and the line
# of its output that matches SAYS_PATTERN.
step() {
	local name=$1 want=$2 pat=$3
	shift 3
	echo
	echo "=== $name: $* ==="
	local t0 said
	t0=$(date +%s)
	timeout -k 10 600 "$@" >"$RESULTS/$name.txt" 2>&1
	local rc=$?
	tail -30 "$RESULTS/$name.txt"
	echo "$name: exit $rc in $(( $(date +%s) - t0 )) s"
	[ "$rc" -eq "$want" ] || status=1
	said=$(grep -E "$pat" "$RESULTS/$name.txt" | tail -1 | cut -c1-150)
	printf '%-34s %4s %4s  %s\n' "$name" "$want" "$rc" "${said:-(nothing matched: $pat)}" >>"$table"
}

echo "=== device ==="
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }

# 1. glm_1024: the built-in sites at the real shapes
step glm_run 0 '^run [0-9]+ stored' "$AB" run scenarios/glm_1024.ini --db "$DB" --label glm --quick --no-progress
step glm_certify 0 '^certificate ' "$AB" certify glm --db "$DB" --out "$RESULTS/glm.cert.json"
grep '^environment:' "$RESULTS/glm_certify.txt" | head -2 | sed 's/^/    /' >>"$table"
step glm_check 0 '^check: ' "$AB" certify --check "$RESULTS/glm.cert.json" --no-progress

# 2. a declared site with Python arms (PyTorch eager, Triton)
step swiglu_run 0 '^run [0-9]+ stored' "$AB" run scenarios/swiglu.ini --db "$DB" --label swiglu --quick --no-progress
step swiglu_certify 0 '^certificate ' "$AB" certify swiglu --db "$DB" --out "$RESULTS/swiglu.cert.json"
grep -E '^(excluded|environment):' "$RESULTS/swiglu_certify.txt" | head -3 | cut -c1-150 | sed 's/^/    /' >>"$table"
step swiglu_check 0 '^check: ' "$AB" certify --check "$RESULTS/swiglu.cert.json" --no-progress

# 3. the model's own signatures: glm_block.py's forward at two resolutions
log=$RESULTS/glm_sigs.jsonl
rm -f "$log"
step forward_log 0 '^logged ' env ABBENCH_SIGNATURE_LOG="$log" PYTHONPATH="$ROOT/examples/python" "$PY" - "${GLM_BLOCKS:-1}" <<'PY'
import sys
import torch
import torch.nn.functional as F
import glm_block, glm_model
blocks = int(sys.argv[1])
for img in (4096, 1024):  # 1024x1024 and 512x512: a 64x64 and a 32x32 token grid
    dims = glm_model.Dims(1, img, glm_model.TXT_TOKENS, glm_model.HIDDEN, glm_model.HEADS, glm_model.TEMB_DIM).check()
    gen = torch.Generator(device="cuda").manual_seed(img)
    h = torch.randn(1, img, dims.hidden, device="cuda", generator=gen).to(torch.bfloat16)
    e = torch.randn(1, dims.txt, dims.hidden, device="cuda", generator=gen).to(torch.bfloat16)
    temb = torch.randn(1, dims.temb, device="cuda", generator=gen).to(torch.bfloat16)
    with torch.no_grad():
        glm_block.forward(torch, F, "eager", dims, h, e, temb, glm_model.EPS, blocks, True)
    torch.cuda.synchronize()
glm_block.signature_log().flush()
print("logged", sum(1 for _ in open(glm_block.signature_log().path)), "lines")
PY
step coverage_before 1 '^coverage: ' "$AB" coverage "$RESULTS/glm.cert.json" "$log" --emit-scenario "$RESULTS/missing.ini"
step missing_run 0 '^run [0-9]+ stored' "$AB" run "$RESULTS/missing.ini" --db "$DB" --label missing --quick --no-progress
step all_certify 0 '^certificate ' "$AB" certify glm missing --db "$DB" --out "$RESULTS/glm_all.cert.json"
step coverage_after 0 '^coverage: ' "$AB" coverage "$RESULTS/glm_all.cert.json" "$log"

echo
echo "=== certify: table ==="
cat "$table"
exit $status
