#!/usr/bin/env bash
# The warm-up rule of Python arms (docs/PYTHON_ARMS.md): before each slot's
# samples abbench calls the function once, untimed (there JIT compilers
# compile and torch initialises), on top of the scenario's `warmup`
# samples, and only then the timed ones.
#   slow_first  sleeps 0.3 s in the first call of every slot: with warmup
#               = 0 and the real clock, no B sample takes 0.3 s, yet the
#               sleep happened once per B slot (bracket ABABA: two) and
#               once in the call every arm gets before the run: three
#   counted     says so at each call: warmup = 2 and 3 samples make 1 + 2
#               + 3 calls per B slot, and 2 before the run (its prepare's
#               call and one untimed sample)
# The real timer for slow_first (the sleep is what it must not see);
# everything else about times here is a bound, not a figure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
db="$T/w.db"
mod="$PYDATA/rga_numpy.py"
scenario() { # FILE FUNCTION WARMUP
	cat >"$1" <<EOT
[scenario]
backend = cpu
bracket = ABABA
warmup = $3
min_samples = 3
max_samples = 3
min_time_ms = 0.001
l2_flush = false
[arms]
a = eager
b = python:$mod:$2
[case gate]
site = residual_gate_add
shape = 1x16x256
EOT
}
scenario "$T/slow.ini" slow_first 0
expect_exit 0 "a function whose first call of a slot sleeps 0.3 s" "$AB" run "$T/slow.ini" --db "$db" --label slow --no-progress
check "it slept once per B slot (two) and once before the run" test "$(grep -c '^slow_first: first call of a slot' "$T/err")" -eq 3
b_longest() { sqlite3 "$db" "SELECT max(x.wall_ns) FROM samples x JOIN slots s ON s.id = x.slot_id JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1' AND s.arm = 'b'"; }
b_samples() { sqlite3 "$db" "SELECT sum(s.n_samples) FROM slots s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1' AND s.arm = 'b'"; }
longest=$(b_longest slow)
# a sample that held the sleep would take 0.3 s or more; one of this tiny
# call takes microseconds, and 0.25 s leaves room for a loaded machine
check "no B sample saw the sleep (longest ${longest} ns < 0.25 s)" awk -v t="$longest" 'BEGIN { exit !(t > 0 && t < 2.5e8) }'
check "six B samples were kept, three per slot" test "$(b_samples slow)" -eq 6

scenario "$T/count.ini" counted 2
expect_exit 0 "a function that counts its calls" "$AB" run "$T/count.ini" --db "$db" --label count --no-progress
check "2 before the run, then 1 untimed warm-up + 2 warmup samples + 3 samples in each of the two B slots: 14 calls" \
	test "$(grep -c '^counted: a call' "$T/err")" -eq 14
finish
