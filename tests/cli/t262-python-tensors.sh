#!/usr/bin/env bash
# What a Python arm is given, for every built-in site (docs/PYTHON_ARMS.md,
# "What t and d hold"): tests/data/python/site_tensors.py's check raises
# unless every tensor of the site is in t with the documented shape (by
# the case's axis letters), dtype (bf16 as uint16, statistics float32),
# read-only for inputs, C-contiguous, weight and bias None without affine,
# and d's axes, dims, eps, affine, backend and device hold what the case
# says. One python arm runs the cases of four sites in one scenario. A
# variant expecting torch's [B, 1, W] for gate fails the run, naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/t.db"
scenario() { # FILE FUNCTION
	cat >"$1" <<EOT
[scenario]
backend = cpu
min_samples = 2
max_samples = 2
[arms]
a = eager
b = python:$PYDATA/site_tensors.py:$2
[case gate]
site = residual_gate_add
shape = 2x8x64
[case mod]
site = ln_modulate
shape = 1x8x64
eps = 1e-6
[case mod_affine]
site = ln_modulate
shape = 2x4x32
affine = true
[case cont]
site = ln_continuous
shape = 1x4x32
[case qk]
site = qk_layernorm
shape = 1x4x2x16
[case qk_affine]
site = qk_layernorm
shape = 2x4x3x32
affine = true
EOT
}
scenario "$T/t.ini" check
expect_exit 0 "every site's tensors and d are as documented" "$AB" run "$T/t.ini" --db "$db" --no-progress
seen() { grep -c "^site_tensors: $1\$" "$T/err"; }
check "residual_gate_add: x, ff, out, ff_gated [B,T,W]; gate [B,W]" test "$(seen 'gate residual_gate_add eps=1e-05 affine=False axes=B=2,T=8,W=64')" -eq 1
check "ln_modulate: eps from the case, mean/rstd [B,T]" test "$(seen 'mod ln_modulate eps=1e-06 affine=False axes=B=1,T=8,W=64')" -eq 1
check "ln_modulate with affine: weight and bias [W]" test "$(seen 'mod_affine ln_modulate eps=1e-05 affine=True axes=B=2,T=4,W=32')" -eq 1
check "ln_continuous: ln_modulate's table" test "$(seen 'cont ln_continuous eps=1e-05 affine=False axes=B=1,T=4,W=32')" -eq 1
check "qk_layernorm: q, k, q_out, k_out [B,T,H,D]; statistics [B,T,H]" test "$(seen 'qk qk_layernorm eps=1e-05 affine=False axes=B=1,T=4,H=2,D=16')" -eq 1
check "qk_layernorm with affine: weight and bias [D]" test "$(seen 'qk_affine qk_layernorm eps=1e-05 affine=True axes=B=2,T=4,H=3,D=32')" -eq 1
not_exact() { sqlite3 "$db" "SELECT count(*) FROM outputs o JOIN slots s ON s.id = o.slot_id WHERE s.arm = 'b' AND o.bit_exact = 0"; }
check "the zeros it wrote are its outputs (not byte-equal to eager, a finding)" test "$(not_exact)" -eq 8

scenario "$T/wrong.ini" check_torch_gate
expect_exit 3 "a function expecting gate as [B,1,W] fails the run" "$AB" run "$T/wrong.ini" --db "$db" --no-progress
check "naming the tensor and both shapes" grep -q "ValueError: case gate (residual_gate_add): gate is uint16 (2, 64) (bf16), not bf16 (2, 1, 64)" "$T/err"
finish
