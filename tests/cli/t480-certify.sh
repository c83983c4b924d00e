#!/usr/bin/env bash
# abbench certify (docs/CERTIFICATE.md): a certificate from a fake-timer
# run of every kind of arm: the byte-equal cases are entries (signature,
# inputs, arms' provenance, environment, md5s, run), the inexact one is
# listed apart; the document is valid against docs/JSON.md; two identical
# runs give the same certificate byte for byte, and any field changes its
# sha256; a changed certificate is refused (exit 2), and so are bad ones;
# --check of an unchanged certificate says every entry is still exact
# (exit 0); the report's "Certified" section lists the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
. "$(dirname "$0")/certify_lib.sh"
valid() { python3 "$ROOT/tests/tools/json_check.py" "$ROOT/docs/JSON.md" abbench.certificate "$1"; }

cd "$T" || exit 2
expect_exit 0 "the run" "$AB" run work/cert.ini --db a.db --no-progress
expect_exit 0 "certify it" "$AB" certify 1 --db a.db --out a.json
check "says 6 certified, 1 excluded, and the sha256" \
	grep -Eq "^certificate 'a.json': 6 signatures certified, 1 excluded; sha256 [0-9a-f]{64}$" "$T/out"
check "the excluded case and why" \
	grep -q "^excluded: gate_py_inexact (residual_gate_add 1x64x256, run 1): slot B: 'out' not byte-equal to A1 ([0-9]* elements differ)$" "$T/out"
check "the environment with python and numpy" grep -q "^environment: backend cpu, device CPU fake timer.*, python 3\.[0-9.]*, numpy [0-9]" "$T/out"
check "valid abbench.certificate" valid a.json
check "the entries, as the run and its files say" cert_py - a.json work <<'PY'
import hashlib, json, sqlite3, sys
doc, work = json.load(open(sys.argv[1])), sys.argv[2]
e = {x["case"]: x for x in doc["entries"]}
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
db = sqlite3.connect("a.db")
a1 = dict(db.execute("SELECT c.name, o.md5 FROM outputs o JOIN slots s ON s.id = o.slot_id JOIN cases c ON c.id = s.case_id WHERE s.label = 'A1'"))
assert sorted(e) == ["gate_py", "ln[T=16]", "ln[T=32]", "ln_offset", "ln_special", "mss"], sorted(e)
assert [x["case"] for x in doc["excluded"]] == ["gate_py_inexact"]
assert all(x["outputs"][0]["md5"] == a1[c] for c, x in e.items())
assert e["ln[T=32]"]["signature"]["shape"] == [1, 32, 256] and e["ln[T=32]"]["signature"]["axes"] == ["B", "T", "W"]
assert e["ln[T=32]"]["sweep"] == "ln" and e["ln[T=32]"]["sweep_axis"] == "T"
assert e["ln_offset"]["inputs"]["kinds"] == ["offsets"] and e["ln[T=16]"]["inputs"]["kinds"] == ["normal"]
s = e["ln_special"]
assert s["inputs"]["kinds"] == ["special"] and s["signature"]["eps"] == "1e-06" and s["signature"]["affine"]
assert set(s["signature"]["dtypes"]) == {"x", "scale", "shift", "weight", "bias", "out"}, s["signature"]["dtypes"]
assert "weight" not in e["ln_offset"]["signature"]["dtypes"]
assert all(x["inputs"]["seed"] == "5" for x in e.values())
b = e["gate_py"]["arms"]["b"]
assert b["kind"] == "python" and b["function"] == "rga_exact" and b["sha256"] == sha(work + "/py/rga_numpy.py")
assert b["shortcut"] == "python:%s/py/rga_numpy.py:rga_exact" % doc["runs"][0]["scenario_dir"]
a = e["gate_py"]["arms"]["a"]
assert a["kind"] == "builtin" and a["build_commit"] == doc["runs"][0]["git_commit"] != ""
env = e["gate_py"]["env"]
assert env["python"].startswith("3.") and "numpy" in env and "python" not in e["ln_offset"]["env"], env
m = e["mss"]
assert not m["site"]["builtin"] and m["site"]["sha256"] == hashlib.sha256(m["site"]["text"].encode()).hexdigest()
assert m["site"]["text"].startswith("[site modulate_scale_shift]\naxes = B T W\ntensors = x:bf16:B,T,W:input\n")
for side, fn in (("a", "mss_eager"), ("b", "mss_fused")):
    arm = m["arms"][side]
    assert arm["kind"] == "plugin" and arm["function"] == fn and arm["sha256"] == sha(work + "/lib/libdeclared_plugin.so")
    assert "library = %s/lib/libdeclared_plugin.so\n" % doc["runs"][0]["scenario_dir"] in arm["section"], arm["section"]
assert doc["runs"][0]["run_ids"] == [1] and doc["runs"][0]["scenario"] == "cert"
PY

# Two identical runs, each into a database of its own: the same certificate.
expect_exit 0 "the same run again, into another database" "$AB" run work/cert.ini --db b.db --no-progress
expect_exit 0 "certify it" "$AB" certify 1 --db b.db --out b.json
check "the same certificate, byte for byte" cmp -s a.json b.json
check "and the python module computes the same sha256 from its content" cert_py - <<'PY'
import abbench_cert, json, sys
d = json.load(open('a.json'))
sys.exit(abbench_cert.digest(d) != d['sha256'])
PY
check "any field changes the sha256 (every leaf, one at a time)" cert_py - a.json <<'PY'
import abbench_cert, json, sys
doc = json.load(open(sys.argv[1]))
base, n = doc["sha256"], 0
def leaves(v, path):
    if isinstance(v, dict):
        for k in v: yield from leaves(v[k], path + [k])
    elif isinstance(v, list):
        for i, x in enumerate(v): yield from leaves(x, path + [i])
    else: yield path
def setp(d, path, value):
    for p in path[:-1]: d = d[p]
    d[path[-1]] = value
for path in leaves(doc, []):
    if path == ["sha256"]: continue
    d = json.loads(json.dumps(doc))
    v = d
    for p in path: v = v[p]
    setp(d, path, (not v) if isinstance(v, bool) else v + 1 if isinstance(v, int) else v + "x")
    assert abbench_cert.digest(d) != base, path
    n += 1
assert n > 200, n
print("leaves", n, file=sys.stderr)
PY

# A changed certificate is refused, and so are documents that are none.
tamper() { cert_py -c "import json,sys; d=json.load(open('a.json')); $1; open('$2','w').write(json.dumps(d, indent=1))"; }
tamper "d['entries'][0]['signature']['shape'][1] = 17" t1.json
expect_exit 2 "--check refuses a certificate changed after it was issued" "$AB" certify --check t1.json
check "saying so" grep -q "certificate 't1.json': its sha256 [0-9a-f]\{16\}\.\.\. is not that of its content ([0-9a-f]\{16\}\.\.\.): it was changed after it was issued" "$T/err"
tamper "d['entries'][0]['env']['numpy'] = '0.1'" t2.json
expect_exit 2 "an environment key changed" "$AB" certify --check t2.json
tamper "import abbench_cert; d['entries'][0]['note'] = 'x'; d = abbench_cert.seal(d)" t3.json
expect_exit 2 "an unknown member, even sealed" "$AB" certify --check t3.json
check "named" grep -q "certificate 't3.json': entries\[0\]: unknown member 'note'" "$T/err"
sed 's/"format_version": 2/"format_version": 2.0/' a.json >t4.json
expect_exit 2 "a real number" "$AB" certify --check t4.json
check "named" grep -q "t4.json': format_version: expected an integer, found a real" "$T/err"
printf '{"format": "abbench.certificate", "format": "x"}' >t5.json
expect_exit 2 "a duplicate key" "$AB" certify --check t5.json
check "named" grep -q "duplicate object key" "$T/err"
echo '{"format": "abbench.show"}' >t6.json
expect_exit 2 "another document" "$AB" certify --check t6.json
check "named" grep -q "format is 'abbench.show', not 'abbench.certificate'" "$T/err"
head -c 100 a.json >t7.json
expect_exit 2 "a cut file" "$AB" certify --check t7.json
expect_exit 2 "no file" "$AB" certify --check nope.json
check "named" grep -q "cannot open 'nope.json': No such file or directory" "$T/err"

# Usage.
expect_exit 2 "certify without --out" "$AB" certify 1 --db a.db
check "says so" grep -q "\-\-out CERT.json is required" "$T/err"
expect_exit 2 "a run named twice" "$AB" certify 1 last --db a.db --out x.json
check "says so" grep -q "'last' names run 1, which '1' named already" "$T/err"
check "and writes nothing" test ! -e x.json
expect_exit 2 "a run that does not exist" "$AB" certify 7 --db a.db --out x.json
expect_exit 2 "--check with a run" "$AB" certify 1 --check a.json
expect_exit 0 "--help" "$AB" certify --help
check "the certificate to standard output, the summary to stderr" \
	bash -c "'$AB' certify 1 --db a.db --out - 2>/dev/null | cmp -s - a.json"

# --check, nothing changed: every entry still exact, no temporary left.
mkdir tmp
export TMPDIR="$T/tmp"
expect_exit 0 "--check an unchanged certificate" "$AB" certify --check a.json --no-progress
check "every entry still exact, nothing differs" test "$(grep -c 'still exact$' "$T/out")" -eq 6
check "the counts" grep -q "^check: 6 still exact, 0 lost; the environment differs for 0, an artefact for 0$" "$T/out"
check "no temporary database left" test -z "$(ls tmp)"
unset TMPDIR
expect_exit 0 "--check from another directory" bash -c "cd / && '$AB' certify --check '$T/a.json'"

# The report says what the run certifies, beside the speedup.
expect_exit 0 "report" "$AB" report 1 --db a.db --out rep
check "a Certified section" grep -q "^## Certified$" rep/report.md
check "6 of 7 cases" grep -q "^6 of 7 cases are byte-equal in every slot of their bracket (ABA)" rep/report.md
check "the proven signatures, a row per site, dtype, eps, inputs and arms" grep -q '^| `ln_modulate` | 1x16x512 | bf16 | 1e-06 | yes | special(mean=0,std=1) | `eager` / `fused` | 1 |$' rep/report.md
check "a sweep's shapes in one row" grep -q '^| `ln_modulate` | 1x16x256, 1x32x256 | bf16 | 1e-05 | no | normal(mean=0,std=1) | `eager` / `fused` | 2 |$' rep/report.md
check "the environment, with the python arm's versions" grep -q "^Proven on: backend \`cpu\`, .*; where an arm used them: python \`3\.[0-9.]*\`, numpy" rep/report.md
check "the case not certified and why" grep -q "^Not certified (1): \`gate_py_inexact\`: slot B: 'out' not byte-equal to A1" rep/report.md
finish
