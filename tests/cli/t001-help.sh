#!/usr/bin/env bash
# Every command answers --help with its usage and exits 0; unknown commands
# and options exit 2 with one line; --version says whether CUDA is built in.
. "$(dirname "$0")/lib.sh"

for c in run list show export sites report compare baseline gate; do
	expect_exit 0 "$c --help" "$AB" "$c" --help
	check "$c --help prints usage" grep -q "^usage: abbench $c" "$T/out"
done
expect_exit 0 "--help" "$AB" --help
check "--help lists run" grep -q '^  run ' "$T/out"
expect_exit 0 "--version" "$AB" --version
check "--version names the commit" grep -q 'commit ' "$T/out"
check "--version says whether cuda is built in" grep -q '^cuda backend: ' "$T/out"
expect_exit 2 "unknown command" "$AB" frobnicate
check "unknown command message" grep -q "'frobnicate' is not an abbench command" "$T/err"
expect_exit 2 "unknown option" "$AB" list --frob
check "unknown option message names it" grep -q "unknown option '--frob'" "$T/err"
expect_exit 2 "no arguments" "$AB"
expect_exit 2 "run without scenario" "$AB" run
expect_exit 2 "bad --backend value" "$AB" run scenarios/smoke.ini --backend gpu
check "bad backend message" grep -q "auto, cpu or cuda" "$T/err"
expect_exit 0 "sites" "$AB" sites
for s in ln_modulate qk_layernorm ln_continuous residual_gate_add; do
	check "sites lists $s" grep -q "^$s " "$T/out"
done
check "sites shows the twopass variant" grep -q 'twopass' "$T/out"
finish
