#!/usr/bin/env bash
# The named tunings of the fused arms (fused.<tuning>): listed by `abbench
# sites` for every site, CUDA only (or '-' in a build without nvcc), never
# on the CPU; a scenario that asks for one on the CPU backend is refused
# before anything is written (exit 2, FILE:LINE of the case, no database);
# names of other sites' tunings or unknown ones are scenario errors;
# scenarios/tuning_glm.ini (the tunings of two sites, per case) parses (it
# fails only for want of a GPU).
. "$(dirname "$0")/lib.sh"

expect_exit 0 "sites" "$AB" sites
cuda=-
"$AB" --version | grep -q 'cuda backend: built in' && cuda=cuda
for arm in ln_modulate:fused.pf8 ln_modulate:fused.r1 ln_modulate:fused.generic qk_layernorm:fused.x8s2d \
	qk_layernorm:fused.s2 qk_layernorm:fused.rt2 residual_gate_add:fused.h1; do
	site=${arm%%:*} name=${arm#*:}
	check "$site lists $name on $cuda only" bash -c "awk '/^[a-z]/ { s = \$1 } s == \"$site\" && \$1 == \"$name\"' '$T/out' | grep -Eq '^  $name +backends: +$cuda '"
done
check "no tuning runs on the cpu" bash -c "! grep -E '^  fused\.[a-z0-9]+ +backends: cpu' '$T/out'"
check "every site has a fused arm on the cpu" test "$(grep -Ec '^  fused +backends: cpu' "$T/out")" -eq 4
check "ln_continuous has ln_modulate's tunings" bash -c "awk '/^[a-z]/ { s = \$1 } s == \"ln_continuous\" && /^  fused\./' '$T/out' | grep -c . | grep -qx 3"

cat >"$T/pf8.ini" <<'INI'
[arms]
a = eager
b = fused.pf8

[case img]
site = ln_modulate
shape = 1x8x3072
INI
expect_exit 2 "a tuning on the cpu backend" "$AB" run "$T/pf8.ini" --backend cpu --db "$T/pf8.db"
check "names the case's FILE:LINE" grep -q "pf8.ini:5: case 'img': arm b 'fused.pf8' of site 'ln_modulate' has no cpu implementation" "$T/err"
check "nothing written" test ! -e "$T/pf8.db"

sed 's/fused.pf8/fused.x8s2d/' "$T/pf8.ini" >"$T/x8s2.ini"
expect_exit 2 "another site's tuning" "$AB" run "$T/x8s2.ini" --backend cpu --db "$T/x.db"
check "says which variants the site has" grep -q "x8s2.ini:3: b: case 'img' (line 5) has site 'ln_modulate', which has no variant 'fused.x8s2d' (it has: eager, fused, twopass, fused.pf8" "$T/err"
sed 's/fused.pf8/fused.w4/' "$T/pf8.ini" >"$T/w4.ini"
expect_exit 2 "a tuning that left the build" "$AB" run "$T/w4.ini" --backend cpu --db "$T/x.db"
check "unknown variant" grep -q "w4.ini:3: b: unknown variant 'fused.w4'" "$T/err"
check "nothing written" test ! -e "$T/x.db"

expect_exit 2 "tuning_glm.ini on the cpu" "$AB" run scenarios/tuning_glm.ini --backend cpu --db "$T/t.db"
check "it parses; only the cpu is refused" grep -q "has no cpu implementation (it runs on: " "$T/err"
check "two tuning pairs, of two sites" test "$(grep -c '^\[case ' scenarios/tuning_glm.ini)" -eq 3 -a \
	"$(sed -n 's/^b = //p' scenarios/tuning_glm.ini | sort -u | wc -l)" -eq 2
check "nothing written" test ! -e "$T/t.db"
finish
