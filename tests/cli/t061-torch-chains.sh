#!/usr/bin/env bash
# Every site of the registry has its PyTorch chain in a site folder
# (kernels/<site>/torch_chain.py, found by scripts/site_chains.py for the
# oracle and timing scripts); ln_continuous shares ln_modulate's, so one
# definition serves both; no chain serves a site that does not exist.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "sites" "$AB" sites
grep -E '^[a-z_]+  \(' "$T/out" | cut -d' ' -f1 | sort >"$T/sites"
check "four sites" test "$(wc -l <"$T/sites")" -eq 4
expect_exit 0 "site_chains lists the chains" python3 scripts/site_chains.py
cut -d' ' -f1 "$T/out" | sort >"$T/chained"
check "every site has exactly one chain, and only sites do" cmp -s "$T/sites" "$T/chained"
check "ln_continuous uses ln_modulate's chain" grep -qx 'ln_continuous kernels/ln_modulate/torch_chain.py' "$T/out"
check "every chain lives in a site folder" bash -c "cut -d' ' -f2 '$T/out' | grep -vx 'kernels/[a-z_]*/torch_chain.py' | grep -c . | grep -qx 0"
check "the oracle reads the chains from the folders" grep -q 'site_chains.load()' scripts/torch_oracle.py
check "the timing script too" grep -q 'site_chains.load()' scripts/torch_timing.py
check "neither spells a chain itself" bash -c "! grep -n 'layer_norm(' scripts/torch_oracle.py scripts/torch_timing.py"
finish
