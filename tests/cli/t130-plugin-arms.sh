#!/usr/bin/env bash
# Plugin arms on the CPU backend (include/abbench/plugin.h, examples/plugin):
# the example plugin's rga_exact reproduces residual_gate_add's eager chain
# byte for byte, rga_inexact (no intermediate rounding, as Inductor fuses
# it) does not, and the gate fails it for lost bit-exactness (exit 1).
# Both forms of scenario: the plugin:PATH:ARM shortcut and an [arm NAME]
# section whose library path is relative to the scenario file. The run
# stores where the arm came from (path, sha256); attribution shows the
# plugin's CPU function as one timed step. Fake timer: deterministic.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/p.db"
lib="$(dirname "$AB")/examples/plugin/librga_plugin.so"
check "the example plugin is built beside abbench" test -f "$lib"

scenario() { # FILE B_ARM [extra lines]
	cat >"$1" <<EOF
[scenario]
name = rga_plugin
backend = cpu
min_samples = 20
max_samples = 20
max_time_ms = 60000
[arms]
a = eager
b = $2
[case gate]
site = residual_gate_add
shape = 1x64x256
[case gate_b2]
site = residual_gate_add
shape = 2x32x512
input = special
${3:-}
EOF
}
run() { "$AB" run "$@" --db "$db" --no-progress >"$T/out" 2>"$T/err"; }

scenario "$T/fused.ini" fused
scenario "$T/exact.ini" "plugin:$lib:rga_exact"
scenario "$T/inexact.ini" "plugin:$lib:rga_inexact"
check "baseline run with the built-in fused arm" run "$T/fused.ini" --label fused
expect_exit 0 "baseline set" "$AB" baseline set nightly fused --db "$db"

expect_exit 0 "the exact plugin arm runs" "$AB" run "$T/exact.ini" --db "$db" --label exact --no-progress
"$AB" export exact --db "$db" --csv "$T/exact.csv" 2>/dev/null
check "its two B slots are byte-equal to A1 (export: bit_exact 1)" \
	test "$(awk -F, 'NR > 1 && $6 == "B" { print $12 }' "$T/exact.csv" | paste -sd' ')" = "1 1"
expect_exit 0 "show the exact run" "$AB" show exact --db "$db"
check "show: b byte-equal to a in both cases" test "$(grep -c '^  b byte-equal to a: yes$' "$T/out")" -eq 2
check "show: the arm's provenance line" grep -q "^arm b=rga_exact: plugin '.*librga_plugin.so' sha256 $(sha256sum "$lib" | cut -c1-16)" "$T/out"
check "the run_arms row holds the library's sha256" \
	test "$(sqlite3 "$db" "SELECT sha256 FROM run_arms r JOIN runs u ON u.id = r.run_id WHERE u.label = 'exact'")" = \
	"$(sha256sum "$lib" | cut -d' ' -f1)"
check "attribution: the plugin's cpu function is one timed step" \
	test "$(sqlite3 "$db" "SELECT DISTINCT k.name FROM kernel_times k JOIN slots s ON s.id = k.slot_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = 'exact' AND s.arm = 'b'")" = "plugin rga_exact (cpu)"
b_md5() { sqlite3 "$db" "SELECT group_concat(o.md5) FROM outputs o JOIN slots s ON s.id = o.slot_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1' AND s.label = 'B' ORDER BY c.ordinal"; }
check "the md5s of B equal those of the built-in fused arm" \
	test "$(b_md5 exact)" = "$(b_md5 fused)" -a -n "$(b_md5 fused)"
expect_exit 0 "the exact plugin passes the gate against the fused baseline" "$AB" gate exact --baseline nightly --db "$db"

expect_exit 0 "the inexact plugin arm runs (not byte-equal is a finding, not a failure)" \
	"$AB" run "$T/inexact.ini" --db "$db" --label inexact --no-progress
expect_exit 0 "show the inexact run" "$AB" show inexact --db "$db"
check "show: b not byte-equal to a in both cases" test "$(grep -c '^  b byte-equal to a: NO$' "$T/out")" -eq 2
check "show: how many elements differ" grep -Eq '^       out: [1-9][0-9]* of 16384 elements differ from A1' "$T/out"
expect_exit 1 "the gate fails the inexact plugin" "$AB" gate inexact --baseline nightly --db "$db"
check "for lost bit-exactness" grep -q '| \*\*LOST BIT-EXACTNESS\*\*' "$T/out"

# An [arm NAME] section, its library relative to the scenario's folder.
mkdir -p "$T/sub/lib"
cp "$lib" "$T/sub/lib/"
scenario "$T/sub/section.ini" mine "[arm mine]
type = plugin
site = residual_gate_add
library = lib/librga_plugin.so
name = rga_exact"
(cd / && "$AB" run "$T/sub/section.ini" --db "$db" --label section --no-progress >"$T/out" 2>"$T/err")
check "an [arm] section with a relative library runs from another directory" test $? -eq 0
expect_exit 0 "show it" "$AB" show section --db "$db"
check "the variant is the section's name, byte-equal" grep -Eq '^  B +b +mine .* yes ' "$T/out"
check "the provenance names the copy the scenario points at" grep -q "^arm b=mine: plugin '$T/sub/lib/librga_plugin.so'" "$T/out"

# Both arms from the plugin: an A/A pair of plugin arms, loaded once.
sed "s|^a = eager|a = plugin:$lib:rga_exact|" "$T/exact.ini" >"$T/aa.ini"
expect_exit 0 "a = b = the same plugin arm" "$AB" run "$T/aa.ini" --db "$db" --label aa --no-progress
expect_exit 0 "show the A/A plugin run" "$AB" show aa --db "$db"
check "two provenance lines, a and b" test "$(grep -c '^arm [ab]=rga_exact: plugin ' "$T/out")" -eq 2
expect_exit 0 "merge the database into another" "$AB" merge "$T/merged.db" "$db"
expect_exit 0 "merging it again adds nothing (the arm sources compare equal)" "$AB" merge "$T/merged.db" "$db"
expect_exit 0 "show the merged copy of the exact run" "$AB" show exact --db "$T/merged.db"
check "the merged copy keeps the arm's provenance" grep -q "^arm b=rga_exact: plugin '.*librga_plugin.so' sha256 $(sha256sum "$lib" | cut -c1-16)" "$T/out"
expect_exit 0 "report of the plugin run" "$AB" report exact --db "$db" --out "$T/rep" --no-plots
check "the report's provenance names the plugin arm" grep -q '^- arm B `rga_exact` is a plugin: ' "$T/rep/report.md"
finish
