#!/usr/bin/env bash
# build/libabbench_kernels.so, the fused kernels behind a C ABI for
# PyTorch (kernels/capi/abbench_kernels.h, docs/BLOCK.md): it is built
# beside abbench whenever the CUDA backend is, it loads with ctypes on a
# machine without a GPU, it exports exactly the header's functions (not
# the kernels' launchers, not the static CUDA runtime), and each function
# refuses bad shapes, dimensions and pointers with rc 1 and one line.
# tests/tools/capi_check.py does the checks.
. "$(dirname "$0")/lib.sh"
lib="$(dirname "$AB")/libabbench_kernels.so"
header=kernels/capi/abbench_kernels.h

if ! "$AB" --version | grep -q '^cuda backend: built in'; then
	if [ -e "$lib" ]; then
		fail "a build without the CUDA backend has $lib"
		finish
	fi
	echo "SKIP: no nvcc in this build, so no libabbench_kernels.so"
	exit 0
fi
check "the CUDA build has $lib" test -f "$lib"

# Where a GPU answers, a launch with made-up pointers would reach it: the
# checks that need a missing driver are then left out.
launch=
if "$AB" backends --check cuda >/dev/null 2>&1; then
	launch=--no-launch
	echo "ok - # a CUDA device answers: the no-driver launch check is left out"
fi
expect_exit 0 "capi_check.py: symbols, ABI version, refusals" python3 tests/tools/capi_check.py "$lib" "$header" $launch
sed 's/^/    /' "$T/out"
check "every check of capi_check.py passed" bash -c "! grep -q '^not ok' '$T/out'"
finish
