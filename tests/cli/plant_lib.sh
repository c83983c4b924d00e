# plant_lib.sh - the divergence tests' scenario (t460-t463): for each dtype
# D of bf16, f16 and f32, a declared site plant_D (x and out of dtype D
# [B,T,W], mean and rstd f32 [B,T]) and the planted arms of
# tests/plugins/div_plant.c against its reference arm ref_D:
#
#   ulp1_D      1x8x16, x uniform(1, 2): out[0,3,5] one ULP up
#   sign_D      1x8x16, x = 1.5: out[0,1,2] = -1.5
#   nan_D       1x8x16, x = 1.5: out[0,2,7] NaN
#   rstd_D      1x8x16: rstd[0,2] one ULP up, out byte-equal
#   nondet_D    1x8x16: out[0,0,0] one ULP up on the arm's 2nd, 4th ... call
#   rowvar_D    1x{1,5,9}x16, invariance = rows: row 0 one ULP up when T > 1
#   inv_D       1x{1,5,9}x16, invariance = rows, b = ref: invariant
#
# ulp1, rstd and their reference write mean and rstd (writes =), so that
# the intermediates are compared. Fake timer, 21 samples a slot: the
# hashed calls are samples 1, 2, 3, 4, 8, 16 and 21. One warm-up call: with
# the call every arm gets before the run (run_case_preflight), two calls
# of nondet come before its samples, so sample k is its call k + 2 and
# the perturbed samples are 2, 4, ..., 20: 4 of 7 differ, the first at 2,
# and its last output is byte-equal to A1's.
# Source after lib.sh; plant_scenario FILE writes the scenario.
PLANT_LIB="$(dirname "$AB")/tests/plugins/libdiv_plant.so"
PLANT_DTYPES="bf16 f16 f32"

plant_scenario() {
	local D
	{
		printf '[scenario]\nname = plants\nbackend = cpu\nwarmup = 1\nmin_samples = 21\nmax_samples = 21\n'
		printf 'max_time_ms = 600000\n'
		for D in $PLANT_DTYPES; do
			printf '[site plant_%s]\naxes = B T W\n' "$D"
			printf 'tensors = x:%s:B,T,W:input, out:%s:B,T,W:output, mean:f32:B,T:stat, rstd:f32:B,T:stat\n' "$D" "$D"
			for arm in ref ulp1 rstd; do
				printf '[arm %s_%s]\ntype = plugin\nsite = plant_%s\nlibrary = %s\nname = %s_%s\nwrites = mean, rstd\n' \
					"$arm" "$D" "$D" "$PLANT_LIB" "$arm" "$D"
			done
			printf '[case ulp1_%s]\nsite = plant_%s\nshape = 1x8x16\ninput.x = uniform(1, 2)\na = ref_%s\nb = ulp1_%s\n' \
				"$D" "$D" "$D" "$D"
			for arm in sign nan; do
				printf '[case %s_%s]\nsite = plant_%s\nshape = 1x8x16\ninput.x = constant(1.5)\na = ref_%s\n' \
					"$arm" "$D" "$D" "$D"
				printf 'b = plugin:%s:%s_%s\n' "$PLANT_LIB" "$arm" "$D"
			done
			printf '[case rstd_%s]\nsite = plant_%s\nshape = 1x8x16\ninput.x = uniform(1, 2)\na = ref_%s\nb = rstd_%s\n' \
				"$D" "$D" "$D" "$D"
			printf '[case nondet_%s]\nsite = plant_%s\nshape = 1x8x16\ninput.x = uniform(1, 2)\na = ref_%s\n' \
				"$D" "$D" "$D"
			printf 'b = plugin:%s:nondet_%s\n' "$PLANT_LIB" "$D"
			for arm in rowvar inv; do
				printf '[case %s_%s]\nsite = plant_%s\nshape = 1x{1,5,9}x16\ninvariance = rows\n' "$arm" "$D" "$D"
				printf 'input.x = uniform(1, 2)\na = ref_%s\n' "$D"
				if [ "$arm" = inv ]; then printf 'b = ref_%s\n' "$D"; else
					printf 'b = plugin:%s:rowvar_%s\n' "$PLANT_LIB" "$D"; fi
			done
		done
	} >"$1"
}

# plant_sql DB SQL: one value (or rows) from the database.
plant_sql() { sqlite3 "$1" "$2"; }

# The divergence row of case C's slot S, tensor N: "COL|COL|..." of COLS.
plant_div() { # db case slot tensor cols
	sqlite3 "$1" "SELECT $5 FROM divergence d JOIN slots s ON s.id = d.slot_id JOIN cases c ON c.id = s.case_id
		WHERE c.name = '$2' AND s.label = '$3' AND d.tensor = '$4'"
}

# plant_host DB LABEL CASE: host times a call planted in the fake-timer run
# labelled LABEL, as the CUDA backend stores them (samples.host_ns, the
# slots' host_median_ns and host_p90_ns; the CPU backend stores none):
# 1 us a call for every arm, 5 ms for arm b of case CASE (launch-bound),
# and the run's last case deleted and the run marked interrupted, so that
# `abbench run SCENARIO --resume ID` measures it again without host time
# and prints the closing table of the whole run. Prints the run's id.
plant_host() { # db label case
	local id
	id=$(sqlite3 "$1" "SELECT id FROM runs WHERE label = '$2' ORDER BY id DESC LIMIT 1")
	sqlite3 "$1" "PRAGMA foreign_keys = ON;
		DELETE FROM cases WHERE run_id = $id AND id = (SELECT max(id) FROM cases WHERE run_id = $id);
		UPDATE runs SET status = 'interrupted', finished_at = NULL WHERE id = $id;
		UPDATE samples SET host_ns = 1000 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
			WHERE c.run_id = $id);
		UPDATE samples SET host_ns = 5e6 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
			WHERE c.run_id = $id AND c.name = '$3' AND s.arm = 'b');
		UPDATE slots SET host_median_ns = (SELECT max(host_ns) FROM samples WHERE slot_id = slots.id),
			host_p90_ns = (SELECT max(host_ns) FROM samples WHERE slot_id = slots.id)
			WHERE case_id IN (SELECT id FROM cases WHERE run_id = $id)" || return 1
	echo "$id"
}
