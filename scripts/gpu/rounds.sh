#!/usr/bin/env bash
# The CUDA proofs of the CPU-trust work (docs/SCENARIO_FORMAT.md "Rounds",
# "timing = cpu") on the GPU machine, with build/ made elsewhere by `make`
# (this script builds nothing):
#   events   scenarios/smoke.ini in rounds = 3 under timing = events: exit 0,
#            every case measured and every slot byte-equal
#   graph    the same under timing = graph
#   cpu      timing = cpu with --backend cuda: refused before the run (exit 2,
#            the message names timing = cpu), no run stored
# The table last: a row per stage with its exit status, cases, byte-equal
# cases and what was expected.
#
# Usage: scripts/gpu/rounds.sh [events] [graph] [cpu]   (default: all three)
# Through scripts/gpu/session.sh: scripts/gpu/session.sh rounds:120
. "$(dirname "$0")/lib.sh" rounds "$@"
[ -n "$stages" ] || stages="events graph cpu"
DB=$RESULTS/rounds.db
table=$TMP/table.txt
: >"$table"

# scenario TIMING: smoke.ini with rounds = 3 and that timing, on CUDA.
scenario() {
	sed -e "s/^launch_gaps = include/launch_gaps = include\nrounds = 3\ntiming = $1/" \
		-e "s/^backend = auto/backend = cuda/" -e "s/^name = smoke/name = smoke_rounds_$1/" \
		scenarios/smoke.ini >"$TMP/smoke_$1.ini"
	echo "$TMP/smoke_$1.ini"
}

# measured TIMING: one run of the rounds scenario, its cases read from JSON.
measured() {
	local t=$1 scn rc f
	step "smoke in 3 rounds, timing = $t"
	scn=$(scenario "$t")
	"$AB" run "$scn" --db "$DB" --label "rounds-$t" --no-progress >"$LOGS/$t.log" 2>&1
	rc=$?
	tail -12 "$LOGS/$t.log"
	if ! f=$(ab_json show "rounds-$t" "$DB"); then
		echo "$t exit=$rc no-run expected=exit0,all-equal FAIL" >>"$table"
		status=1
		return
	fi
	"$READ" - "$f" "$t" "$rc" >>"$table" <<'PY' || status=1
import json, sys
doc = json.load(open(sys.argv[1]))
cases = doc.get("cases", [])
equal = sum(1 for c in cases if c.get("slots") and all(s.get("bit_exact") is True for s in c["slots"]))
samples = sum(s.get("n_samples") or 0 for c in cases for s in c.get("slots", []))
ok = sys.argv[3] == "0" and cases and equal == len(cases)
print(f"{sys.argv[2]} exit={sys.argv[3]} cases={len(cases)} byte-equal={equal} samples={samples} "
      f"expected=exit0,all-equal {'ok' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
}

want events && measured events
want graph && measured graph
if want cpu; then
	step "timing = cpu on the CUDA backend"
	scn=$(scenario cpu)
	before=$("$AB" list --db "$DB" 2>/dev/null | wc -l)
	"$AB" run "$scn" --db "$DB" --backend cuda --label rounds-cpu --no-progress >"$LOGS/cpu.log" 2>&1
	rc=$?
	after=$("$AB" list --db "$DB" 2>/dev/null | wc -l)
	cat "$LOGS/cpu.log"
	verdict=FAIL
	[ "$rc" -eq 2 ] && grep -q "timing" "$LOGS/cpu.log" && [ "$before" = "$after" ] && verdict=ok
	[ "$verdict" = ok ] || status=1
	echo "cpu exit=$rc list-lines=$before->$after expected=exit2,named,nothing-stored $verdict" >>"$table"
fi
step "rounds on CUDA"
cat "$table"
exit $status
