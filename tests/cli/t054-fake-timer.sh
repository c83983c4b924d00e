#!/usr/bin/env bash
# The CPU backend's fake timer (ABBENCH_FAKE_TIMER=1), which the gate and
# nightly tests stand on: two runs of one scenario give the same medians row
# for row; a step costs 2 us + 0.5 ns per activation element (+-0.5%), so
# ln_modulate's 4-step eager chain is ~4x its one fused step; the outputs are
# still computed (the md5s of a real-timer run); `abbench show` says the
# times are fake, and a run without the variable does not.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/f.db"
fake() { ABBENCH_FAKE_TIMER=1 "$@"; }

expect_exit 0 "first fake-timer run" fake "$AB" run scenarios/smoke.ini --backend cpu --label f1 --no-progress
expect_exit 0 "second fake-timer run" fake "$AB" run scenarios/smoke.ini --backend cpu --label f2 --no-progress
"$AB" export f1 --csv "$T/f1.csv"
"$AB" export f2 --csv "$T/f2.csv"
# case,slot,samples,median_ns of every row
rows() { tail -n +2 "$1" | cut -d, -f1,6,7,8; }
cases=$(grep -c '^\[case ' scenarios/smoke.ini)
check "a row per case and slot ($(rows "$T/f1.csv" | wc -l) rows)" test "$(rows "$T/f1.csv" | wc -l)" -eq $((3 * cases))
check "identical samples and median_ns in every row" cmp -s <(rows "$T/f1.csv") <(rows "$T/f2.csv")

# ln_modulate at 1x16x256: 4096 elements, a step 2000 + 0.5 * 4096 = 4048 ns.
median() { awk -F, -v c="$2" -v s="$3" '$1 == c && $6 == s { print $8 }' "$1"; }
b=$(median "$T/f1.csv" ln_modulate B)
check "the fused slot is 4048 ns +-0.5% (got $b)" awk -v x="$b" 'BEGIN { exit !(x >= 4048 * 0.995 && x <= 4048 * 1.005) }'
for slot in A1 A2; do
	a=$(median "$T/f1.csv" ln_modulate "$slot")
	check "eager $slot / fused B is between 3.5 and 4.5 (got $a / $b)" \
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a / b >= 3.5 && a / b <= 4.5) }'
done

expect_exit 0 "show the fake-timer run" "$AB" show f1
check "its device line names the fake timer and its copy rate" \
	grep -qx 'backend cpu  device CPU fake timer (ABBENCH_FAKE_TIMER=1)  copy 16 GB/s' "$T/out"

expect_exit 0 "a real-timer run" env -u ABBENCH_FAKE_TIMER "$AB" run scenarios/smoke.ini --backend cpu --quick --label real --no-progress
expect_exit 0 "show it" "$AB" show real
check "its device line does not" bash -c "grep -q '^backend cpu  device CPU' '$T/out' && ! grep -q 'fake timer' '$T/out'"
"$AB" export real --csv "$T/real.csv"
check "the fake timer still computes the outputs: same md5 per row" \
	cmp -s <(tail -n +2 "$T/f1.csv" | cut -d, -f1,6,11) <(tail -n +2 "$T/real.csv" | cut -d, -f1,6,11)
finish
