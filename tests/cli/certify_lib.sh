# Sourced by the CLI tests of certificates (tests/cli/t480-t489) after
# lib.sh and python_lib.sh: a scenario of every kind of arm a certificate
# names, in $T with its own copies of the files it certifies (so that a
# test may change them): built-in eager and fused (a sweep, offsets,
# special values with affine and another eps), a Python arm (exact, and
# inexact: left out of the certificate), and a declared site's plugin arms.
# The fake timer: every output is computed, the times are the cost model's.
export ABBENCH_FAKE_TIMER=1
mkdir -p "$T/work/py" "$T/work/lib" "$T/work/sites"
cp "$PYDATA/rga_numpy.py" "$T/work/py/"
cp "$(dirname "$AB")/examples/plugin/libdeclared_plugin.so" "$T/work/lib/"
cp scenarios/sites/modulate_scale_shift.ini "$T/work/sites/"
ROOT=$PWD
CERT_PY="$ROOT/python"
cert_py() { PYTHONPATH="$CERT_PY" "$PY" "$@"; }

# cert_scenario FILE: the scenario, its paths relative to its folder.
cert_scenario() {
	cat >"$1" <<EOT
[scenario]
name = cert
backend = cpu
include = sites/modulate_scale_shift.ini
seed = 5
min_samples = 3
max_samples = 3
max_time_ms = 60000
[arms]
a = eager
b = fused
[arm mss_eager]
type = plugin
site = modulate_scale_shift
library = lib/libdeclared_plugin.so
name = mss_eager
writes = s1, mul
[arm mss_fused]
type = plugin
site = modulate_scale_shift
library = lib/libdeclared_plugin.so
name = mss_fused
[case ln]
site = ln_modulate
shape = 1x{16,32}x256
[case ln_offset]
site = ln_modulate
shape = 1x16x256
input_mean = 1000
[case ln_special]
site = ln_modulate
shape = 1x16x512
input = special
eps = 1e-6
affine = true
[case gate_py]
site = residual_gate_add
shape = 1x64x256
b = python:py/rga_numpy.py:rga_exact
[case gate_py_inexact]
site = residual_gate_add
shape = 1x64x256
b = python:py/rga_numpy.py:rga_inexact
[case mss]
site = modulate_scale_shift
shape = 1x32x256
a = mss_eager
b = mss_fused
EOT
}
cert_scenario "$T/work/cert.ini"
