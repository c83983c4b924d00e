#!/usr/bin/env bash
# python/abbench_cert.py, the production side of a certificate
# (docs/CERTIFICATE.md), run by Debian's /usr/bin/python3 with nothing but
# the standard library: load() checks the sha256 abbench computed (the
# canonical form rebuilt byte for byte, non-ASCII and control characters
# included) and refuses a changed certificate, a duplicate key, a real
# number; covers() holds a signature and the running environment against
# the entries: a mismatched compute capability or torch falls back and
# explain() says which; the environment is read lazily, from torch when it
# can be imported (a stand-in torch and Triton here), never at load();
# log_signature() appends what abbench coverage reads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
. "$(dirname "$0")/certify_lib.sh"
cd "$T" || exit 2
"$AB" run work/cert.ini --db a.db --no-progress >/dev/null 2>&1
expect_exit 0 "certify" "$AB" certify 1 --db a.db --out a.json
sha=$(sed -n 's/^certificate .*; sha256 //p' "$T/out")
loaded=$(cert_py - <<'PY'
import abbench_cert
print(abbench_cert.load("a.json").sha256)
PY
)
check "load(): the sha256 abbench printed" test "$loaded" = "$sha"

# The certificate as issued on a device of compute capability 9.0 with torch 2.11.0.
cert_py - <<'PY'
import abbench_cert, json
d = json.load(open('a.json'))
for e in d['entries']:
    e['env'].update({'compute_capability': '9.0', 'torch': '2.11.0'})
open('gpu.json', 'w').write(json.dumps(abbench_cert.seal(d), indent=1))
PY
mkdir -p fake/torch fake/triton
cat >fake/torch/__init__.py <<'PY'
# A stand-in torch: what abbench_cert reads of one.
__version__ = "2.12.0"
class cuda:
    is_available = staticmethod(lambda: True)
    current_device = staticmethod(lambda: 0)
    get_device_capability = staticmethod(lambda dev: (10, 0))
    get_device_name = staticmethod(lambda dev: "Stand-in B200")
PY
echo '__version__ = "3.6.0"' >fake/triton/__init__.py

check "covers: signatures and environments" cert_py - <<'PY'
import abbench_cert as ac, sys
c = ac.load("gpu.json")
assert "torch" not in sys.modules, "load() imported torch"
here = {"compute_capability": "9.0", "torch": "2.11.0", "triton": "3.6.0"}
assert c.covers("ln_modulate", (1, 16, 256), "bf16", eps=1e-5, affine=False, env=here)
assert c.covers("ln_modulate", [1, 16, 512], "torch.bfloat16", eps=1e-6, affine=True, env=here)
assert not c.covers("ln_modulate", (1, 16, 512), "bf16", eps=1e-5, affine=True, env=here)      # another eps
assert not c.covers("ln_modulate", (1, 16, 512), "bf16", eps=1e-6, affine=False, env=here)     # not affine
assert not c.covers("ln_modulate", (1, 17, 256), "bf16", eps=1e-5, env=here)                   # another shape
assert not c.covers("ln_modulate", (1, 16, 256), "f16", eps=1e-5, env=here)                    # another dtype
assert not c.covers("modulate_scale_shift", (1, 32, 256), "bf16", eps=1e-5, env={"compute_capability": "10.0"})
assert c.explain("modulate_scale_shift", (1, 32, 256), "bf16", eps=1e-5, env={"compute_capability": "10.0", "torch": "2.12.0"}) \
    == "certified in another environment: compute capability 9.0 -> 10.0, torch 2.11.0 -> 2.12.0"
assert c.covers("modulate_scale_shift", (1, 32, 256), "bf16", eps=1e-5, env={"device": "another name"})  # not a judged key
assert c.covers("modulate_scale_shift", (1, 32, 256), "bf16", eps=1e-5, env={})                # nothing to judge by
assert c.explain("qk_layernorm", (1, 8, 2, 64), "bf16", env=here).startswith("no entry for qk_layernorm 1x8x2x64 bf16")
try:
    c.covers("ln_modulate", (1, 16, 256), "complex64")
    raise SystemExit("a dtype with no abbench name was accepted")
except ValueError as e:
    assert "complex64" in str(e)
PY
fake_py() { PYTHONPATH="$CERT_PY:$T/fake" "$PY" "$@"; } # the stand-in torch and triton importable
check "the running environment, read lazily from the importable torch and triton" fake_py - <<'PY'
import abbench_cert as ac, sys
c = ac.load("gpu.json")
assert "torch" not in sys.modules
assert not c.covers("ln_modulate", (1, 16, 256), "bf16", eps=1e-5)
assert c.environment() == {"torch": "2.12.0", "triton": "3.6.0", "compute_capability": "10.0", "device": "Stand-in B200"}
assert c.explain("ln_modulate", (1, 16, 256), "bf16") == "certified in another environment: compute capability 9.0 -> 10.0, torch 2.11.0 -> 2.12.0"
assert ac.load("a.json").covers("ln_modulate", (1, 16, 256), "bf16")  # issued without those keys: nothing differs
PY
if ! "$PY" -c 'import torch' 2>/dev/null; then
	check "without torch: no environment, nothing read" cert_py - <<'PY'
import abbench_cert as ac, sys
c = ac.load('gpu.json')
assert c.environment() == {} and 'torch' not in sys.modules
assert c.covers('ln_modulate', (1, 16, 256), 'bf16')
PY
fi

check "refused: a changed certificate, a duplicate key, a real number, another version" cert_py - <<'PY'
import abbench_cert as ac, json
text = open("a.json").read()
def refused(t, words):
    try:
        ac.loads(t, "x.json")
    except ac.CertificateError as e:
        assert words in str(e), (words, str(e))
        return
    raise SystemExit("accepted: " + words)
refused(text.replace('"seed": "5"', '"seed": "6"', 1), "it was changed after it was issued")
refused(text.replace('"format": "abbench.certificate"', '"format": "abbench.certificate", "format": "abbench.certificate"'), "appears twice")
refused(text.replace('"format_version": 2', '"format_version": 2.0'), "real number")
refused(text.replace('"format_version": 2', '"format_version": NaN'), "NaN")
refused(text.replace('"format_version": 2', '"format_version": 3'), "format_version 3")
refused("[1]", "not an abbench.certificate document")
refused("{", "not JSON")
d = json.loads(text); del d["entries"][0]["signature"]
refused(json.dumps(ac.seal(d)), "missing or of the wrong type")
PY

# Texts that need escaping: a scenario folder named with non-ASCII and
# control characters (a tab, ESC) reaches the certificate's paths.
odd=$(printf 'd\303\251j\303\240\t\033vu')
mkdir -p "$odd"
cp -r work/py work/lib work/sites "$odd/"
cert_scenario "$odd/s.ini"
expect_exit 0 "a run from that folder" "$AB" run "$odd/s.ini" --db o.db --no-progress
expect_exit 0 "certify it" "$AB" certify 1 --db o.db --out o.json
check "its paths hold the characters, escaped by jansson" grep -q 'd\\u00e9j\\u00e0\\t\\u001Bvu\|dé\(.*\)\\t\\u001Bvu' o.json
check "the python module rebuilds the same canonical form" cert_py - <<'PY'
import abbench_cert
abbench_cert.load("o.json")
PY
expect_exit 0 "and --check reads it" "$AB" certify --check o.json --no-progress

check "log_signature: a line at first sight, the further calls at flush" cert_py - <<'PY'
import abbench_cert as ac, json
c = ac.load("a.json", env={"torch": "2.11.0"}, log="c.jsonl")
for _ in range(4):
    c.log_signature("ln_modulate", (1, 16, 256), "bf16", eps=1e-5)
lines = [json.loads(l) for l in open("c.jsonl")]
assert lines == [{"site": "ln_modulate", "shape": [1, 16, 256], "dtype": "bf16", "eps": 1e-05, "affine": False,
                  "count": 1, "env": {"torch": "2.11.0"}}], lines
c.log.flush()
c.log.flush()
assert [json.loads(l)["count"] for l in open("c.jsonl")] == [1, 3]
ac.log_signature("m.jsonl", "qk_layernorm", (1, 8, 2, 64), "bf16")
PY
check "a module-level log is flushed at exit" test "$(wc -l <m.jsonl)" -eq 1
expect_exit 0 "abbench coverage reads them" "$AB" coverage a.json c.jsonl
check "4 calls certified" grep -q "^coverage: 1 of 1 signatures certified (4 of 4 calls, 100.0%)" "$T/out"
check "no log without log= or ABBENCH_SIGNATURE_LOG: nothing written" cert_py - <<'PY'
import abbench_cert as ac, os
os.environ.pop('ABBENCH_SIGNATURE_LOG', None)
c = ac.load('a.json')
c.log_signature('ln_modulate', (1, 16, 256), 'bf16')
assert c.log is None
PY
finish
