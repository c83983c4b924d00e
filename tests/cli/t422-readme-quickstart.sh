#!/usr/bin/env bash
# The README's quick start works as written: its shell block (the first
# ```sh block under "## Quick start") is run as it stands in an empty
# folder beside build/, with Debian's python3 and its numpy as the
# interpreter (ABBENCH_PYTHON, python_lib.sh): the two numpy functions run
# as arms a and b of the site the scenario declares, the run exits 0 and
# calls the fusion bit-exact. The same fused function computing in
# float64 (one rounding where the eager chain has two) is then NOT
# bit-exact: the quick start proves something. And the README stays short
# enough to read in five minutes; the usage it once held is docs/USAGE.md.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
readme=$root/README.md

awk '/^## Quick start/ { on = 1; next } on && /^```sh$/ { grab = 1; next } grab && /^```$/ { exit } grab' "$readme" \
	>"$T/quickstart.sh"
check "the README has a quick start block" test -s "$T/quickstart.sh"
check "it writes two files and runs one command" \
	test "$(grep -c '^cat >' "$T/quickstart.sh") $(grep -c '^build/abbench run ' "$T/quickstart.sh")" = "2 1"
mkdir -p "$T/qs"
ln -s "$(dirname "$AB")" "$T/qs/build"
(cd "$T/qs" && unset ABBENCH_DB && bash -e "$T/quickstart.sh") >"$T/out" 2>"$T/err" # its database: abbench.db there
rc=$?
check "it runs as written: exit 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/    /' "$T/err" | tail -5
check "its two functions are the arms (eager, fused)" \
	grep -Eq '^case +shape +A eager median +B fused median +speedup A/B \[95% CI\] +n A/B +B byte-equal +verdict$' "$T/out"
check "the run calls the fusion bit-exact" grep -Eq '^c +65536 +.* yes +' "$T/out"
check "and says so in its last line" grep -q 'bit-exact in 1 of 1$' "$T/out"
"$AB" show --db "$T/qs/abbench.db" --format json >"$T/show.json" 2>/dev/null
check "show --format json: B byte-equal to A, every output" \
	"$PY" -c 'import json, sys; s = json.load(open(sys.argv[1]))["cases"][0]["summary"]; sys.exit(not (s["b_byte_equal"] and s["a_deterministic"]))' "$T/show.json"

# A fusion that is not exact: the fused arm in float64, rounded once.
sed -i 's|np.multiply(t\["x"\], t\["s"\], out=t\["out"\]); t\["out"\] += t\["b"\]|t["out"][:] = t["x"].astype(np.float64) * t["s"] + t["b"]|' "$T/qs/fuse.py"
check "the fused function now rounds once" grep -q 'astype(np.float64)' "$T/qs/fuse.py"
(cd "$T/qs" && unset ABBENCH_DB && ABBENCH_FAKE_TIMER=1 "$AB" run fuse.ini --label inexact) >"$T/out2" 2>"$T/err2"
check "a fusion that rounds differently runs (exit 0)" test $? -eq 0
check "and is NOT bit-exact" grep -Eq '^c +65536 +.* NO +' "$T/out2"

check "the README reads in five minutes (at most 100 lines)" test "$(wc -l <"$readme")" -le 100
check "it points to the docs' index" grep -q '(docs/README.md)' "$readme"
check "the usage reference is docs/USAGE.md" grep -q '^    abbench run SCENARIO.ini ' "$root/docs/USAGE.md"
check "no commit hashes of the history of refactors in the README" bash -c "! grep -Eq '\\b[0-9a-f]{7}\\b' '$readme'"
finish
