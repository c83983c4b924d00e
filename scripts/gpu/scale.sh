#!/usr/bin/env bash
# scale.sh - the GPU stage of issue 12 (shards, merge, run sets, --devices),
# on the GPU machine with a build made elsewhere (builds nothing; uses
# build/abbench). Prints a short table last.
#
#   devices   `run --devices all` on smoke.ini and glm_1024.ini; on a host
#             with one GPU this must be a plain run ("run N stored", no run
#             set); with more, a run set of one shard per GPU
#   fail      `run --devices 0,9`: the worker for device 9 must fail the
#             command (exit 3) with its message, and set:ID must not read
#   shards    glm_1024 as two shards measured one after the other into two
#             files, merged into one database, then read as one run:
#             show, report (markdown), compare against the --devices run,
#             gate against it and it against the set (both must pass: the
#             same build on the same GPU), JSON exports of the set
#
# Results: $OUT (or ./gpu-out) gets scale.db, scale-logs.tar.gz and
# scale-summary.txt.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" scale "$@"
[ -n "$stages" ] || stages="devices fail shards"
DB="$RESULTS/scale.db"
rm -f "$DB" "$DB-wal" "$DB-shm"
summary="$RESULTS/scale-summary.txt"
: >"$summary"
row() { printf '%-44s %s\n' "$1" "$2" | tee -a "$summary" >/dev/null; }
# timed LOG COMMAND...: runs it with output in $LOGS/LOG; sets rc and secs
timed() {
	local log=$1 t0
	shift
	t0=$(date +%s.%N)
	"$@" >"$LOGS/$log" 2>&1
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	sed 's/^/    /' "$LOGS/$log" | tail -20
}
verdict() { # description, expected rc
	if [ "$rc" -eq "$2" ]; then row "$1" "PASS (exit $rc, ${secs}s)"; else row "$1" "FAIL (exit $rc, wanted $2, ${secs}s)"; fi
}

step device
nvidia-smi --query-gpu=index,name,driver_version --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 2; }
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
row "GPUs on this host" "$gpus"

if want devices; then
	for s in smoke glm_1024; do
		step "--devices all on $s"
		timed "devices_$s.log" "$AB" run "scenarios/$s.ini" --backend cuda --devices all --db "$DB" --label "devices-$s" --no-progress
		verdict "$s: run --devices all" 0
		if [ "$gpus" -eq 1 ]; then
			if grep -q '^run [0-9]* stored in' "$LOGS/devices_$s.log"; then
				row "$s: one GPU gives a plain run" PASS
			else
				row "$s: one GPU gives a plain run" FAIL
			fi
		elif grep -q "^run set '.*' ($gpus shards" "$LOGS/devices_$s.log"; then
			row "$s: a run set of $gpus shards" PASS
		else
			row "$s: a run set of $gpus shards" FAIL
		fi
		"$AB" show "devices-$s" --db "$DB" >"$LOGS/devices_${s}_show.txt" 2>&1
	done
fi

if want fail; then
	step "--devices 0,9: a worker that fails"
	timed devices_fail.log "$AB" run scenarios/smoke.ini --backend cuda --devices 0,9 --run-set fail9 --db "$DB" --no-progress
	verdict "devices 0,9: the command fails" 3
	if grep -q 'device 9 (shard 2/2): cuda device 9 does not exist' "$LOGS/devices_fail.log"; then
		row "devices 0,9: the worker's message" PASS
	else
		row "devices 0,9: the worker's message" FAIL
	fi
	timed fail_show.log "$AB" show set:fail9 --db "$DB"
	verdict "devices 0,9: no 'ok' run set" 2
fi

if want shards; then
	step "glm_1024 as two shards, merged"
	for i in 1 2; do
		timed "shard$i.log" "$AB" run scenarios/glm_1024.ini --backend cuda --shard "$i/2" --run-set glm2 \
			--label glm-shard --db "$TMP/shard$i.db" --no-progress
		verdict "glm_1024 shard $i/2" 0
	done
	timed merge.log "$AB" merge "$DB" "$TMP/shard1.db" "$TMP/shard2.db"
	verdict "merge the two shard files" 0
	timed merge2.log "$AB" merge "$DB" "$TMP/shard1.db" "$TMP/shard2.db"
	if grep -q '0 runs copied, 2 already there' "$LOGS/merge2.log"; then row "merge again adds nothing" PASS; else row "merge again adds nothing" FAIL; fi
	timed set_show.log "$AB" show set:glm2 --db "$DB"
	verdict "show set:glm2" 0
	timed set_report.log "$AB" report set:glm2 --db "$DB" --out "$TMP/report-glm2" --no-plots
	verdict "report set:glm2" 0
	cp "$TMP/report-glm2/report.md" "$LOGS/report-glm2.md" 2>/dev/null
	if want devices; then
		timed set_compare.log "$AB" compare devices-glm_1024 set:glm2 --db "$DB" --json --out "$LOGS/compare.json"
		verdict "compare the --devices run with set:glm2" 0
		timed gate_set.log "$AB" gate set:glm2 --baseline devices-glm_1024 --db "$DB" --out "$LOGS/gate_set.md"
		verdict "gate set:glm2 against the --devices run" 0
		timed gate_rev.log "$AB" gate devices-glm_1024 --baseline set:glm2 --db "$DB" --json --out "$LOGS/gate_rev.json"
		verdict "gate the --devices run against set:glm2" 0
	fi
	timed export.log "$AB" export set:glm2 --db "$DB" --json "$LOGS/glm2.json" --benchmark-json "$LOGS/glm2-bench.json" \
		--csv "$LOGS/glm2.csv"
	verdict "export set:glm2 (json, benchmark json, csv)" 0
	if python3 -c 'import jsonschema' 2>/dev/null; then
		python3 tests/tools/json_check.py docs/JSON.md abbench.export "$LOGS/glm2.json" >"$LOGS/json_check.log" 2>&1
		rc=$? secs=0
		verdict "set:glm2 JSON against docs/JSON.md" 0
	else
		row "set:glm2 JSON against docs/JSON.md" "skipped (no python3-jsonschema here; check $LOGS/glm2.json elsewhere)"
	fi
	cases=$(tail -n +2 "$LOGS/glm2.csv" 2>/dev/null | cut -d, -f1 | sort -u | wc -l)
	row "set:glm2 cases (both shards)" "$cases"
fi

tar -C "$TMP" -czf "$RESULTS/scale-logs.tar.gz" logs
echo
echo "=== scale summary ==="
cat "$summary"
