#!/usr/bin/env bash
# The GPU stage scripts read their results through abbench's public
# interface (docs/JSON.md), never SQL nor markdown: scripts/gpu/lib.sh's
# ab_json writes `abbench export|show|list --format json` documents,
# scripts/gpu/abjson.py answers the scripts' checks from them and
# scripts/gpu/tables.py prints their closing tables. No GPU here: each
# reader runs over fake-timer CPU runs standing in for the stage's GPU
# runs (same labels, same shape of documents), and what it prints is held
# against the same figures reached another way (the CSV export, show's
# text, list's text, compare's markdown), so a reader that misreads a
# field fails.
#   floor.sh     tables.py floor: B kernel over the floor's kernel, md5s,
#                stop reasons; md5s not glm_1024's: exit 1
#   sites.sh     tables.py sites: exact and deliberately inexact declared
#                arms PASS, B GB/s and % of copy as the CSV has them; an
#                inexact arm not on the list FAILs: exit 1
#   triton.sh    tables.py triton: per slot byte-equality and mismatches
#   kernels.sh   tables.py kernels: B/A = 1 / the summary's speedup, md5
#                agreement; an inexact arm DIFFERs: exit 1
#   sweeps.sh    tables.py sweep (each value of a sweep, from export and
#                show), tables.py stopping (two runs' slots), abjson.py
#                slots, verdicts, get run.device_index, list counts
#   python.sh, plugins.sh   abjson.py exact, kernels, md5s, longest, times,
#                get run.status, run.arm_sources (a Python arm's provenance)
#   reliab.sh, model.sh     abjson.py runs, count, newest over list --format
#                json; merge as the integrity check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh" # $PY: Debian's python3 with numpy (a python arm below); SKIPs without
root=$(cd "$(dirname "$0")/../.." && pwd)
READ=/usr/bin/python3 # the readers need the standard library only
abj() { "$READ" "$root/scripts/gpu/abjson.py" "$@"; }
tab() { "$READ" "$root/scripts/gpu/tables.py" "$@"; }
export ABBENCH_FAKE_TIMER=1
db=$T/r.db
J=$T/out/json
# ab_json through lib.sh itself (in a subshell: it moves to the checkout)
ab_json_() { (OUT="$T/out" TMPDIR="$T/tmp" READ_PYTHON=$READ bash -c '. "$1/scripts/gpu/lib.sh" test && AB=$2 && ab_json "$3" "$4" "$5"' _ "$root" "$AB" "$@"); }
run() { # LABEL SCENARIO [OPTIONS]: a CPU run into $db and its export and show as the stage scripts write them
	local label=$1 scn=$2
	shift 2
	"$AB" run "$scn" --backend cpu --db "$db" --label "$label" --no-progress "$@" >"$T/run.out" 2>"$T/run.err" ||
		{ cat "$T/run.err"; return 1; }
	ab_json_ export "$label" "$db" >/dev/null && ab_json_ show "$label" "$db" >/dev/null
}
# csv LABEL: the run's CSV export (export_csv.c: the other route to the same figures)
csv() { "$AB" export "$1" --db "$db" --format csv; }
# col LABEL SLOT CASE COLUMN: one cell of the CSV export
col() { csv "$1" | "$READ" -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["slot"] == sys.argv[1] and r["case"] == sys.argv[2]:
        print(r[sys.argv[3]])' "$2" "$3" "$4"; }
num() { "$READ" -c "import sys; print(f'{float(sys.argv[1]):.$1f}')" "$2"; } # DIGITS VALUE

sed 's/^min_samples = .*/min_samples = 10/; s/^max_samples = .*/max_samples = 10/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	"$root/scenarios/smoke.ini" >"$T/base.ini"
cases=$(grep -c '^\[case ' "$T/base.ini")

# ---- lib.sh ---------------------------------------------------------------
check "run glm (smoke, fake timer)" run glm "$T/base.ini"
check "ab_json writes RUN.export.json and RUN.show.json under \$OUT/json" \
	test -s "$J/glm.export.json" -a -s "$J/glm.show.json"
check "and prints the path" test "$(ab_json_ export glm "$db")" = "$J/glm.export.json"
check "a run that is not there: no file, not an older one" \
	bash -c "! (OUT='$T/out' TMPDIR='$T/tmp' bash -c '. \"$root/scripts/gpu/lib.sh\" t && AB=\"$AB\" && ab_json export nothing \"$db\"') && test ! -e '$J/nothing.export.json'"
check "documents that validate against docs/JSON.md" \
	bash -c "'$READ' '$root/tests/tools/json_check.py' '$root/docs/JSON.md' abbench.export '$J/glm.export.json' >/dev/null &&
		'$READ' '$root/tests/tools/json_check.py' '$root/docs/JSON.md' abbench.show '$J/glm.show.json' >/dev/null"
check "lib.sh sets the stage's folders and stages" \
	bash -c "cd /; OUT='$T/o2' TMPDIR='$T/tmp' bash -c '. \"$root/scripts/gpu/lib.sh\" demo a b && [ \"\$PWD\" = \"$root\" ] && [ \"\$RESULTS\" = \"$T/o2\" ] && [ -d \"\$LOGS\" ] && [ -d \"\$JSON\" ] && want a && want b && ! want c && [ \"\$TMP\" = \"$T/tmp/abbench-demo\" ]'"

# ---- floor.sh: tables.py floor ---------------------------------------------
check "run span-new" run span-new "$T/base.ini" --only ln_modulate,residual_gate_add
check "run span-legacy1" run span-legacy1 "$T/base.ini" --only ln_modulate,residual_gate_add
rc=0
tab floor "$J" >"$T/floor.txt" 2>&1 || rc=$?
check "floor: exit 1, as glm_1024's md5s are not smoke's" test "$rc" -eq 1
check "floor: a row per case" test "$(grep -Ec '^(ln_|qk_|residual)' "$T/floor.txt" | head -1)" -ge "$cases"
kb=$(col glm B ln_modulate kernel_median_ns) kf=$(col glm B ln_modulate copy_floor_kernel_ns)
want_ratio=$(num 3 "$("$READ" -c "print($kb / $kf)")")
check "floor: ln_modulate's B/floor is the CSV's B kernel over the floor's kernel ($want_ratio)" \
	grep -Eq "^ln_modulate .* $want_ratio +[0-9.]+ +[0-9.]+ +$(col glm B ln_modulate md5 | cut -c1-8) +NO$" "$T/floor.txt"
check "floor: the method is the CSV's ($(col glm B ln_modulate copy_floor_method))" \
	grep -Eq "^ln_modulate +[0-9.]+ +[0-9.]+ $(col glm B ln_modulate copy_floor_method) " "$T/floor.txt"
slots=$(csv glm | tail -n +2 | grep -c .)
check "floor: stop reasons count every slot ($slots)" \
	bash -c "grep '^stop reasons: ' '$T/floor.txt' | grep -Eo '[0-9]+ slots' | awk '{ n += \$1 } END { exit n != $slots }'"
check "floor: the span table, one row per case of the span runs" \
	test "$(sed -n '/^wall - kernel/,/^span-/p' "$T/floor.txt" | grep -Ec '^(ln_modulate|residual_gate_add) +-?[0-9.]+ +-?[0-9.]+$')" -eq 2

# ---- sites.sh: tables.py sites ---------------------------------------------
lib="$(dirname "$AB")/examples/plugin/libdeclared_plugin.so"
rga="$(dirname "$AB")/examples/plugin/librga_plugin.so"
declared() { # FILE B_ARM
	cat >"$1" <<EOF
[scenario]
name = declared
include = $root/scenarios/sites/modulate_scale_shift.ini
backend = cpu
min_samples = 10
max_samples = 10
max_time_ms = 60000
[arms]
a = mss_eager
b = $2
[arm mss_eager]
type = plugin
site = modulate_scale_shift
library = $lib
name = mss_eager
bytes = 2 * (2 * B * W + 4 * B * T * W + 2 * B * W)
[case mod]
site = modulate_scale_shift
shape = 2x32x256
[case mod_special]
site = modulate_scale_shift
shape = 1x16x512
input = special
EOF
}
declared "$T/exact.ini" "plugin:$lib:mss_fused"
declared "$T/inexact.ini" "plugin:$lib:mss_inexact"
sed "s|^b = .*|b = plugin:$rga:rga_inexact|; s|^a = .*|a = eager|; s|^include = .*||; s|^site = modulate_scale_shift|site = residual_gate_add|; s|^shape = 2x32x256|shape = 1x16x256|; s|^shape = 1x16x512|shape = 2x8x128|" \
	"$T/exact.ini" >"$T/rga.ini"
check "run sites-cubin" run sites-cubin "$T/exact.ini"
check "run sites-inexact" run sites-inexact "$T/inexact.ini"
check "run sites-rga" run sites-rga "$T/rga.ini"
rc=0
tab sites "$J" sites-cubin sites-inexact >"$T/sites.txt" 2>&1 || rc=$?
check "sites: exit 0 when each case is as expected" test "$rc" -eq 0
check "sites: four rows, each PASS" test "$(grep -c ' PASS (' "$T/sites.txt")" -eq 4
check "sites: the exact arm byte-equal, the inexact one not" \
	bash -c "grep -Eq '^sites-cubin +mod +mss_eager +mss_fused .* yes  PASS \(byte-equal expected\)$' '$T/sites.txt' &&
		grep -Eq '^sites-inexact +mod +mss_eager +mss_inexact .* NO  PASS \(not byte-equal expected\)$' '$T/sites.txt'"
gb=$(num 1 "$(col sites-cubin B mod arm_gbps)") pc=$(num 1 "$(col sites-cubin B mod arm_pct_copy)")
check "sites: B GB/s and % of copy are the CSV's ($gb GB/s, $pc%)" grep -Eq "^sites-cubin +mod .* $gb +$pc% +yes" "$T/sites.txt"
rc=0
tab sites "$J" sites-rga >"$T/sites2.txt" 2>&1 || rc=$?
check "sites: an arm not byte-equal that should be FAILs, exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -q ' NO  FAIL (byte-equal expected)$' '$T/sites2.txt'"

# ---- triton.sh: tables.py triton -------------------------------------------
tab triton "$J" sites-inexact sites-cubin >"$T/triton.txt" 2>&1
check "triton: a row per slot (2 runs x 2 cases x 3 slots)" test "$(grep -c '^sites-' "$T/triton.txt")" -eq 12
mm=$(col sites-inexact B mod mismatches)
check "triton: the inexact B's differing elements are the CSV's mismatches ($mm)" \
	grep -Eq "^sites-inexact +mod +B +mss_inexact .* NO +$mm/[0-9]+  plugin mss_inexact \(cpu\)$" "$T/triton.txt"
check "triton: the exact B byte-equal, 0 differing" grep -Eq "^sites-cubin +mod +B +mss_fused .* yes +0/[0-9]+  " "$T/triton.txt"

# ---- kernels.sh: tables.py kernels -----------------------------------------
check "run kernels-glm" run kernels-glm "$T/base.ini"
check "run tuning-glm" run tuning-glm "$T/base.ini"
check "run kernels-bad" run kernels-bad "$T/rga.ini"
rc=0
tab kernels "$J" kernels-glm tuning-glm >"$T/kernels.txt" 2>&1 || rc=$?
check "kernels: exit 0, every case's md5s agree" bash -c "[ $rc -eq 0 ] && grep -qx 'md5 agreement: every case' '$T/kernels.txt'"
check "kernels: an a and a b row per case" test "$(grep -Ec '^kernels-glm ' "$T/kernels.txt")" -eq $((2 * cases))
sp=$(col tuning-glm B ln_modulate speedup)
inv=$(num 3 "$("$READ" -c "print(1 / $sp)")")
check "kernels: B / A of a tuning run is 1 / the summary's speedup (CSV: $sp -> $inv)" \
	grep -Eq "^ +ln_modulate +B / A +$inv " "$T/kernels.txt"
check "kernels: the md5 column is the slots' md5 (CSV)" \
	grep -Eq "^kernels-glm +ln_modulate .* $(col kernels-glm A1 ln_modulate md5 | cut -c1-8)$" "$T/kernels.txt"
rc=0
tab kernels "$J" kernels-bad >"$T/kernels2.txt" 2>&1 || rc=$?
check "kernels: an arm not byte-equal is a case that DIFFERs, exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -qx 'md5 agreement: 2 case(s) DIFFER' '$T/kernels2.txt'"

# ---- sweeps.sh: tables.py sweep and stopping, abjson slots and verdicts -------
sed 's/^shape = 1x16x256$/shape = 1x{16,32}x256/' "$T/base.ini" >"$T/sweep.ini"
check "run gpu-sweep" run gpu-sweep "$T/sweep.ini"
tab sweep "$J" gpu-sweep >"$T/sweep.txt" 2>&1
n_swept=$(csv gpu-sweep | "$READ" -c 'import csv, sys; print(len({r["case"] for r in csv.DictReader(sys.stdin) if r["sweep"]}))')
check "sweep: a row per swept case ($n_swept)" test "$(grep -c . "$T/sweep.txt")" -eq "$n_swept"
name=$(csv gpu-sweep | "$READ" -c 'import csv, sys; print(next(r["case"] for r in csv.DictReader(sys.stdin) if r["sweep"]))')
sw=$(col gpu-sweep B "$name" sweep) ax=$(col gpu-sweep B "$name" axis) av=$(col gpu-sweep B "$name" axis_value)
gb=$(num 1 "$(col gpu-sweep B "$name" arm_gbps)") sp=$(num 3 "$(col gpu-sweep B "$name" speedup)")
check "sweep: $name as the CSV has it: $sw $ax=$av, ${sp}x, B $gb GB/s" \
	grep -Eq "^  $sw +$ax=$av +$sp""x \[[0-9.]+, [0-9.]+\] +B $gb GB/s \([0-9.]+%\)$" "$T/sweep.txt"
sed 's/^\[scenario\]$/[scenario]\nnoise_measure = mean/' "$T/base.ini" >"$T/mean.ini"
check "run glm-mean" run glm-mean "$T/mean.ini"
check "run glm-median" run glm-median "$T/base.ini"
tab stopping "$J" glm-mean glm-median >"$T/stopping.txt" 2>&1
check "stopping: a row per slot ($slots)" test "$(grep -c . "$T/stopping.txt")" -eq "$slots"
check "stopping: samples and medians as the CSV has them" \
	grep -Eq "^  ln_modulate +B +10 -> 10 +[a-z_]+ -> [a-z_]+ +$(num 3 "$("$READ" -c "print($(col glm-mean B ln_modulate median_ns) / 1e3)")") -> +$(num 3 "$("$READ" -c "print($(col glm-median B ln_modulate median_ns) / 1e3)")") us" "$T/stopping.txt"
capped=$(csv glm | "$READ" -c 'import csv, sys; r = list(csv.DictReader(sys.stdin)); print(len(r), sum(int(x["samples"]) for x in r), sum(x["stopping_reason"] == "max_samples" for x in r))')
check "abjson slots: slots, samples, capped as the CSV counts them ($capped)" test "$(abj slots "$J/glm.export.json")" = "$capped"
"$AB" compare glm glm-median --db "$db" >"$T/compare.md" 2>/dev/null
"$AB" compare glm glm-median --db "$db" --format json --out "$T/compare.json" 2>/dev/null
same=$(grep -Ec '\| no (significant difference|change beyond the floors)' "$T/compare.md")
check "abjson verdicts: '$same same, 0 differ' as compare's markdown says" test "$(abj verdicts "$T/compare.json")" = "$same same, 0 differ"
check "abjson verdicts V: the cases with those verdicts" test "$(abj verdicts "$T/compare.json" faster slower)" = 0
check "abjson get run.device_index" test "$(abj get "$J/glm.show.json" run.device_index)" = 0
check "abjson get run.device.uuid is show's device" test -n "$(abj get "$J/glm.show.json" run.device.uuid)"

# ---- python.sh, plugins.sh: abjson exact, kernels, md5s, longest, times, get --
check "abjson exact: the cases byte-equal as show's text counts them" \
	test "$(abj exact "$J/sites-cubin.show.json" yes) $(abj exact "$J/sites-inexact.show.json" no)" = \
	"$("$AB" show sites-cubin --db "$db" | grep -c '^  b byte-equal to a: yes$') $("$AB" show sites-inexact --db "$db" | grep -c '^  b byte-equal to a: NO$')"
check "abjson exact: 2 and 0" test "$(abj exact "$J/sites-inexact.show.json" no) $(abj exact "$J/sites-inexact.show.json" yes)" = "2 0"
check "abjson kernels: arm b's kernel (the plugin's one CPU step)" \
	test "$(abj kernels "$J/sites-inexact.export.json" b)" = "plugin mss_inexact (cpu)"
check "abjson kernels a: the eager arm's" test "$(abj kernels "$J/sites-inexact.export.json" a)" = "plugin mss_eager (cpu)"
check "abjson md5s B: the CSV's md5 of each case's B slot" \
	test "$(abj md5s "$J/sites-inexact.export.json" B)" = "$(col sites-inexact B mod md5) $(col sites-inexact B mod_special md5)"
longest=$(csv sites-cubin | "$READ" -c 'import csv, sys; print("%.0f" % max(float(r["max_ns"]) for r in csv.DictReader(sys.stdin) if r["arm"] == "b"))')
check "abjson longest b: the longest B sample, the CSV's max_ns ($longest)" test "$(abj longest "$J/sites-cubin.export.json" b)" = "$longest"
a1=$(num 2 "$("$READ" -c "print($(col sites-inexact A1 mod median_ns) / 1e3)")") b=$(num 2 "$("$READ" -c "print($(col sites-inexact B mod median_ns) / 1e3)")")
check "abjson times: A1 $a1 us, B $b us, not exact" \
	grep -Eq "^inexact +mod +A1 +$a1 us  B +$b us  B kernels +[0-9.]+ us  exact NO$" <<<"$(abj times "$J/sites-inexact.export.json" inexact)"
check "abjson get run.status" test "$(abj get "$J/glm.show.json" run.status)" = ok
check "abjson count cases" test "$(abj count "$J/glm.export.json" cases)" = "$cases"
check "abjson: a file that is not the document asked for is exit 2" \
	bash -c "! '$READ' '$root/scripts/gpu/abjson.py' exact '$J/glm.export.json' yes 2>'$T/e' && grep -q 'a abbench.export document, not abbench.show' '$T/e'"
py_scenario "$T/py.ini" eager "python:$PYDATA/rga_numpy.py:rga_exact"
check "run eager (a numpy arm, Debian's python3)" run eager "$T/py.ini"
src() { abj get "$J/eager.export.json" "run.arm_sources.0.$1"; }
check "export's arm_sources: the Python arm's side, name, kind and module" \
	test "$(src arm) $(src name) $(src kind) $(src path)" = "b rga_exact python $PYDATA/rga_numpy.py"
check "its sha256, the module's" test "$(src sha256)" = "$(sha256sum "$PYDATA/rga_numpy.py" | cut -d' ' -f1)"
check "its detail as show prints it" \
	bash -c "\"$AB\" show eager --db '$db' | grep -qF \"($(src detail))\""

# ---- reliab.sh, model.sh: list --format json ---------------------------------
check "run again" run again "$T/base.ini" --only ln_modulate --recheck
check "ab_json list" test "$(ab_json_ list - "$db")" = "$J/list.json"
check "list.json validates against docs/JSON.md" \
	"$READ" "$root/tests/tools/json_check.py" "$root/docs/JSON.md" abbench.list "$J/list.json"
"$AB" list --rechecks --db "$db" >"$T/list.txt" 2>/dev/null
check "abjson runs: id, status and label of each run, as list's text has them" \
	test "$(abj runs "$J/list.json" | awk -F'\t' '{ print $1, $2, $3 }')" = "$(tail -n +2 "$T/list.txt" | awk '{ print $1, $7, $4 }')"
check "abjson count runs: every run, the recheck too" test "$(abj count "$J/list.json" runs)" = "$(tail -n +2 "$T/list.txt" | grep -c .)"
check "the recheck is marked" test "$(abj get "$J/list.json" runs.0.recheck)" = true
check "abjson newest: the scenario's newest ok run ('again')" \
	test "$(abj newest "$J/list.json" smoke)" = "$(tail -n +2 "$T/list.txt" | awk '$3 == "smoke" { print $1; exit }')"
check "abjson newest: none for a scenario with no run" test -z "$(abj newest "$J/list.json" nothing)"
check "merge reads the file whole (reliab.sh's integrity check)" bash -c "\"$AB\" merge \"$T/m.db\" \"$db\" >/dev/null"
finish
