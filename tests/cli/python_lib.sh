# Sourced by the CLI tests of Python arms (tests/cli/t261-t269) after
# tests/cli/lib.sh: Debian's interpreter named explicitly (python3 on PATH
# is a pyenv shim without numpy on this project's machines), the test
# modules' folder, and a scenario writer. Skips the test, with the reason,
# when that interpreter cannot import numpy (`make deps` installs
# python3-numpy and libpython3.11).
PY=/usr/bin/python3
export ABBENCH_PYTHON=$PY
PYDATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/python" && pwd)
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "SKIP: $PY cannot import numpy (make deps installs python3-numpy)"
	exit 0
fi

# py_scenario FILE A_ARM B_ARM [extra lines]: residual_gate_add at two tiny
# shapes (the second with special values: NaN, Inf, subnormals), few samples.
py_scenario() {
	cat >"$1" <<EOT
[scenario]
name = python_arms
backend = cpu
min_samples = ${SAMPLES:-5}
max_samples = ${SAMPLES:-5}
max_time_ms = 60000
[arms]
a = $2
b = $3
[case gate]
site = residual_gate_add
shape = 1x64x256
[case gate_b2]
site = residual_gate_add
shape = 2x32x512
input = special
${4:-}
EOT
}
