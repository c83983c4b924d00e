#!/usr/bin/env bash
# A declared site swept over one of its axes (T), and a declared site of
# other dtypes: scenarios/sites_cpu.ini's sites (modulate_scale_shift and
# embed_gather, an int32 index drawn by randint over the axis V into an
# f16 table) with the example plugin's arms. The sweep expands by the
# site's own axis letter, stores the axis and its values and gets the
# report's sweep table and data; the int32 index stays within the table
# (the plugin fails the run otherwise) and dumps as int32, the table as
# float16; a site's rule refuses a swept value at the shape's line. Fake
# timer.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
root=$(cd "$(dirname "$0")/../.." && pwd)
lib="$(dirname "$AB")/examples/plugin/libdeclared_plugin.so"
db="$T/s.db"

cat >"$T/sweep.ini" <<EOF
[scenario]
name = declared_sweep
include = $root/scenarios/sites/modulate_scale_shift.ini, $root/scenarios/sites/embed_gather.ini
backend = cpu
min_samples = 6
max_samples = 6
max_time_ms = 60000
[arms]
a = plugin:$lib:mss_eager
b = plugin:$lib:mss_fused
[case mod]
site = modulate_scale_shift
shape = 1x{16:128:x2}x64
[case embed]
site = embed_gather
shape = 2x{8,24}x50x16
a = plugin:$lib:gather
b = plugin:$lib:gather_rows
EOF
expect_exit 0 "a sweep over T of a declared site, and one of an integer input" "$AB" run "$T/sweep.ini" --db "$db" \
	--no-progress --dump "$T/dump"
got=$(sqlite3 "$db" <<'SQL'
SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY ordinal);
SELECT printf('%s:%s=%d', sweep, axis, axis_value) FROM cases WHERE ordinal = 3;
SELECT min(bit_exact) FROM outputs;
SQL
)
check "the cases: mod[T=16] ... mod[T=128], embed[T=8], embed[T=24]; each records its sweep, axis and value" \
	test "$got" = "$(printf 'mod[T=16] mod[T=32] mod[T=64] mod[T=128] embed[T=8] embed[T=24]\nmod:T=128\n1')"
check "the bytes of every case from its tensor table (embed[T=24]: idx 2x24x4, table 50x16x2, out 2x24x16x2)" \
	test "$(sqlite3 "$db" "SELECT bytes_min FROM cases WHERE name = 'embed[T=24]'")" -eq $((2 * 24 * 4 + 50 * 16 * 2 + 2 * 24 * 16 * 2))
expect_exit 0 "report" "$AB" report --db "$db" --out "$T/rep"
check "report: a sweep table of mod over T, ascending" \
	test "$(awk '/^### `mod` over T/ { f = 1; next } /^##/ { f = 0 } f' "$T"/rep/*.md | grep -Eo '^\| [0-9]+ \|' | tr -d '| ' | tr '\n' ' ')" = "16 32 64 128 "
check "and its chart's data" test -s "$T/rep/sweep-mod.dat"
/usr/bin/python3 - "$T/dump" <<'PY' && ok "dump: idx int32 within [0, V), the table float16, the gathered rows its rows" || fail "dump of embed"
import os, sys, numpy as np
d = sys.argv[1] + "/embed[T=24]"
idx = np.load(os.path.join(d, "in_idx.npy"))
table = np.load(os.path.join(d, "in_table.npy"))
out = np.load(os.path.join(d, "B_gather_rows_out.npy"))
assert idx.dtype == np.int32 and idx.shape == (2, 24) and idx.min() >= 0 and idx.max() < 50, (idx.dtype, idx.shape)
assert len(np.unique(idx)) > 10                 # drawn, not constant
assert table.dtype == np.float16 and table.shape == (50, 16)
assert out.dtype == np.float16 and (out.view(np.uint16) == table[idx].view(np.uint16)).all()
PY
sed 's/^shape = 1x{16:128:x2}x64$/shape = 1x{16,32}x60/' "$T/sweep.ini" >"$T/bad.ini"
expect_exit 2 "a swept shape against the site's rule" "$AB" run "$T/bad.ini" --db "$T/bad.db"
check "names the shape's line, the value and the rule" \
	grep -q "bad.ini:13: shape: site 'modulate_scale_shift' rejects '1x16x60': require 'W % 8 == 0' does not hold (B=1, T=16, W=60)" "$T/err"
check "nothing written" test ! -e "$T/bad.db"
finish
