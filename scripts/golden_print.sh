#!/usr/bin/env bash
# golden_print.sh - every printer's output for fixed fake-timer runs, so that
# a change to print/ can be shown to print the same bytes (issue 32 item 6).
#
#   scripts/golden_print.sh capture DIR    write the outputs into DIR
#   scripts/golden_print.sh compare DIR    capture again, compare with DIR
#                                          file by file (exit 1 if any differs)
#
# Runs (ABBENCH_FAKE_TIMER=1, max_time_ms raised so that the fake timer alone
# decides sample counts): scenarios/smoke.ini twice, scenarios/glm_cpu.ini,
# tests/scenarios/golden_mixed.ini (ABABA, a sweep, a case not byte-equal),
# a smoke run with host times planted (tests/cli/plant_lib.sh's plant_host)
# and the planted divergences of plant_lib.sh (bf16: ulp1, sign, nan, rstd,
# nondet, rowvar, inv). Of each: run's closing table, show in every format,
# export in every format, the report directory (--no-plots: its markdown,
# chart data and gnuplot scripts; the PNGs are gnuplot's), diff of each case
# in every format; of the database: list (text, json), compare and gate of
# the two smoke runs (markdown, json), history, publish --no-plots (every
# file of the dashboard), a report of smoke --projected-by glm_cpu, six
# smoke runs with steps planted (t281's: history, compare, publish), and
# the figures command in every format and view.
#
# Stripped, by tests/tools/golden_norm.py: the runs' uuid, commit and driver,
# times of day and run dates, the host name, the slots' wall time, this
# script's temporary directory and the checkout's path. Nothing else.
# Needs build/abbench and build/tests/plugins/libdiv_plant.so (make check
# builds it); AB=path names another binary (an older build, to compare
# with: the planted arms' plugin is still this checkout's). About 2
# minutes on 2 cores.
set -u
mode=${1:-}
dir=${2:-}
if [ "$mode" != capture ] && [ "$mode" != compare ] || [ -z "$dir" ]; then
	echo "usage: scripts/golden_print.sh capture|compare DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
AB=$(cd "$ROOT" && realpath "${AB:-build/abbench}")
[ -x "$AB" ] || { echo "golden_print.sh: no binary at $AB (make first)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/golden_print.XXXXXX")
trap 'rm -rf "$T"' EXIT
export T ROOT AB ABBENCH_FAKE_TIMER=1 ABBENCH_LOCK_DIR="$T/locks"
. "$ROOT/tests/cli/plant_lib.sh"
# The planted arms from this checkout's build, whichever binary prints: the
# plugin's path (in the scenario's hash) and sha256 are in the outputs.
PLANT_LIB=$ROOT/build/tests/plugins/libdiv_plant.so
[ -f "$PLANT_LIB" ] || { echo "golden_print.sh: no $PLANT_LIB (make check builds it)" >&2; exit 2; }
OUT=$T/got
mkdir -p "$OUT" "$T/locks"
die() { echo "golden_print.sh: $*" >&2; exit 2; }

scenario_copy() { sed 's/^max_time_ms = .*/max_time_ms = 600000/' "$2" >"$T/$1.ini"; }

# name label [args]: a run of $T/name.ini into $T/name.db (label '': args
# has --resume)
run_of() {
	local name=$1 label=$2
	shift 2
	mkdir -p "$OUT/$name"
	[ -n "$label" ] && set -- --label "$label" "$@"
	(cd "$T" && "$AB" run "$name.ini" --backend cpu --no-progress --db "$T/$name.db" "$@") \
		>"$OUT/$name/run-${label:-resumed}.txt" 2>"$T/$name-$label.err" || die "$name: run $label: $(tail -1 "$T/$name-$label.err")"
}

# name run: every per-run output of run RUN of $T/name.db into $OUT/name
outputs_of() {
	local name=$1 run=$2 d="$OUT/$1" db="$T/$1.db" f c
	for f in text json csv benchmark; do
		"$AB" show "$run" --db "$db" --format $f >"$d/show.$f" || die "$name: show $f"
	done
	for f in csv json benchmark; do
		"$AB" export "$run" --db "$db" --format $f >"$d/export.$f" || die "$name: export $f"
	done
	"$AB" report "$run" --db "$db" --no-plots --out "$T/rep-$name" >/dev/null 2>&1 || die "$name: report"
	for f in "$T/rep-$name"/*; do cp "$f" "$d/report-$(basename "$f")"; done
	"$AB" export "$run" --db "$db" --format json >"$T/$name-export.json"
	for c in $(/usr/bin/python3 -c 'import json,sys; [print(c["name"]) for c in json.load(open(sys.argv[1]))["cases"]]' \
		"$T/$name-export.json"); do
		for f in text markdown json; do
			"$AB" diff "$run" "$c" --db "$db" --format $f >"$d/diff-$c.$f" 2>&1
			echo "exit $?" >>"$d/diff-$c.$f"
		done
	done
}

scenario_copy smoke "$ROOT/scenarios/smoke.ini"
scenario_copy glm_cpu "$ROOT/scenarios/glm_cpu.ini"
scenario_copy mixed "$ROOT/tests/scenarios/golden_mixed.ini"
scenario_copy host "$ROOT/scenarios/smoke.ini"
PLANT_DTYPES=bf16
plant_scenario "$T/plants.ini"

run_of smoke first
run_of smoke second
run_of glm_cpu first
run_of mixed first
run_of plants first
run_of host first
id=$(plant_host "$T/host.db" first ln_modulate) || die "host: plant"
run_of host "" --resume "$id"

for name in smoke glm_cpu mixed plants host; do
	outputs_of "$name" 1
done

# Of the smoke database: list, compare, gate, history, publish.
d=$OUT/smoke db=$T/smoke.db
"$AB" list --db "$db" >"$d/list.txt" && "$AB" list --db "$db" --format json >"$d/list.json" || die list
"$AB" compare 1 2 --db "$db" >"$d/compare.md" && "$AB" compare 1 2 --db "$db" --format json >"$d/compare.json" ||
	die compare
"$AB" gate 2 --baseline 1 --db "$db" >"$d/gate.md" 2>&1
echo "exit $?" >>"$d/gate.md"
"$AB" gate 2 --baseline 1 --db "$db" --format json >"$d/gate.json" 2>/dev/null
echo "exit $?" >>"$d/gate.json"
"$AB" report 1 2 --db "$db" --no-plots --out "$T/rep-two" >/dev/null 2>&1 || die "two-run report"
for f in "$T/rep-two"/*; do cp "$f" "$d/report-two-$(basename "$f")"; done
"$AB" history --db "$db" >"$d/history.txt" || die history
"$AB" history --db "$db" --out "$T/hist" --no-plots >/dev/null 2>&1 || die "history --out"
for f in "$T/hist"/*; do cp "$f" "$d/history-$(basename "$f")"; done
"$AB" publish "$T/pub" --db "$db" --no-plots >/dev/null 2>&1 || die publish
(cd "$T/pub" && find . -type f ! -name '*.png' | sort) | while read -r f; do
	cp "$T/pub/$f" "$d/publish-$(echo "${f#./}" | tr / _)"
done
# A projection (report --projected-by): glm_cpu's site cases (20 samples a
# slot in 2 rounds, as t305) project the saving smoke's cases measured.
mkdir -p "$OUT/projection" "$T/proj"
sed -e 's/^max_samples = .*/max_samples = 20/' -e 's/^rounds = .*/rounds = 2/' "$T/glm_cpu.ini" >"$T/proj/glm_cpu.ini"
(cd "$T/proj" && "$AB" run glm_cpu.ini --backend cpu --no-progress --db "$T/proj.db" && "$AB" run "$T/smoke.ini" \
	--backend cpu --no-progress --db "$T/proj.db") >/dev/null 2>&1 || die "projection runs"
"$AB" report 2 --projected-by glm_cpu --db "$T/proj.db" --no-plots --out "$T/rep-proj" >/dev/null 2>&1 || die "projection report"
cp "$T/rep-proj/report.md" "$OUT/projection/report.md"
for r in 1 2; do "$AB" export $r --db "$T/proj.db" --format json >"$T/proj-$r-export.json"; done
# Steps (as t281): six smoke runs, dated and given commits, ln_modulate's B
# 25% slower from run 4 on, ln_continuous's 12% faster in run 6: history's
# steps and outliers, the dashboard's step lists and steps.html.
mkdir -p "$OUT/steps"
db=$T/steps.db
for i in 1 2 3 4 5 6; do
	(cd "$T" && "$AB" run smoke.ini --backend cpu --no-progress --label "n-$i" --db "$db") >/dev/null 2>&1 || die "steps run $i"
done
sqlite3 "$db" "UPDATE runs SET started_at = printf('2026-11-%02dT02:00:00Z', id), git_commit = printf('c%011d', id * 7919);
UPDATE samples SET wall_ns = wall_ns * 1.25 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id >= 4 AND s.arm = 'b' AND c.name = 'ln_modulate');
UPDATE samples SET wall_ns = wall_ns * 0.88 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	WHERE c.run_id = 6 AND s.arm = 'b' AND c.name = 'ln_continuous');" || die "steps: plant"
"$AB" history --db "$db" >"$OUT/steps/history.txt" || die "steps: history"
"$AB" compare 3 4 --db "$db" >"$OUT/steps/compare.md" || die "steps: compare"
"$AB" publish "$T/steps-pub" --db "$db" --no-plots --commit-url 'https://example.org/c/{commit}' >/dev/null 2>&1 ||
	die "steps: publish"
(cd "$T/steps-pub" && find . -type f ! -name '*.png' | sort) | while read -r f; do
	cp "$T/steps-pub/$f" "$OUT/steps/publish-$(echo "${f#./}" | tr / _)"
done
mkdir -p "$OUT/figures"
for f in text markdown json; do
	"$AB" figures --format $f >"$OUT/figures/all.$f" || die "figures $f"
	for v in csv json show run report bandwidth sweeps accuracy; do
		"$AB" figures --format $f --view $v >"$OUT/figures/$v.$f" || die "figures $f $v"
	done
done

exports=$(ls "$T"/*-export.json | paste -sd,)
"$AB" export 2 --db "$T/smoke.db" --format json >"$T/smoke2.json" && exports="$exports,$T/smoke2.json"
find "$OUT" -type f ! -name '*.png' -print0 | xargs -0 /usr/bin/python3 "$ROOT/tests/tools/golden_norm.py" "$exports" ||
	die normalise
# What golden_norm.py leaves, printed by history and publish only: the
# commit's first 7 digits (with -dirty when built from a changed tree; the
# spaces that pad a column after it folded to one), the slots' wall time in
# the dashboard's HTML reports, and times of day to the minute ("2026-12-06 09:10", "12-06 09:09").
find "$OUT" -type f ! -name '*.png' -print0 | xargs -0 /usr/bin/python3 -c '
import json, re, sys
shorts = set()
for p in sys.argv[1].split(","):
    c = json.load(open(p))["run"].get("git_commit") or ""
    if re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?", c):
        shorts.add(c[:7])
pats = [(re.compile(re.escape(c) + r"[0-9a-f]*(-dirty)?"), "<commit>") for c in shorts]
pats += [(re.compile(r"<commit> +"), "<commit> ")]
pats += [(re.compile(r"(<td>[a-z_]+</td>\n<td align=\"right\">)\d+\.\d{3}(</td>\n<td align=\"right\">\d+\.\d\d%</td>)"),
          r"\g<1>0.000\g<2>")]  # the slot wall time of the Sampling table in the HTML reports  # a column padded to the commit, with -dirty or without
pats += [(re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d\b"), "<time>"), (re.compile(r"\"\d\d-\d\d \d\d:\d\d\""), "\"<time>\"")]
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8", newline="").read()
    for r, to in pats:
        text = r.sub(to, text)
    open(path, "w", encoding="utf-8", newline="").write(text)
' "$exports" || die "normalise history and publish"
find "$OUT" -name '*.png' -delete

if [ "$mode" = capture ]; then
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -r "$OUT" "$dir"
	echo "captured $(find "$dir" -type f | wc -l) files into $dir"
	exit 0
fi
same=0 differ=0
while read -r f; do
	if [ ! -e "$OUT/$f" ]; then
		echo "missing now: $f"; differ=$((differ + 1))
	elif cmp -s "$dir/$f" "$OUT/$f"; then
		same=$((same + 1))
	else
		echo "differs: $f"; diff -u "$dir/$f" "$OUT/$f" | head -20 | sed 's/^/    /'; differ=$((differ + 1))
	fi
done < <(cd "$dir" && find . -type f | sort)
while read -r f; do
	[ -e "$dir/$f" ] || { echo "new now: $f"; differ=$((differ + 1)); }
done < <(cd "$OUT" && find . -type f | sort)
printf '%-10s %s\n' files "$((same + differ))" identical "$same" different "$differ"
[ "$differ" = 0 ]
