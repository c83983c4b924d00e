#!/usr/bin/env bash
# Bytes and bandwidth on a fake-timer run of sweep_small.ini: the stored
# bytes are the site's declarations, worked out by hand for ln_modulate at
# 1x16x256 (bf16 x and out 8192 bytes each, scale and shift 512, the
# float32 mean and rstd 64): the minimum is 8192 + 512 + 512 + 8192 =
# 17408; the eager chain moves LayerNorm 8192 + 8192 + 64 + 64, add_one
# 512 + 512, mul 8192 + 512 + 8192, add 8192 + 512 + 8192 = 51328. The CSV
# gives GB/s = bytes / median_ns and % of copy against the fake timer's
# 16 GB/s; show and compare print the same figures.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_FAKE_TIMER=1
db="$T/b.db"
scn=tests/scenarios/sweep_small.ini

expect_exit 0 "fake-timer run" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --label one
v=$(sqlite3 "$db" -separator ' ' "SELECT bytes_min, bytes_a, bytes_b FROM cases WHERE name = 'ln[T=16]'")
check "bytes of ln[T=16]: min 17408, a (eager) 51328, b (fused) 17408" test "$v" = "17408 51328 17408"
v=$(sqlite3 "$db" "SELECT group_concat(bytes_min, ' ') FROM cases WHERE sweep = 'ln'")
check "minimum bytes: 1024 T (x, out) + 1024 (scale, shift)" test "$v" = "17408 33792 66560 132096"
check "the fake device's copy bandwidth is 16 GB/s" \
	test "$(sqlite3 "$db" "SELECT copy_gbps FROM devices d JOIN runs r ON r.device_id = d.id")" = 16.0

expect_exit 0 "export" "$AB" export --db "$db" --csv "$T/b.csv"
check "every row: gbps = bytes / median_ns, pct_copy = 100 gbps / 16" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = len(rows) == 21
for r in rows:
    g = int(r["bytes"]) / float(r["median_ns"])
    ok = ok and abs(float(r["gbps"]) - g) <= 1e-12 * g and abs(float(r["pct_copy"]) - 100 * g / 16) <= 1e-9
sys.exit(0 if ok else 1)' "$T/b.csv"
check "slot bytes follow the arm (A eager 51328, B fused 17408)" test "$(python3 -c '
import csv, sys
print(" ".join(r["bytes"] for r in csv.DictReader(open(sys.argv[1])) if r["case"] == "ln[T=16]"))' "$T/b.csv")" = \
	"51328 17408 51328"

expect_exit 0 "show" "$AB" show --db "$db"
check "show: a bandwidth line per case" test "$(grep -c '^  bandwidth: a eager .* GB/s (.*% of copy); b fused .* GB/s (.*% of copy); copy 16 GB/s (measured)$' "$T/out")" -eq 7
check "show: ln[T=16] in kB" grep -q '^  bandwidth: a eager 51.3 kB, [0-9.]* GB/s (.*); b fused 17.4 kB, ' "$T/out"

expect_exit 0 "a second run" "$AB" run "$scn" --backend cpu --db "$db" --no-progress --label two
expect_exit 0 "compare" "$AB" compare one two --db "$db"
check "compare: a bandwidth row per case" test "$(grep -Ec '^\| `[a-z]+(\[T=[0-9]+\])?` \| [0-9.]+ / [0-9.]+ \([0-9.]+% / [0-9.]+%\) \|$' "$T/out")" -eq 7
finish
