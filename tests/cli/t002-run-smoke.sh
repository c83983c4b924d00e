#!/usr/bin/env bash
# The walking skeleton end to end on the CPU backend: run, list, show,
# export; every case gets three slots, fused is byte-equal to eager.
. "$(dirname "$0")/lib.sh"
db="$T/smoke.db"

expect_exit 0 "run smoke on cpu" "$AB" run scenarios/smoke.ini --backend cpu --db "$db" --quick
check "run prints the stored id" grep -q "^run 1 stored in" "$T/out"
expect_exit 0 "list" "$AB" list --db "$db"
check "list shows run 1 ok" grep -Eq '^1 .* ok ' "$T/out"
expect_exit 0 "show last" "$AB" show --db "$db"
check "show has slot A1" grep -Eq '^  A1 +a +eager' "$T/out"
check "show has slot B" grep -Eq '^  B +b +fused' "$T/out"
check "show has slot A2" grep -Eq '^  A2 +a +eager' "$T/out"
check "show reports b byte-equal for every case" test "$(grep -c 'b byte-equal to a: yes' "$T/out")" -eq "$(grep -c '^case ' "$T/out")"
check "show has the projection" grep -q '^projection' "$T/out"
expect_exit 0 "show 1" "$AB" show 1 --db "$db"
expect_exit 0 "export csv" "$AB" export 1 --csv "$T/r.csv" --db "$db"
check "csv header" grep -q '^case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,bit_exact' "$T/r.csv"
cases=$(grep -c '^\[case ' scenarios/smoke.ini)
check "csv has 3 rows per case" test "$(($(wc -l <"$T/r.csv") - 1))" -eq $((3 * cases))
check "every csv row bit-exact" test "$(cut -d, -f12 "$T/r.csv" | tail -n +2 | sort -u)" = 1
check "slots are A1,B,A2" test "$(cut -d, -f6 "$T/r.csv" | tail -n +2 | sort -u | tr '\n' ' ')" = "A1 A2 B "
expect_exit 0 "export to stdout" "$AB" export --csv - --db "$db"
check "stdout csv has header" grep -q '^case,site' "$T/out"
expect_exit 0 "ABBENCH_DB is the default db" env ABBENCH_DB="$db" "$AB" list
check "ABBENCH_DB list shows run 1" grep -Eq '^1 ' "$T/out"
finish
