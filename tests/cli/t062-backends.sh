#!/usr/bin/env bash
# `abbench backends`: the cpu always answers; cuda's line says why not when
# it cannot run; --check answers with the exit status alone (0 yes, 1 no,
# 2 an unknown name), in agreement with the listing.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "backends --help" "$AB" backends --help
expect_exit 0 "backends" "$AB" backends
check "cpu available" grep -qx 'cpu   available' "$T/out"
check "a cuda line" grep -Eq '^cuda  (available|not available: .+)$' "$T/out"
cuda_listed=1
grep -qx 'cuda  available' "$T/out" && cuda_listed=0
expect_exit 0 "check cpu" "$AB" backends --check cpu
check "check prints nothing" test ! -s "$T/out"
expect_exit "$cuda_listed" "check cuda agrees with the listing" "$AB" backends --check cuda
check "check prints nothing" test ! -s "$T/out"
expect_exit 2 "check an unknown backend" "$AB" backends --check tpu
check "names it" grep -q "unknown backend 'tpu' (did you mean 'cpu'? backends: cpu, cuda)" "$T/err"
expect_exit 2 "no positional arguments" "$AB" backends cuda
finish
