#!/usr/bin/env bash
# abbench coverage (docs/CERTIFICATE.md): a signature log written by
# python/abbench_cert.py held against a certificate. A certified
# signature, one at a shape never proven (missing), one proven under
# another torch (other environment), one of a site the certificate has no
# entry of; counts weighted by calls (the log's first line and its flush
# at exit summed); exit 1 while any falls back. --emit-scenario writes a
# scenario of the missing ones with the certified arms, which abbench run
# accepts; certified with the first run, everything with arms is covered.
# A bad log line is exit 2 at FILE:LINE; a FIFO as the log or the
# certificate is exit 2 at once. glm_block.py's forward logs the
# model's real sites (stand-in tensors: the shapes are what is logged).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
. "$(dirname "$0")/certify_lib.sh"
cd "$T" || exit 2
"$AB" run work/cert.ini --db a.db --no-progress >/dev/null 2>&1
expect_exit 0 "certify" "$AB" certify 1 --db a.db --out a.json
# The certificate as issued where torch 2.11.0 ran the python arm.
cert_py - <<'PY'
import abbench_cert, json
d = json.load(open('a.json'))
for e in d['entries']:
    if e['case'] == 'gate_py': e['env']['torch'] = '2.11.0'
open('torch.json', 'w').write(json.dumps(abbench_cert.seal(d), indent=1))
PY

cert_py - <<'PY'
import abbench_cert
log = abbench_cert.SignatureLog("sig.jsonl", env={"torch": "2.12.0", "device": "stand-in"})
for _ in range(10):
    log.log("ln_modulate", (1, 16, 256), "bfloat16", 1e-5, False)     # certified
for _ in range(5):
    log.log("ln_modulate", (1, 48, 256), "bf16", 1e-5, False)         # a shape never proven
log.log("residual_gate_add", (1, 64, 256), "torch.bfloat16", 1e-5, False, count=3)  # proven under torch 2.11.0
log.log("qk_layernorm", (1, 8, 2, 64), "bf16", 1e-5, False, count=2)  # a site the certificate lacks
PY
check "the log: a line per signature at first sight, then the further calls at exit" \
	test "$(wc -l <sig.jsonl)" -eq 6 -a "$(grep -c '"count": 1,' sig.jsonl)" -eq 2
expect_exit 1 "coverage: some fall back" "$AB" coverage torch.json sig.jsonl
check "the certified one, its calls first" grep -Eq "^ +10  ln_modulate +1x16x256 +bf16 +1e-05 +no +certified \(case ln\[T=16\]\)$" "$T/out"
check "the missing shape" grep -Eq "^ +5  ln_modulate +1x48x256 .* missing; falls back$" "$T/out"
check "another torch" grep -Eq "^ +3  residual_gate_add +1x64x256 .* other environment: torch 2.11.0 -> 2.12.0 \(certified: case gate_py\); falls back$" "$T/out"
check "a site with no entry" grep -Eq "^ +2  qk_layernorm +1x8x2x64 .* missing; falls back \(no certified arms of this site\)$" "$T/out"
check "the totals, weighted by calls" \
	grep -q "^coverage: 1 of 4 signatures certified (10 of 20 calls, 50.0%); 1 in another environment, 2 missing$" "$T/out"

expect_exit 1 "--emit-scenario" "$AB" coverage torch.json sig.jsonl --emit-scenario work/missing.ini
check "the site without arms is said and left out" grep -q "site 'qk_layernorm' has no certified entry" "$T/err"
check "a case per signature that has arms" test "$(grep -c '^\[case ' work/missing.ini)" -eq 2
check "the certified arms" grep -q "^b = python:$T/work/py/rga_numpy.py:rga_exact$" work/missing.ini
expect_exit 0 "abbench run accepts it" "$AB" run work/missing.ini --db a.db --no-progress
expect_exit 0 "certify both runs" "$AB" certify 1 2 --db a.db --out both.json
check "8 certified now" grep -q "^certificate 'both.json': 8 signatures certified" "$T/out"
expect_exit 1 "coverage: only the site without arms falls back" "$AB" coverage both.json sig.jsonl
check "1x48x256 certified" grep -Eq "^ +5  ln_modulate +1x48x256 .* certified \(case sig1\)$" "$T/out"
check "the totals" grep -q "^coverage: 3 of 4 signatures certified (18 of 20 calls, 90.0%); 0 in another environment, 1 missing$" "$T/out"
grep -v qk_layernorm sig.jsonl >sig2.jsonl
expect_exit 0 "every logged signature certified: exit 0" "$AB" coverage both.json sig2.jsonl
expect_exit 0 "nothing left to emit: said, no file" "$AB" coverage both.json sig2.jsonl --emit-scenario none.ini
check "no file" test ! -e none.ini

printf '{"site": "ln_modulate", "shape": [1, 16, 256], "dtype": "bf16", "eps": 1e-05, "affine": false}\n\n{"site": "x", "shape": [0], "dtype": "bf16", "eps": 1e-05, "affine": false}\n' >bad.jsonl
expect_exit 2 "a bad line" "$AB" coverage a.json bad.jsonl
check "at FILE:LINE, why" grep -q "bad.jsonl:3: shape: expected a list of 1 to 8 positive integers" "$T/err"
echo '{"site": "ln_modulate"' >cut.jsonl
expect_exit 2 "a line that is not JSON" "$AB" coverage a.json cut.jsonl
expect_exit 2 "no log" "$AB" coverage a.json nope.jsonl
expect_exit 2 "a changed certificate" bash -c "sed 's/1x16x256/1x16x257/' a.json >t.json && '$AB' coverage t.json sig.jsonl"
expect_exit 2 "one argument" "$AB" coverage a.json
# a FIFO as the log or the certificate never hangs it (common/infile.h, issue 31 row 3)
mkfifo fifo.jsonl fifo.json
expect_exit 2 "a FIFO as the log: refused at once" timeout 20 "$AB" coverage a.json fifo.jsonl
check "it names the log and says a FIFO" grep -q "cannot open 'fifo.jsonl': it is a FIFO, not a regular file" "$T/err"
expect_exit 2 "a FIFO as the certificate: refused at once" timeout 20 "$AB" coverage fifo.json sig.jsonl
check "it names the certificate and says a FIFO" grep -q "cannot open 'fifo.json': it is a FIFO, not a regular file" "$T/err"
expect_exit 2 "certify --check of a FIFO: refused at once" timeout 20 "$AB" certify --check fifo.json
check "it says a FIFO" grep -q "'fifo.json': it is a FIFO, not a regular file" "$T/err"
expect_exit 0 "--help" "$AB" coverage --help

# glm_block.py's forward logs the model's sites: here its logging on
# stand-in tensors of the real shapes (torch is not on this machine).
ABBENCH_SIGNATURE_LOG="$T/glm.jsonl" PYTHONPATH="$ROOT/examples/python" "$PY" - <<'PY'
import glm_block, glm_model
class T:  # what the log reads of a tensor: its shape and dtype
    def __init__(self, *shape): self.shape, self.dtype = shape, "torch.bfloat16"
dims = glm_model.real_dims()
log = glm_block.signature_log()
h, e = T(1, dims.img, dims.hidden), T(1, dims.txt, dims.hidden)
for _ in range(glm_model.BLOCKS):
    glm_block.log_block_sites(log, dims, h, e, glm_model.EPS)
log.log("ln_continuous", h.shape, h.dtype, glm_model.EPS, False)
PY
expect_exit 1 "coverage of the model's log against a certificate of CPU shapes" "$AB" coverage a.json glm.jsonl
check "the model's sites, by calls" test "$(awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$T/out" | paste -sd' ')" = \
	"60 ln_modulate 1x4096x4096 60 residual_gate_add 1x4096x4096 60 ln_modulate 1x264x4096 60 residual_gate_add 1x264x4096 30 qk_layernorm 1x4360x32x128 1 ln_continuous 1x4096x4096"
finish
