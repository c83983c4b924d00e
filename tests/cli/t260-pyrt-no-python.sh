#!/usr/bin/env bash
# No Python in the core build (docs/PYTHON_ARMS.md): the binary needs no
# libpython, pyrt's objects call no Python symbol directly (each is found
# with dlsym in the library loaded at run time), no source includes
# Python.h, and abbench starts and lists its sites with no python anywhere
# on PATH and ABBENCH_PYTHON naming nothing.
. "$(dirname "$0")/lib.sh"
build=$(dirname "$AB")
root=$(cd "$(dirname "$0")/../.." && pwd)

readelf -d "$AB" >"$T/dynamic" || fail "readelf -d abbench"
check "abbench needs some shared libraries (readelf read it)" grep -q NEEDED "$T/dynamic"
if grep -q 'NEEDED.*libpython' "$T/dynamic"; then fail "abbench needs libpython"; else ok "abbench needs no libpython"; fi

objs=("$build"/harness/arms/pyrt_*.o)
check "pyrt's objects are built (${#objs[@]})" test -e "${objs[0]}"
nm -u "${objs[@]}" >"$T/undefined" || fail "nm -u pyrt objects"
if grep -E ' _?Py' "$T/undefined"; then fail "pyrt calls python symbols directly"; else
	ok "pyrt calls no python symbol directly"; fi
if grep -rlE '#\s*include\s*[<"]Python\.h' "$root/harness" "$root/kernels" "$root/include"; then
	fail "a source includes Python.h"; else ok "no source includes Python.h"; fi

mkdir -p "$T/empty"
expect_exit 0 "--version without any python" env PATH="$T/empty" ABBENCH_PYTHON="$T/empty/python3" "$AB" --version
expect_exit 0 "sites without any python" env PATH="$T/empty" ABBENCH_PYTHON="$T/empty/python3" "$AB" sites
finish
