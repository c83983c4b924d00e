#!/usr/bin/env bash
# Bad input of declared sites and arms per case (docs/SITES.md, "Errors"):
# each is exit 2 with one line naming FILE:LINE, before any database is
# opened (no file is made): an unknown dtype or role, an axis a tensor uses
# that axes lacks, a shape that breaks require, a shape with the wrong
# number of axes, two tensors of one name, a site that shadows a built-in
# one or is declared twice, a site without outputs, an include that does
# not exist or is the scenario itself, an included file with a case, an
# arm whose site is not its case's (a plugin's, an [arm]'s site key, a
# cubin's), a tensor the plugin's arm uses that the site lacks, a built-in
# variant for a declared site, an integer input without a generator or
# with a real one, a generator for a tensor that is no input, a bad bytes
# or writes key.
. "$(dirname "$0")/lib.sh"
lib="$(dirname "$AB")/examples/plugin/libdeclared_plugin.so"
cubin="$(dirname "$AB")/examples/cubin/mss_cubin.cubin"
cd "$T" || exit 1
SITE='[site ss]
axes = B T W
tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, shift:bf16:B,W:input, out:bf16:B,T,W:output'
printf '%s\n' "$SITE" >ss.ini
ARMS="[arms]
a = plugin:$lib:mss_fused
b = plugin:$lib:mss_inexact"

bad() { # NAME MESSAGE (a fixed string, after "abbench: error: "); the scenario on stdin
	cat >"$1.ini"
	local got=0
	"$AB" run "$1.ini" --backend cpu --db "$1.db" >out 2>err || got=$?
	if [ "$got" -eq 2 ] && grep -qxF "abbench: error: $2" err && [ ! -e "$1.db" ]; then
		ok "$1: exit 2, $2"
	else
		fail "$1: exit $got, db $([ -e "$1.db" ] && echo made || echo none)"
		sed 's/^/    got:  /' err
		echo "    want: abbench: error: $2"
	fi
}

bad dtype "dtype.ini:3: tensors: tensor 'x': unknown dtype 'fp8' (dtypes: bf16, f16, f32, i32, i64, u8)" <<EOF
[site ss]
axes = B T W
tensors = x:fp8:B,T,W:input, out:bf16:B,T,W:output
EOF
bad role "role.ini:3: tensors: tensor 'x': unknown role 'weights' (roles: input, output, stat, scratch)" <<EOF
[site ss]
axes = B T W
tensors = x:bf16:B,T,W:weights, out:bf16:B,T,W:output
EOF
bad axis "axis.ini:3: tensors: tensor 'x' uses axis 'W', which axes lacks (axes = B T)" <<EOF
[site ss]
axes = B T
tensors = x:bf16:B,T,W:input, out:bf16:B,T:output
EOF
bad require "require.ini:10: shape: site 'ss' rejects '1x4x12': require 'W % 8 == 0' does not hold (B=1, T=4, W=12)" <<EOF
${SITE}
require = W % 8 == 0
$ARMS
[case c]
site = ss
shape = 1x4x12
EOF
bad rank "rank.ini:9: shape: site 'ss' rejects '1x4': shape must be BxTxW (3 dims), not 2 dims" <<EOF
$SITE
$ARMS
[case c]
site = ss
shape = 1x4
EOF
bad twotensors "twotensors.ini:3: tensors: two tensors named 'x'" <<EOF
[site ss]
axes = B T W
tensors = x:bf16:B,T,W:input, x:bf16:B,W:input, out:bf16:B,T,W:output
EOF
bad shadow "shadow.ini:1: [site ln_modulate]: 'ln_modulate' is a built-in site (abbench sites): choose another name" <<EOF
[site ln_modulate]
axes = B T W
EOF
bad dupsite "dupsite.ini:3: [site ss]: site 'ss' is declared twice (first at ss.ini:1)" <<EOF
[scenario]
include = ss.ini
[site ss]
axes = B
EOF
bad nooutput "nooutput.ini:3: tensors: site 'ss' has no output tensor (arms are compared on their outputs: give one role output)" <<EOF
[site ss]
axes = B T W
tensors = x:bf16:B,T,W:input
EOF
bad noinclude "noinclude.ini:2: include: cannot include 'sites/nope.ini': No such file or directory" <<EOF
[scenario]
include = sites/nope.ini
EOF
bad self "self.ini:2: include: 'self.ini' is this scenario: a file cannot include itself" <<EOF
[scenario]
include = self.ini
EOF
printf '[site q]\naxes = B\ntensors = o:f32:B:output\n[case x]\nsite = q\nshape = 1\n' >withcase.ini
bad inccase "withcase.ini:4: [case x]: an included file holds [site NAME] sections only" <<EOF
[scenario]
include = withcase.ini
EOF
bad plugsite "plugsite.ini:4: arm 'gather': the plugin's arm 'gather' is for site 'embed_gather', which the scenario does not declare and abbench does not have (sites: ln_modulate, ln_continuous, qk_layernorm, residual_gate_add, ss)" <<EOF
[scenario]
include = ss.ini
[arms]
a = plugin:$lib:gather
b = plugin:$lib:gather_rows
[case c]
site = ss
shape = 1x4x8
EOF
bad casesite "casesite.ini:6: arm 'mss_fused': the plugin's arm implements site 'modulate_scale_shift', but case 'c' (line 7) has site 'residual_gate_add'" <<EOF
[site modulate_scale_shift]
axes = B T W
tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, shift:bf16:B,W:input, out:bf16:B,T,W:output
[arms]
a = eager
b = plugin:$lib:mss_fused
[case c]
site = residual_gate_add
shape = 1x4x8
EOF
bad armsite "armsite.ini:8: site: arm 'mine' is for site 'ss', but case 'c' (line 11) has site 'residual_gate_add'" <<EOF
[scenario]
include = ss.ini
[arms]
a = eager
b = mine
[arm mine]
type = plugin
site = ss
library = $lib
name = mss_fused
[case c]
site = residual_gate_add
shape = 1x4x8
EOF
bad cubinsite "cubinsite.ini:9: site: arm 'k' is for site 'ss', but case 'g' (line 13) has site 'residual_gate_add'" <<EOF
[scenario]
include = ss.ini
[arms]
a = eager
[arm k]
type = cubin
binary = $cubin
kernel = mss_cubin
site = ss
grid = cdiv(B * T * W, 2048)
block = 256
params = x, scale, shift, out, B * T * W:i64, T, W
[case g]
site = residual_gate_add
shape = 1x4x8
b = k
EOF
bad tensorlack "tensorlack.ini:5: arm 'mss_eager': the plugin's arm 'mss_eager' uses tensor 's1', which site 'modulate_scale_shift' lacks (its tensors: x, scale, shift, out)" <<EOF
[site modulate_scale_shift]
axes = B T W
tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, shift:bf16:B,W:input, out:bf16:B,T,W:output
[arms]
a = plugin:$lib:mss_eager
b = plugin:$lib:mss_fused
[case c]
site = modulate_scale_shift
shape = 1x4x8
EOF
bad variant "variant.ini:5: b: case 'c' (line 5) has site 'ss', which is declared (ss.ini:1) and has no built-in variant 'fused': name a plugin, cubin or python arm (a = ..., b = ... in [arms] or the case)" <<EOF
[scenario]
include = ss.ini
[arms]
a = plugin:$lib:mss_fused
[case c]
site = ss
shape = 1x4x8
EOF
bad intgen "intgen.ini:4: [case c]: tensor 'idx' of site 'g' is i32 and has no generator: give it one, as in input.idx = randint(0, 16)" <<EOF
[site g]
axes = B T V W
tensors = idx:i32:B,T:input, table:f16:V,W:input, out:f16:B,T,W:output
[case c]
site = g
shape = 1x4x10x8
a = plugin:$lib:gather
b = plugin:$lib:gather_rows
EOF
bad realint "realint.ini:4: input.idx: 'normal(0, 3)': tensor 'idx' is i32: it takes randint(LOW, HIGH) or constant(VALUE)" <<EOF
[site g]
axes = B T V W
tensors = idx:i32:B,T:input, table:f16:V,W:input, out:f16:B,T,W:output
input.idx = normal(0, 3)
EOF
bad notinput "notinput.ini:10: input.out: site 'ss' of case 'c' has no input tensor 'out' (its inputs: x, scale, shift)" <<EOF
$SITE
$ARMS
[case c]
site = ss
shape = 1x4x8
input.out = normal(0, 1)
EOF
bad bytes "bytes.ini:8: bytes: 'M * 2': unknown symbol 'M' (shape symbols: B, T, W; function: cdiv(a, b))" <<EOF
[scenario]
include = ss.ini
[arm mine]
type = plugin
site = ss
library = $lib
name = mss_inexact
bytes = M * 2
EOF
bad writes "writes.ini:8: writes: 'out' is not a stat or scratch tensor of site 'ss'" <<EOF
[scenario]
include = ss.ini
[arm mine]
type = plugin
site = ss
library = $lib
name = mss_inexact
writes = out
EOF
finish
