#!/usr/bin/env bash
# A bracket measured in rounds (rounds = N, run/run_slot.h) keeps every
# check of the divergence family as one round would: on the planted arms
# of plant_lib.sh (the divergence tests' scenario, fake timer, 21 samples
# a slot) measured in 3 rounds, every slot stores the same divergence rows
# as in one round, once (not once per round), the same compared lists,
# bit-exactness and batch-invariance rows, and the run's verdict line is
# the same; the hashed calls of determinism run on over the rounds (ids
# 1-4, 8, 16 and each round's last, 7, 14 and 21: 9 calls), and the
# nondeterministic arm is still caught. In 2 rounds the nondeterministic
# arm's B slot ends round 1 byte-equal to A1 and round 2 not: the slot
# stores round 2's check (its one differing element), once. --dump writes
# the first slot of each arm once. Rounds on the CPU backend only: the
# GPU's are the same calls (slot_begin ... slot_end per stretch).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
export ABBENCH_FAKE_TIMER=1
db="$T/r.db"
plant_scenario "$T/p1.ini"
sed 's/^max_time_ms = 600000$/max_time_ms = 600000\nrounds = 3/' "$T/p1.ini" >"$T/p3.ini"
sed 's/^max_time_ms = 600000$/max_time_ms = 600000\nrounds = 2/' "$T/p1.ini" >"$T/p2.ini"
check "the scenarios say rounds" test "$(grep -c '^rounds = ' "$T/p3.ini" "$T/p2.ini" | grep -c ':1$')" -eq 2

expect_exit 0 "the plants in one round" "$AB" run "$T/p1.ini" --db "$db" --no-progress --label one
grep '^verdict: ' "$T/out" >"$T/verdict1"
expect_exit 0 "the plants in 3 rounds" "$AB" run "$T/p3.ini" --db "$db" --no-progress --label three
check "the notes say 3 rounds" test "$(sqlite3 "$db" "SELECT notes FROM runs WHERE label = 'three'")" = \
	"bracket ABA measured in up to 3 interleaved rounds"
check "the same verdict line (18 lost, 3 nondeterministic)" diff "$T/verdict1" <(grep '^verdict: ' "$T/out")
check "... which is t461's" grep -q 'lost bit-exactness 18 (3 nondeterministic)' "$T/verdict1"

# Per slot: its divergence rows (tensor, n_diff, stage), compared list and
# outputs' bit-exactness and mismatches, in one line; one run's lines.
slot_lines() {
	sqlite3 "$db" <<SQL
SELECT c.name || ' ' || s.label || ' [' ||
  coalesce((SELECT group_concat(v.tensor || ':' || v.n_diff || '@' || v.stage, ' ') FROM divergence v
            WHERE v.slot_id = s.id), '') || '] ' || k.compared || ' ' ||
  (SELECT group_concat(o.tensor || '=' || o.bit_exact || '/' || o.mismatches, ' ') FROM outputs o WHERE o.slot_id = s.id)
FROM slots s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id
LEFT JOIN slot_checks k ON k.slot_id = s.id WHERE r.label = '$1' ORDER BY c.ordinal, s.position;
SQL
}
slot_lines one >"$T/one"
slot_lines three >"$T/three"
check "99 slots in each run" test "$(wc -l <"$T/one")" -eq 99 -a "$(wc -l <"$T/three")" -eq 99
check "every slot: the same divergences, compared list and outputs in 3 rounds as in one" diff "$T/one" "$T/three"
rows() { sqlite3 "$db" "SELECT count(*) FROM divergence v JOIN slots s ON s.id = v.slot_id JOIN cases c ON c.id = s.case_id
	JOIN runs r ON r.id = c.run_id WHERE r.label = '$1'"; }
check "divergence rows stored once per slot: as many in 3 rounds as in one (and some)" \
	test "$(rows three)" -eq "$(rows one)" -a "$(rows one)" -gt 10
inv() { sqlite3 "$db" "SELECT c.name, i.arm, i.slot, i.rows_compared, i.first_row, i.other_value, i.tensor FROM invariance i
	JOIN cases c ON c.id = i.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1' ORDER BY c.ordinal, i.arm"; }
check "batch invariance: the same rows from the first slot of each arm" diff <(inv one) <(inv three)
check "... and rowvar's break found (row 0, from T = 1)" test "$(inv three | grep -c '^rowvar_.*|b|B|[0-9]*|0|1|out$')" -eq 6

calls() { sqlite3 "$db" "SELECT DISTINCT k.calls_checked FROM slot_checks k JOIN slots s ON s.id = k.slot_id
	JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id WHERE r.label = '$1'"; }
check "one round: 7 hashed calls a slot" test "$(calls one)" = 7
check "3 rounds: 9 hashed calls a slot (1-4, 8, 16 and 7, 14, 21)" test "$(calls three)" = 9
nondet=$(sqlite3 "$db" "SELECT count(*) FROM slot_checks k JOIN slots s ON s.id = k.slot_id JOIN cases c ON c.id = s.case_id
	JOIN runs r ON r.id = c.run_id WHERE r.label = 'three' AND k.calls_differ > 0")
check "3 rounds: the three nondeterministic B slots caught, no other" test "$nondet" -eq 3

expect_exit 0 "nondet_f32 in 2 rounds" "$AB" run "$T/p2.ini" --db "$db" --no-progress --label two --only nondet_f32
b2=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM divergence v WHERE v.slot_id = s.id) || '|' ||
	(SELECT group_concat(v.n_diff) FROM divergence v WHERE v.slot_id = s.id) || '|' || o.bit_exact || '|' || o.mismatches
	FROM slots s JOIN cases c ON c.id = s.case_id JOIN runs r ON r.id = c.run_id JOIN outputs o ON o.slot_id = s.id
	WHERE r.label = 'two' AND s.label = 'B'")
check "2 rounds: B keeps round 2's check (1 element differs), stored once" test "$b2" = "1|1|0|1"
check "... its verdict: lost bit-exactness" grep -q '^nondet_f32 .* NO  *lost bit-exactness' "$T/out"

expect_exit 0 "3 rounds with --dump" "$AB" run "$T/p3.ini" --db "$db" --no-progress --label dumped --only ulp1_f16 \
	--dump "$T/dumps"
check "the first slot of each arm dumped once, and the input" \
	test "$(cd "$T/dumps/ulp1_f16" && ls | tr '\n' ' ')" = \
	"A1_ref_f16_mean.npy A1_ref_f16_out.npy A1_ref_f16_rstd.npy B_ulp1_f16_mean.npy B_ulp1_f16_out.npy B_ulp1_f16_rstd.npy in_x.npy "
finish
