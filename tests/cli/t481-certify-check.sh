#!/usr/bin/env bash
# abbench certify --check (docs/CERTIFICATE.md) after what a dependency
# bump or a rebuild changes, on the CPU with the fake timer: a Python
# arm's module changed but still exact (exit 0, its sha256 named); a
# plugin rebuilt (bytes appended: exit 0, named); an environment key that
# differs (a certificate issued where numpy was another version: exit 0,
# "numpy 1.0.0 -> X"); a module whose function is now inexact (exit 1,
# lost, why); a module gone (exit 1, lost, where it was); a bad
# certificate (exit 2). The other entries say still exact throughout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
. "$(dirname "$0")/certify_lib.sh"
cd "$T" || exit 2
"$AB" run work/cert.ini --db a.db --no-progress >/dev/null 2>&1
expect_exit 0 "certify" "$AB" certify 1 --db a.db --out a.json
line_has() { grep "^  $1 " "$T/out" | grep -Eq "$2"; } # CASE REGEX: its line says so
exact_others() { # CASE: every entry but CASE still exact with nothing to say
	test "$(grep -v "^  $1 " "$T/out" | grep -c ' still exact$')" -eq 5
}

cp work/py/rga_numpy.py rga_numpy.orig
echo "# a comment: the module's bytes change, not what it computes" >>work/py/rga_numpy.py
expect_exit 0 "a python module changed, still exact" "$AB" certify --check a.json --no-progress
check "its entry: still exact, the artefact named with both sha256s" \
	line_has gate_py "still exact; artefact changed: arm b 'rga_exact' sha256 [0-9a-f]{16}\.\.\. -> [0-9a-f]{16}\.\.\.$"
check "the old sha256 is the certified one" line_has gate_py "sha256 $(sha256sum rga_numpy.orig | cut -c1-16)\.\.\. -> $(sha256sum work/py/rga_numpy.py | cut -c1-16)"
check "the others still exact" exact_others gate_py
check "the counts" grep -q "^check: 6 still exact, 0 lost; the environment differs for 0, an artefact for 1$" "$T/out"
cp rga_numpy.orig work/py/rga_numpy.py

cp work/lib/libdeclared_plugin.so lib.orig
printf 'rebuilt' >>work/lib/libdeclared_plugin.so
expect_exit 0 "a plugin rebuilt, still exact" "$AB" certify --check a.json --no-progress
check "both of its arms named" line_has mss "still exact; artefact changed: arm a 'mss_eager' sha256 .* -> .*, arm b 'mss_fused' sha256 .* -> "
cp lib.orig work/lib/libdeclared_plugin.so

numpy=$("$PY" -c 'import numpy; print(numpy.__version__)')
cert_py - <<'PY'
import abbench_cert, json
d = json.load(open('a.json'))
for e in d['entries']:
    if 'numpy' in e['env']: e['env']['numpy'] = '1.0.0'
open('planted.json', 'w').write(json.dumps(abbench_cert.seal(d), indent=1))
PY
expect_exit 0 "a certificate issued under another numpy: still exact" "$AB" certify --check planted.json --no-progress
check "the key that changed, from the certificate's value to this one's" \
	line_has gate_py "still exact; environment differs: numpy 1.0.0 -> $numpy$"
check "the counts" grep -q "^check: 6 still exact, 0 lost; the environment differs for 1, an artefact for 0$" "$T/out"

echo "rga_exact = rga_inexact  # the exact function replaced by the inexact one" >>work/py/rga_numpy.py
expect_exit 1 "a module whose function is no longer exact" "$AB" certify --check a.json --no-progress
check "lost, with the slot and the elements, and the changed artefact" \
	line_has gate_py "LOST: slot B: 'out' not byte-equal to A1 \([0-9]+ elements differ\); artefact changed: arm b 'rga_exact'"
check "the others still exact" exact_others gate_py
check "the counts" grep -q "^check: 5 still exact, 1 lost;" "$T/out"

rm work/py/rga_numpy.py
expect_exit 1 "a module gone" "$AB" certify --check a.json --no-progress
check "lost: where it was" line_has gate_py "LOST: arm b 'rga_exact': its python '$T/work/py/rga_numpy.py' is not here \(No such file or directory\)$"
check "the others still exact" exact_others gate_py
cp rga_numpy.orig work/py/rga_numpy.py

ABBENCH_PYTHON=/nonexistent/python3 expect_exit 1 "no interpreter here" "$AB" certify --check a.json --no-progress
check "the python entry lost, saying why; the others run" \
	bash -c "grep '^  gate_py ' '$T/out' | grep -q \"LOST: .*arm 'rga_exact': python '/nonexistent/python3' (from ABBENCH_PYTHON)\" && test \$(grep -c ' still exact\$' '$T/out') -eq 5"

sed 's/"seed": "5"/"seed": "6"/' a.json >bad.json
expect_exit 2 "a bad certificate" "$AB" certify --check bad.json
check "nothing on stdout" test ! -s "$T/out"
expect_exit 0 "everything back: still exact" "$AB" certify --check a.json --no-progress
finish
