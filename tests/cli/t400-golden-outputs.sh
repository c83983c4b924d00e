#!/usr/bin/env bash
# Golden outputs: every printer that prints per-case figures, byte for byte,
# for fake-timer runs of scenarios/smoke.ini and scenarios/glm_cpu.ini:
# show (text, json, csv, benchmark), export (csv, json, benchmark), report.md
# (plots off, and on when gnuplot is here), run's closing table, and for two
# smoke runs a two-run report, compare (markdown, json) and gate (markdown,
# json). Two more runs reach the branches those do not:
# tests/scenarios/golden_mixed.ini (ABABA, a sweep, a case with arms of its
# own that is not byte-equal, affine) and a run of 100 small cases of 8
# samples (too few for an interval; a report past its budget, so compact
# sections and report-full.md), and host: a smoke run with host times a
# call planted as the CUDA backend stores them (plant_lib.sh's plant_host:
# ln_modulate's B launch-bound), its last case measured again by --resume
# (the closing table of the whole run), for the columns of host time and
# the launch-bound mark that the CPU's own runs leave out.
#
# Goldens are in tests/data/golden/NAME/; tests/tools/golden_norm.py
# replaces only what differs from run to run (times, uuid, host, commit,
# paths, the slots' host wall time). The scenarios' max_time_ms is raised
# so that the fake timer alone decides every slot's sample count (their
# real-clock limit would cut slots at a load-dependent count).
#
# A deliberate change of output regenerates the goldens in a commit of its
# own that says what changed:
#   ABBENCH_GOLDEN_UPDATE=1 bash tests/cli/t400-golden-outputs.sh build/abbench
# (About 30 s: glm_cpu's cases compute at their real shapes, in 12 rounds.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plant_lib.sh"
ROOT=$PWD
GOLD="$ROOT/tests/data/golden"
export T ROOT AB ABBENCH_FAKE_TIMER=1
have_plots=0
command -v gnuplot >/dev/null 2>&1 && have_plots=1

# name file: a copy of the scenario in $T with max_time_ms raised
scenario_copy() {
	sed 's/^max_time_ms = .*/max_time_ms = 600000/' "$2" >"$T/$1.ini"
}

big_scenario() { # 100 small cases, 8 samples a slot (as t194's, fewer samples)
	python3 - "$T/big.ini" <<'PY'
import sys
sites = [("ln_modulate", "1x{t}x256"), ("ln_continuous", "1x{t}x256"), ("qk_layernorm", "1x{t}x4x128"),
         ("residual_gate_add", "1x{t}x256")]
with open(sys.argv[1], "w") as out:
    out.write("[scenario]\nname = big100\nbackend = cpu\nbracket = ABA\nseed = 7\nwarmup = 1\n"
              "min_samples = 8\nmax_samples = 8\nmin_time_ms = 1\nmax_time_ms = 600000\n"
              "target_noise = 0.005\n\n[arms]\na = eager\nb = fused\n\n[model]\nsteps = 30\nforwards_per_step = 2\n")
    for i in range(100):
        site, shape = sites[i % 4]
        out.write(f"\n[case {site}_t{i + 1:03d}]\nsite = {site}\nshape = {shape.format(t=1 + i % 8)}\ncount = {1 + i % 3}\n")
PY
}

# name label: a fake-timer run of $T/name.ini into $T/name.db; its closing
# table in $T/got/name/run.txt (the first run's)
run_of() {
	local name=$1 label=$2 out=/dev/null
	[ "$label" = first ] && out="$T/got/$name/run.txt"
	mkdir -p "$T/got/$name"
	(cd "$T" && "$AB" run "$name.ini" --backend cpu --label "$label" --no-progress --db "$T/$name.db") \
		>"$out" 2>"$T/$name-$label.err" || fail "$name: run $label"
}

# name what...: outputs of run 1 of $T/name.db into $T/got/name
outputs_of() {
	local name=$1 dir="$T/got/$1" db="$T/$1.db" w
	shift
	for w in "$@"; do
		case $w in
		show) "$AB" show 1 --db "$db" >"$dir/show.txt" ;;
		show-json) "$AB" show 1 --db "$db" --format json >"$dir/show.json" ;;
		show-csv) "$AB" show 1 --db "$db" --format csv >"$dir/show.csv" ;;
		show-benchmark) "$AB" show 1 --db "$db" --format benchmark >"$dir/show-benchmark.json" ;;
		export-csv) "$AB" export 1 --db "$db" --format csv >"$dir/export.csv" ;;
		export-json) "$AB" export 1 --db "$db" --format json >"$dir/export.json" ;;
		export-benchmark) "$AB" export 1 --db "$db" --format benchmark >"$dir/export-benchmark.json" ;;
		report)
			"$AB" report 1 --db "$db" --no-plots --out "$T/rep-$name" >/dev/null 2>&1 &&
				cp "$T/rep-$name/report.md" "$dir/report.md" &&
				{ [ ! -e "$T/rep-$name/report-full.md" ] || cp "$T/rep-$name/report-full.md" "$dir/report-full.md"; } ;;
		report-plots)
			[ "$have_plots" = 0 ] || { "$AB" report 1 --db "$db" --out "$T/plots-$name" >/dev/null 2>&1 &&
				cp "$T/plots-$name/report.md" "$dir/report-plots.md"; } ;;
		esac || fail "$name: $w"
	done
	"$AB" export 1 --db "$db" --format json >"$T/$name-1.json" || fail "$name: export for the normaliser"
}

ALL="show show-json show-csv show-benchmark export-csv export-json export-benchmark report report-plots"
# Under the sanitizer build (make sanitize runs this file on build-san)
# glm_cpu's cases, computed at their real shapes in 12 rounds, take minutes
# of make test's ten; the printers it reaches run there on the other runs,
# and the plain suite compares glm_cpu's bytes.
names="smoke glm_cpu mixed big host"
if grep -q __asan_init "$AB"; then
	names="smoke mixed big host"
	ok "glm_cpu: compared in the plain suite (this abbench is the sanitizer build)"
fi
want() { case " $names " in *" $1 "*) return 0 ;; esac; return 1; }
scenario_copy smoke scenarios/smoke.ini
want glm_cpu && scenario_copy glm_cpu scenarios/glm_cpu.ini
scenario_copy mixed tests/scenarios/golden_mixed.ini
big_scenario
for name in smoke glm_cpu mixed big; do
	want "$name" && run_of "$name" first
done
outputs_of smoke $ALL
want glm_cpu && outputs_of glm_cpu $ALL
outputs_of mixed show show-json show-csv report
outputs_of big report

# Host times planted, the last case measured again: its closing table.
scenario_copy host scenarios/smoke.ini
run_of host first
id=$(plant_host "$T/host.db" first ln_modulate) || fail "host: plant"
(cd "$T" && "$AB" run host.ini --resume "$id" --backend cpu --no-progress --db "$T/host.db") \
	>"$T/got/host/run.txt" 2>"$T/host-resume.err" || fail "host: resume"
outputs_of host show show-json show-csv report

# Two smoke runs: a report of both, compare and gate.
d="$T/got/smoke"
run_of smoke second
"$AB" export 2 --db "$T/smoke.db" --format json >"$T/smoke-2.json"
"$AB" report 1 2 --db "$T/smoke.db" --no-plots --out "$T/rep-two" >/dev/null 2>&1 || fail "two-run report"
cp "$T/rep-two/report.md" "$d/report-two.md"
"$AB" compare 1 2 --db "$T/smoke.db" >"$d/compare.md" || fail "compare"
"$AB" compare 1 2 --db "$T/smoke.db" --format json >"$d/compare.json" || fail "compare json"
st=0
"$AB" gate 2 --baseline 1 --db "$T/smoke.db" >"$d/gate.md" 2>/dev/null || st=$?
"$AB" gate 2 --baseline 1 --db "$T/smoke.db" --format json >"$d/gate.json" 2>/dev/null || true
echo "exit $st" >>"$d/gate.md"

for name in $names; do
	ex="$T/$name-1.json"
	[ "$name" = smoke ] && ex="$ex,$T/smoke-2.json"
	python3 tests/tools/golden_norm.py "$ex" "$T"/got/"$name"/* || fail "$name: normalise"
done

if [ "${ABBENCH_GOLDEN_UPDATE:-0}" = 1 ]; then
	for name in $names; do
		mkdir -p "$GOLD/$name"
		rm -f "$GOLD/$name"/*
		cp "$T/got/$name"/* "$GOLD/$name/"
	done
	ok "goldens written to tests/data/golden ($(ls "$GOLD"/*/* | wc -l) files)"
	finish
fi

n_same=0
for name in $names; do
	for g in "$GOLD/$name"/*; do
		f=$(basename "$g")
		if [ "$f" = report-plots.md ] && [ "$have_plots" = 0 ]; then
			ok "$name/$f: skipped (no gnuplot)"
		elif cmp -s "$g" "$T/got/$name/$f"; then
			n_same=$((n_same + 1))
		else
			fail "$name/$f differs from its golden"
			diff -u "$g" "$T/got/$name/$f" | head -40 | sed 's/^/    /'
		fi
	done
	for f in "$T/got/$name"/*; do
		[ -e "$GOLD/$name/$(basename "$f")" ] || fail "$name/$(basename "$f"): no golden"
	done
done
ok "$n_same outputs byte for byte as their goldens"
finish
