#!/usr/bin/env bash
# The plugin and cubin stage of a GPU session (issue 10 items 1, 2, 5, 6),
# on the GPU machine, with build/ made elsewhere by `make` (this script
# builds nothing; it needs build/abbench, build/examples/plugin/*.so and
# build/examples/cubin/*, which make builds when nvcc is found):
#   exact       examples/plugin/rga_plugin.ini: the plugin's rga_exact as b
#               against eager on cuda: runs, B byte-equal to A1
#   inexact     the same with rga_inexact: runs, B NOT byte-equal
#   cubin       examples/cubin/rga_cubin.ini: an nvcc cubin through the
#               driver API: runs, byte-equal, CUPTI names kernel rga_cubin
#   ptx fatbin  the same kernel as PTX (JIT) and as a fatbin: byte-equal;
#               a fatbin with a wrong params list is refused (exit 2) by
#               the driver's cuFuncGetParamInfo
#   ln          examples/cubin/ln_cubin.ini: ln_twopass (cubin) and
#               ln_tritonlike (read through Triton metadata, with global
#               scratch): both run, and give the same bytes as each other
#   sm80        a cubin built for sm_80: exit 2, the message names sm_80
#   faults      the fault plugin: fail (exit 3), illegal_address (exit 3,
#               run failed, 'illegal memory access', no hang under
#               timeout), overrun (exit 3, names tensor 'out'), into_input
#               (exit 3, names input 'x')
#   sanitize    compute-sanitizer memcheck on one exact plugin run: 0 errors
# Results: $OUT (or ./gpu-out) gets plugins.db, json/ (each run's show and
# export --format json, which the checks read: scripts/gpu/abjson.py) and
# plugins-logs.tar.gz. The
# last lines printed are the table: stage, what was expected, PASS/FAIL;
# then B medians and CUPTI kernel names of the runs that measured.
# Usage: scripts/gpu/plugins.sh [STAGE ...] (default: all; about 3 to 5
# minutes). Each run is under `timeout` (240 s, 120 s for the faults: a
# hang shows as exit 124). Exit status 0 when every stage passed, 1
# otherwise.
# shellcheck source=scripts/gpu/lib.sh
. "$(dirname "$0")/lib.sh" plugins "$@"
[ -n "$stages" ] || stages="exact inexact cubin ptx fatbin ln sm80 faults sanitize"
mkdir -p "$TMP/scn"
EX=$ROOT/build/examples
DB="$RESULTS/plugins.db"
rm -f "$DB"
table="$LOGS/table.txt"
: >"$table"
row() { # stage expected verdict
	printf '%-28s %-50s %s\n' "$1" "$2" "$3" | tee -a "$table"
	case "$3" in PASS*) ;; *) status=1 ;; esac
}
SAMPLING='min_time_ms = 300\nmax_time_ms = 2000'

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$AB" --version || { echo "abbench does not start here"; exit 1; }

# A scenario copy in $TMP/scn (paths made absolute), with b replaced.
variant() { # SOURCE NAME B-VALUE [SED-EXPR]
	sed -e "s|\.\./\.\./build/examples|$EX|" -e "s|^b = .*|b = $3|" ${4:+-e "$4"} "$ROOT/$1" >"$TMP/scn/$2.ini"
	echo "$TMP/scn/$2.ini"
}
# run LABEL SCENARIO [extra args]: exit status in $rc, output in
# $LOGS/LABEL.log; its show (text, for the log) and its show and export as
# JSON (what the checks read)
run() {
	local label=$1 scn=$2; shift 2
	timeout "${RUN_TIMEOUT:-240}" "$AB" run "$scn" --backend cuda --db "$DB" --label "$label" --no-progress "$@" >"$LOGS/$label.log" 2>&1
	rc=$?
	cat "$LOGS/$label.log"
	"$AB" show "$label" --db "$DB" >"$LOGS/show_$label.txt" 2>&1 && cat "$LOGS/show_$label.txt"
	ab_json show "$label" "$DB" >/dev/null
	ab_json export "$label" "$DB" >/dev/null
}
# exact_lines LABEL yes|no: the cases whose B is (not) byte-equal to A1
exact_lines() { "$READ" scripts/gpu/abjson.py exact "$JSON/$1.show.json" "$2" 2>/dev/null; }
# kernels LABEL: the CUPTI kernel names of the run's B slots
kernels() { "$READ" scripts/gpu/abjson.py kernels "$JSON/$1.export.json" b 2>/dev/null || echo "(none)"; }
# run_status LABEL: the stored run's status
run_status() { "$READ" scripts/gpu/abjson.py get "$JSON/$1.show.json" run.status 2>/dev/null; }
timed=()
measured() { # LABEL: its B medians and kernels go into the closing table
	timed+=("$1")
}

if want exact; then
	step "exact: plugin rga_exact as arm b"
	scn=$(variant examples/plugin/rga_plugin.ini exact "plugin:$EX/plugin/librga_plugin.so:rga_exact")
	run exact "$scn"
	[ "$rc" -eq 0 ] && [ "$(exact_lines exact yes)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
	row "plugin rga_exact" "exit 0, B byte-equal to A1 in both cases" "$v"
	measured exact
fi
if want inexact; then
	step "inexact: plugin rga_inexact as arm b"
	scn=$(variant examples/plugin/rga_plugin.ini inexact "plugin:$EX/plugin/librga_plugin.so:rga_inexact")
	run inexact "$scn"
	[ "$rc" -eq 0 ] && [ "$(exact_lines inexact no)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
	row "plugin rga_inexact" "exit 0, B NOT byte-equal in both cases" "$v"
	measured inexact
fi
if want cubin; then
	step "cubin: rga_cubin.cubin through the driver API"
	scn=$(variant examples/cubin/rga_cubin.ini cubin rga_cubin)
	run cubin "$scn"
	k=$(kernels cubin)
	[ "$rc" -eq 0 ] && [ "$(exact_lines cubin yes)" = 2 ] && [ "$k" = rga_cubin ] && v=PASS || v="FAIL (exit $rc, kernels '$k')"
	row "cubin rga_cubin" "exit 0, byte-equal, CUPTI kernel 'rga_cubin'" "$v"
	measured cubin
fi
if want ptx; then
	step "ptx: rga_cubin.ptx (JIT-compiled by the driver)"
	scn=$(variant examples/cubin/rga_cubin.ini ptx rga_cubin "s|rga_cubin\.cubin|rga_cubin.ptx|")
	run ptx "$scn"
	[ "$rc" -eq 0 ] && [ "$(exact_lines ptx yes)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
	row "ptx rga_cubin" "exit 0, byte-equal" "$v"
fi
if want fatbin; then
	step "fatbin: rga_cubin.fatbin (sm_80 + sm_90)"
	scn=$(variant examples/cubin/rga_cubin.ini fatbin rga_cubin "s|rga_cubin\.cubin|rga_cubin.fatbin|")
	run fatbin "$scn"
	[ "$rc" -eq 0 ] && [ "$(exact_lines fatbin yes)" = 2 ] && v=PASS || v="FAIL (exit $rc)"
	row "fatbin rga_cubin" "exit 0, byte-equal" "$v"
	step "fatbin with a params list one short (only the driver can tell)"
	scn=$(variant examples/cubin/rga_cubin.ini fatbin_bad rga_cubin "s|rga_cubin\.cubin|rga_cubin.fatbin|;s|, W, T\$|, W|")
	run fatbin_bad "$scn"
	grep -q "takes 7 parameters (cuFuncGetParamInfo), params lists 6" "$LOGS/fatbin_bad.log" && [ "$rc" -eq 2 ] &&
		v=PASS || v="FAIL (exit $rc)"
	row "fatbin, wrong params" "exit 2, count from cuFuncGetParamInfo" "$v"
fi
if want ln; then
	step "ln: ln_twopass (cubin) and ln_tritonlike (Triton metadata)"
	run ln_twopass "$(variant examples/cubin/ln_cubin.ini ln_twopass ln_twopass)"
	rc1=$rc
	run ln_tritonlike "$(variant examples/cubin/ln_cubin.ini ln_tritonlike ln_tritonlike)"
	md5s() { "$READ" scripts/gpu/abjson.py md5s "$JSON/$1.export.json" B 2>/dev/null; }
	[ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && [ -n "$(md5s ln_twopass)" ] && [ "$(md5s ln_twopass)" = "$(md5s ln_tritonlike)" ] &&
		v=PASS || v="FAIL (exits $rc1 $rc; md5 '$(md5s ln_twopass)' vs '$(md5s ln_tritonlike)')"
	row "cubin ln_twopass/tritonlike" "exit 0 both, the same B bytes (Triton path)" "$v"
	measured ln_twopass
	measured ln_tritonlike
fi
if want sm80; then
	step "sm80: a cubin for another architecture"
	scn=$(variant examples/cubin/rga_cubin.ini sm80 rga_cubin "s|rga_cubin\.cubin|rga_cubin_sm80.cubin|")
	run sm80 "$scn"
	grep -q "is cubin for sm_80; the device '.*' is sm_90" "$LOGS/sm80.log" && [ "$rc" -eq 2 ] && v=PASS || v="FAIL (exit $rc)"
	row "cubin for sm_80" "exit 2, 'for sm_80', nothing stored" "$v"
fi
if want faults; then
	for arm in fail illegal_address overrun into_input; do
		step "fault: $arm"
		scn=$(variant examples/plugin/rga_plugin.ini "fault_$arm" "plugin:$EX/plugin/libfault_plugin.so:$arm" 's|^max_time_ms = 2000|max_time_ms = 500|')
		start=$(date +%s)
		RUN_TIMEOUT=120 run "fault_$arm" "$scn"
		secs=$(( $(date +%s) - start ))
		case $arm in
		fail) msg="the plugin's cuda function failed (status 1): deliberate failure" ;;
		illegal_address) msg="illegal memory access" ;;
		overrun) msg="wrote outside tensor 'out': 2 of the 4096 guard bytes after its end changed" ;;
		into_input) msg="wrote into its input 'x'" ;;
		esac
		grep -q "$msg" "$LOGS/fault_$arm.log" && [ "$rc" -eq 3 ] && [ "$(run_status "fault_$arm")" = failed ] &&
			v="PASS (${secs} s)" || v="FAIL (exit $rc after ${secs} s)"
		row "fault $arm" "exit 3, run failed, names it, no hang" "$v"
	done
fi
if want sanitize; then
	step "compute-sanitizer memcheck on the exact plugin"
	scn=$(variant examples/plugin/rga_plugin.ini san "plugin:$EX/plugin/librga_plugin.so:rga_exact")
	if command -v compute-sanitizer >/dev/null; then
		compute-sanitizer --tool memcheck --error-exitcode 9 "$AB" run "$scn" --backend cuda --quick --only gate_txt_special \
			--db "$TMP/san.db" --no-progress >"$LOGS/sanitizer.log" 2>&1
		rc=$?
		tail -5 "$LOGS/sanitizer.log"
		[ "$rc" -eq 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$LOGS/sanitizer.log" && v=PASS || v="FAIL (exit $rc)"
	else
		v="FAIL (no compute-sanitizer on PATH)"
	fi
	row "compute-sanitizer memcheck" "0 errors on a plugin run" "$v"
fi

tar -czf "$RESULTS/plugins-logs.tar.gz" -C "$TMP" logs
echo
echo "=== times (B median per case) and CUPTI kernel names of arm b ==="
for label in "${timed[@]}"; do
	"$READ" scripts/gpu/abjson.py times "$JSON/$label.export.json" "$label"
	echo "               kernels: $(kernels "$label" | cut -c1-200)"
done
echo
echo "=== plugins.sh: stage, expected, verdict ==="
cat "$table"
exit $status
