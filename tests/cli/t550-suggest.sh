#!/usr/bin/env bash
# "Did you mean" wherever a name is looked up (common/suggest.h): a
# command, an option, a site, a variant, a tensor an arm writes, a tensor
# with a generator, a dtype and a role of a declared site, a shape symbol, a
# scenario section and a word value (backend), a run label, a baseline (in
# gate, show and baseline show), a case of --only (run and gate), a format,
# a backend (run --backend, backends --check), a device profile's key and
# backend, history's metric, baseline's action. Each is exit 2, one line,
# the near name suggested; where nothing is near and the names are few, the
# names are listed instead. The database is left as it was.
. "$(dirname "$0")/lib.sh"
set -e
src=$PWD
export ABBENCH_FAKE_TIMER=1
cd "$T"
db="$T/s.db"
"$AB" run "$src/scenarios/smoke.ini" --backend cpu --db "$db" --quick --label nightly --no-progress >/dev/null 2>&1
"$AB" baseline set main nightly --db "$db" >/dev/null
sum=$(sha256sum "$db")

says() { # DESCRIPTION STATUS FIXED-STRING command...
	local desc=$1 want=$2 text=$3; shift 3
	expect_exit "$want" "$desc" "$@"
	if grep -qF -- "$text" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok "$desc: says $text"; else
		fail "$desc: wanted one line with: $text"; sed 's/^/    got: /' "$T/err"; fi
}

says "command" 2 "'rnu' is not an abbench command (did you mean 'run'?)" "$AB" rnu
says "command, nothing near: where the commands are" 2 "'frobnicate' is not an abbench command (see 'abbench --help')" "$AB" frobnicate
says "option" 2 "run: unknown option '--quik' (did you mean '--quick'?)" "$AB" run x.ini --quik
says "format" 2 "show: unknown format 'jsno' (did you mean 'json'? show prints text, csv, json, benchmark)" \
	"$AB" show --format jsno --db "$db"
says "run label" 2 "no run 'nighty' in '$db' (did you mean 'nightly'?)" "$AB" show nighty --db "$db"
says "baseline or run in gate" 2 "gate: no baseline or run 'nighty' (did you mean 'nightly'?)" \
	"$AB" gate --baseline nighty --db "$db"
says "baseline name in gate" 2 "gate: no baseline or run 'mian' (did you mean 'main'?)" "$AB" gate --baseline mian --db "$db"
says "gate, nothing near: the labels and baselines" 2 "gate: no baseline or run 'zzz' (labels and baselines: nightly, main)" \
	"$AB" gate --baseline zzz --db "$db"
says "baseline show" 2 "baseline: no baseline 'mainn' in '$db' (did you mean 'main'?)" "$AB" baseline show mainn --db "$db"
says "baseline action" 2 "baseline: unknown action 'lst' (did you mean 'list'? set, show or list)" "$AB" baseline lst --db "$db"
says "gate --only" 2 "case 'ln_modulat' is not in the baseline (run 1) (did you mean 'ln_modulate'?)" \
	"$AB" gate --baseline main --only ln_modulat --db "$db"
says "history --metric" 2 "--metric must be median, speedup or gbps, not 'speedp' (did you mean 'speedup'?)" \
	"$AB" history --metric speedp --db "$db"
says "backends --check" 2 "unknown backend 'cdua' (did you mean 'cuda'? backends: cpu, cuda)" "$AB" backends --check cdua
says "run --backend" 2 "--backend must be auto, cpu or cuda, not 'cdua' (did you mean 'cuda'?)" \
	"$AB" run "$src/scenarios/smoke.ini" --backend cdua --db "$db"
says "run --only" 2 "no case matches 'ln_modulat' in '$src/scenarios/smoke.ini' (did you mean 'ln_modulate'? cases: ln_modulate," \
	"$AB" run "$src/scenarios/smoke.ini" --backend cpu --only ln_modulat --db "$db"
check "the database is as it was" test "$(sha256sum "$db")" = "$sum"

# scenario files: each error names FILE:LINE and the key
cp -r "$src/scenarios/sites" "$T/sites"
sed 's/^site = silu_mul$/site = silu_mull/' "$src/scenarios/swiglu.ini" >sw.ini
says "site" 2 "sw.ini:31: site: unknown site 'silu_mull' (did you mean 'silu_mul'? sites: ln_modulate, ln_continuous, qk_layernorm, residual_gate_add, silu_mul)" \
	"$AB" run sw.ini --backend cpu --db n.db
scn() { # FILE, then the scenario on stdin
	cat >"$1"
}
scn variant.ini <<'EOF'
[scenario]
name = v
[arms]
a = eagr
[case c]
site = ln_modulate
shape = 1x8x64
EOF
says "variant" 2 "variant.ini:4: a: unknown variant 'eagr' (did you mean 'eager'? variants: eager, fused, twopass" \
	"$AB" run variant.ini --backend cpu --db n.db
scn section.ini <<'EOF'
[scenari]
name = v
EOF
says "section" 2 "section.ini:1: [scenari]: unknown section (did you mean [scenario]? sections:" "$AB" run section.ini --db n.db
scn word.ini <<'EOF'
[scenario]
backend = cpuu
EOF
says "a word value" 2 "word.ini:2: backend: 'cpuu' is not one of: auto, cpu, cuda (did you mean 'cpu'?)" "$AB" run word.ini --db n.db
lib="$(dirname "$AB")/examples/plugin/libdeclared_plugin.so"
site='[site ss]
axes = B T W
tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, out:bf16:B,T,W:output, s1:f32:B,T:stat, tmp:bf16:B,T,W:scratch'
printf '[scenario]\nname = w\n%s\n[arm mine]\ntype = plugin\nsite = ss\nlibrary = %s\nname = mss_inexact\nwrites = ss\n' \
	"$site" "$lib" >writes.ini
says "writes, nothing near: the site's stat and scratch tensors" 2 \
	"writes.ini:11: writes: 'ss' is not a stat or scratch tensor of site 'ss' (its stat and scratch tensors: s1, tmp)" \
	"$AB" run writes.ini --backend cpu --db n.db
sed 's/^writes = ss$/writes = s1, tpm/' writes.ini >writes2.ini
says "writes" 2 "writes2.ini:11: writes: 'tpm' is not a stat or scratch tensor of site 'ss' (did you mean 'tmp'? its stat and scratch tensors: s1, tmp)" \
	"$AB" run writes2.ini --backend cpu --db n.db
sed 's/^writes = ss$/bytes = 2 * W + T * w/' writes.ini >bytes.ini
says "shape symbol" 2 "bytes.ini:11: bytes: '2 * W + T * w': unknown symbol 'w' (did you mean 'W'? shape symbols: B, T, W;" \
	"$AB" run bytes.ini --backend cpu --db n.db
printf '[scenario]\nname = d\n[site ss]\naxes = B T W\ntensors = x:bf61:B,T,W:input, out:bf16:B,T,W:ouptut\n' >dtype.ini
says "dtype" 2 "dtype.ini:5: tensors: tensor 'x': unknown dtype 'bf61' (did you mean 'bf16'? dtypes: bf16, f16, f32, i32, i64, u8)" \
	"$AB" run dtype.ini --db n.db
sed 's/bf61/bf16/' dtype.ini >role.ini
says "role" 2 "role.ini:5: tensors: tensor 'out': unknown role 'ouptut' (did you mean 'output'? roles: input, output, stat, scratch)" \
	"$AB" run role.ini --db n.db
scn gen.ini <<'EOF'
[scenario]
name = g
input.scal = normal(0, 1)
[case c]
site = ln_modulate
shape = 1x8x64
EOF
says "input.NAME" 2 "gen.ini:3: input.scal: no case's site has an input tensor 'scal' (did you mean 'scale'? their inputs: x, scale, shift" \
	"$AB" run gen.ini --backend cpu --db n.db
check "no database made by the scenario errors" test ! -e n.db

# a device profile's key and backend (a warning for the baseline's
# profile, then the gate's error: both name the file and line)
mkdir -p prof
printf '[profile]\nname = X\nbackend = cpu\nnoise_flor = 0.05\ngate_max_regression_pct = 15\ngate_min_change_ns = 250\n' >prof/x.ini
expect_exit 2 "profile key" env ABBENCH_PROFILES=prof "$AB" gate --baseline main --db "$db"
check "says so" grep -qF "): prof/x.ini:4: unknown key 'noise_flor' (did you mean 'noise_floor'?)" "$T/err"
printf '[profile]\nname = X\nbackend = cpuu\nnoise_floor = 0.05\ngate_max_regression_pct = 15\ngate_min_change_ns = 250\n' >prof/x.ini
expect_exit 2 "profile backend" env ABBENCH_PROFILES=prof "$AB" gate --baseline main --db "$db"
check "says so" grep -qF "): prof/x.ini:3: 'backend' must be cpu or cuda, not 'cpuu' (did you mean 'cpu'?)" "$T/err"
finish
