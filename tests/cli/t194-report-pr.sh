#!/usr/bin/env bash
# `abbench report` shaped for a pull request:
#   - a report of 100 cases (a scenario of 100 small cases on the fake
#     timer, 10 samples a slot) stays under GitHub's 65,536-character
#     comment limit: sections give way to one row per case, the summary
#     table keeps all 100 rows, and report-full.md holds every row of every
#     section; a 5-case report is whole and leaves no report-full.md (a
#     stale one is removed);
#   - it starts with the one-line verdict and the summary table; Accuracy,
#     Clocks, Sampling and Provenance are folded in <details>;
#   - units scale as show's: a case of about a millisecond prints in ms,
#     the small ones in us;
#   - a speedup is bold only when it is an improvement beyond noise, and
#     its interval is n/a under 10 samples an arm (a --quick run).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/r.db" ABBENCH_FAKE_TIMER=1
python3 - "$T/big.ini" <<'PY'
import sys
sites = [("ln_modulate", "1x{t}x256"), ("ln_continuous", "1x{t}x256"), ("qk_layernorm", "1x{t}x4x128"),
         ("residual_gate_add", "1x{t}x256")]
with open(sys.argv[1], "w") as out:
    out.write("[scenario]\nname = big100\nbackend = cpu\nbracket = ABA\nseed = 7\nwarmup = 1\n"
              "min_samples = 10\nmax_samples = 10\nmin_time_ms = 1\nmax_time_ms = 60000\n"
              "target_noise = 0.005\n\n[arms]\na = eager\nb = fused\n\n[model]\nsteps = 30\nforwards_per_step = 2\n")
    for i in range(100):
        site, shape = sites[i % 4]
        out.write(f"\n[case {site}_t{i + 1:03d}]\nsite = {site}\nshape = {shape.format(t=1 + i % 8)}\ncount = {1 + i % 3}\n")
PY
check "a run of 100 cases" bash -c "'$AB' run '$T/big.ini' --no-progress --label big >/dev/null 2>'$T/run.err'"
expect_exit 0 "its report" "$AB" report big --out "$T/big" --no-plots
md="$T/big/report.md"
bytes=$(wc -c <"$md") chars=$(wc -m <"$md")
echo "# report.md of 100 cases: $bytes bytes, $chars characters; report-full.md: $(wc -c <"$T/big/report-full.md") bytes"
check "under GitHub's 65,536-character comment limit ($chars characters, $bytes bytes)" test "$chars" -lt 65536 -a "$bytes" -lt 65536
section() { awk -v h="## $1" '$0 == h { f = 1; next } /^## / { f = 0 } f' "$md"; }
check "the summary table keeps all 100 rows" test "$(section Summary | grep -c '^| `')" -eq 100
check "the brackets keep all 100 rows" test "$(section 'A/B/A brackets' | grep -c '^| `')" -eq 100
check "accuracy gives way to one row per case" \
	test "$(sed -n '/<b>Accuracy<\/b>/,/^<\/details>$/p' "$md" | grep -c '^| `')" -eq 100
check "it says it was shortened and where the rest is" grep -q '^_Shortened to stay within a pull-request comment (100 cases): every row of every section is in `report-full.md`._$' "$md"
full="$T/big/report-full.md"
check "report-full.md has every output's row (100 cases x 3 slots, q and k for qk_layernorm)" \
	test "$(sed -n '/<b>Accuracy<\/b>/,/^<\/details>$/p' "$full" | grep -c '^| `')" -eq 375
check "and every kernel table (two per case)" test "$(grep -c '^| kernel | family |' "$full")" -eq 200
check "report-full.md is not shortened" bash -c "! grep -q '^_Shortened' '$full'"

# A small report: whole, no report-full.md; a stale one is removed.
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/smoke.ini"
cat >>"$T/smoke.ini" <<'INI'

; about a millisecond a step on the fake timer (2 us + 0.5 ns x 2M elements)
[case wide]
site = residual_gate_add
shape = 1x512x4096
count = 1
INI
check "a smoke run with a wide case" bash -c "'$AB' run '$T/smoke.ini' --no-progress --label small >/dev/null 2>'$T/run.err'"
touch "$T/big/report-full.md"
expect_exit 0 "its report into the same directory" "$AB" report small --out "$T/big" --no-plots
md="$T/big/report.md"
check "no report-full.md beside a whole report" test ! -e "$T/big/report-full.md"
check "not shortened" bash -c "! grep -q '^_Shortened' '$md'"
head -1 "$md" >"$T/first"
check "the first line is the verdict" grep -Eq '^\*\*FASTER\*\*: B `fused` vs A `eager`: faster in 6 of 6 cases \(speedup 2\.00x to 4\.00x\), slower 0, no clear change 0; bit-exact in 6 of 6\. Scenario `smoke` on CPU fake timer' "$T/first"
check "then the summary table" test "$(sed -n 3p "$md")" = "## Summary"
check "whose header is the fifth line" grep -q '^| case | shape | A eager median' <(sed -n 5p "$md")
for s in Accuracy Clocks Sampling Provenance; do
	check "$s is folded" grep -q "^<details><summary><b>$s</b>: " "$md"
done
check "every <details> is closed" test "$(grep -c '^<details>' "$md")" -eq "$(grep -c '^</details>$' "$md")"
check "the wide case prints in ms" grep -Eq '^\| `wide` \| 1x512x4096 \| 2\.[0-9]{3} ms \[[0-9.]+, [0-9.]+\] n=40 \| 1\.[0-9]{3} ms \[' "$md"
check "the small ones in us" grep -Eq '^\| `ln_modulate` \| 1x16x256 \| 16\.[0-9]{2} us \[' "$md"
check "every speedup bold: 2x-4x with intervals far above 1 and no drift" test "$(grep -Ec '^\| `[a-z_]+` \|.*\| \*\*[0-9.]+x\*\* \[[0-9.]+, [0-9.]+\] \| yes \| faster \|$' "$md")" -eq 6

# A --quick run: 3 samples a slot here, so no interval, nothing bold.
check "a quick run" bash -c "'$AB' run scenarios/smoke.ini --quick --no-progress --label quick >/dev/null 2>'$T/run.err'"
expect_exit 0 "its report" "$AB" report quick --out "$T/quick" --no-plots
md="$T/quick/report.md"
check "intervals n/a, nothing bold" test "$(grep -Ec '^\| `[a-z_]+` \|.* \| [0-9.]+x \[n/a\] \| yes \| too few samples \(not trusted\) \|$' "$md")" -eq 5
check "the verdict is INCONCLUSIVE and says why" grep -q '^\*\*INCONCLUSIVE\*\*: .*faster in 0 of 5 cases, too few samples 5 (not trusted), .*(too few samples: under 10 an arm, no interval); \*\*quick run\*\*' "$md"
finish
