#!/usr/bin/env bash
# The shipped scenarios and site files with declared sites or arms per
# case: every scenarios/*.ini, scenarios/sites/*.ini and examples/*/*.ini
# is read and checked by `abbench sites FILE` (declared sites listed);
# triton_glm.ini (the Triton kernels of two sites, one file) and
# tuning_glm.ini (the tunings of two sites) refuse only the cpu backend;
# with nvcc, examples/cubin/mss_cubin.ini's cubins of a declared site load
# and check their parameters on the cpu, and only the backend is refused.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
n=0
for f in scenarios/*.ini scenarios/sites/*.ini examples/*/*.ini; do
	n=$((n + 1))
	"$AB" sites "$f" >"$T/out" 2>"$T/err" || fail "$f: $(cat "$T/err")"
done
ok "abbench sites FILE read $n shipped files"
expect_exit 0 "abbench sites on the lineage's sites" "$AB" sites scenarios/lineage.ini
check "its three declared sites" test "$(grep -c '  declared at scenarios/sites/' "$T/out")" -eq 3
expect_exit 0 "abbench sites on GLM-Image's block" "$AB" sites scenarios/sites/glm_block.ini
check "six axes, H used by no tensor" grep -q '^glm_block  (BxIxSxWxHxE, W % (4 \* H) == 0)  declared at' "$T/out"

expect_exit 2 "triton_glm.ini on the cpu: the cubins are looked for" "$AB" run scenarios/triton_glm.ini --backend cpu --db "$T/t.db"
check "the first arm's Triton metadata (not exported here), at its line" \
	grep -q "scenarios/triton_glm.ini:[0-9]*: arm 'ln_modulate_naive': cannot open '.*triton-out/ln_modulate_naive.json'" "$T/err"
check "five kernels of two sites, eight cases, each its own b" \
	test "$(grep -c '^\[arm ' scenarios/triton_glm.ini)" -eq 5 -a "$(grep -c '^b = ' scenarios/triton_glm.ini)" -eq 8
if "$AB" --version | grep -q 'cuda backend: built in' && [ -f "$(dirname "$AB")/examples/cubin/mss_cubin.cubin" ]; then
	sed "s|\.\./\.\./build/|$(dirname "$(dirname "$AB")")/$(basename "$(dirname "$AB")")/|g; s|\.\./\.\./scenarios/|$root/scenarios/|" \
		examples/cubin/mss_cubin.ini >"$T/mss.ini"
	expect_exit 2 "mss_cubin.ini on the cpu: its cubins load and check" "$AB" run "$T/mss.ini" --backend cpu --db "$T/m.db"
	check "only the backend is refused" grep -q "arm 'mss_cubin': a cubin arm runs on the cuda backend only, and this run uses the cpu backend" "$T/err"
else
	ok "# SKIP no nvcc in this build: mss_cubin.ini's cubins were not built"
fi
check "nothing written" test ! -e "$T/t.db" -a ! -e "$T/m.db"
finish
