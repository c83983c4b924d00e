#!/usr/bin/env bash
# aa_check.sh - how sharp is the gate on this machine? Counts, in one run,
# its false alarms (A/A pairs: the same build and scenario measured twice,
# the second run gated against the first) and its detections (planted
# pairs: an exact residual_gate_add arm against the same arm reading P%
# more bytes, examples/plugin/rga_plant.c), each pair gated at every
# threshold asked for, and prints one table of both.
# A benchmark of the gate on real timing, not a test: it unsets
# ABBENCH_FAKE_TIMER unless --fake-timer asks for the CPU backend's
# deterministic cost model (under which a plant costs nothing: that only
# checks the machinery).
#
#   scripts/aa_check.sh [OPTIONS] [-- RUN OPTIONS...]
#   scripts/aa_check.sh --table RESULTS...
#
#   -n, --pairs N           A/A pairs of --scenario (default 5; 0 with --plants: plants only)
#   -s, --scenario FILE     the A/A scenario (default scenarios/smoke.ini)
#   -b, --backend B         auto, cpu or cuda (default auto)
#   --plants LIST           plant sizes in percent, e.g. 2,3,5 (the plugin's arms plantP:
#                           0-10, 15, 20, 30); default none: A/A pairs only
#   --plant-pairs M         planted pairs of each size (default: as many as --pairs)
#   --plant-scenario FILE   whose residual_gate_add cases get the plants (default
#                           examples/plugin/rga_plant.ini); its other cases and
#                           arms are left out, a = eager, b = plant0 or plantP
#   --thresholds LIST       --max-regression values to gate every pair at, in
#                           percent, e.g. 2,3,5 (default: the device profile's)
#   --time-limit S          start no round that would end past S seconds (judged by
#                           the last round's length); the table covers the rounds done
#   --out DIR               keep the results there: DIR/results.tsv (appended to, so
#                           calls add up), DIR/table.md, DIR/alarm-*.md per false alarm
#   --fake-timer            measure with ABBENCH_FAKE_TIMER=1 (tests of this script)
#   --table RESULTS...      print the table of results.tsv files (or DIRs holding
#                           one) and exit: several calls' results in one table
#   -h, --help              this text
#   RUN OPTIONS             passed to every `abbench run` (e.g. --quick, --only CASE)
#
# A round is, for round i: each plant's pair (the scenario with b = plant0,
# then with b = plantP for each P, each gated against that plant0 run), then
# A/A pair i; rounds go on until --pairs and --plant-pairs are both done.
# e.g. on the H200 (scripts/gpu/aa.sh runs it within a session's limit):
#   scripts/aa_check.sh --pairs 20 --scenario scenarios/glm_1024.ini --plants 2,3,5 --thresholds 2,3,5
#
# Environment: ABBENCH (the binary, default build/abbench beside this
# script), ABBENCH_PLANT_LIB (the plugin, default
# examples/plugin/librga_plant.so beside the binary).
# The runs go to a temporary database, removed at the end. Needs python3
# (the gate's JSON and the table).
# Prints a header naming the scenario, backend and device, one line per
# pair (a false alarm's failing cases under it), then the table (markdown):
# per kind of pair, the pairs, how many the gate failed at each threshold
# (false alarms for A/A, detections for plants; inconclusive ones counted
# beside them) and the judged B/A change over all cases (median, range),
# and last the smallest threshold with no false alarm and what it detects.
# Exit 0 when some threshold had no false alarm (or no A/A pair was
# measured) and every pair stayed bit-exact, 1 otherwise, 2 for bad
# options, else the status of the run or gate that could not be done.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
AB=${ABBENCH:-$root/build/abbench}

usage() {
	echo "usage: scripts/aa_check.sh [-n N] [-s SCENARIO] [-b BACKEND] [--plants LIST] [--thresholds LIST] [...] [-- RUN OPTIONS...]" >&2
	echo "       scripts/aa_check.sh --table RESULTS...   (--help: every option)" >&2
	exit 2
}
help() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { # STATUS MESSAGE
	echo "aa_check: $2" >&2
	exit "$1"
}
is_count() { case "$1" in '' | *[!0-9]*) return 1 ;; esac; }
is_pct() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! $1 =~ ^0+(\.0+)?$ ]]; }

# The table of results files: one markdown row per kind of pair, then the
# smallest threshold without a false alarm. Exit 1 when there is none (A/A
# pairs measured) or a pair lost bit-exactness.
print_table() {
	python3 - "$@" <<'PY'
import statistics, sys
from collections import OrderedDict

recs = []
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        recs += [line.rstrip("\n").split("\t") for line in f if line.strip()]
devices = OrderedDict((tuple(r[2:4]), r[4] == "1") for r in recs if r[0] == "device")
rows = OrderedDict()  # (kind, size, scenario) -> {pairs, verdicts, changes}
for r in recs:
    if r[0] not in ("verdict", "change", "lost"):
        continue
    key = (r[2], float(r[3]), r[1])
    row = rows.setdefault(key, {"pairs": set(), "verdicts": {}, "changes": [], "lost": 0})
    row["pairs"].add(r[4])
    if r[0] == "verdict":
        row["verdicts"][(r[4], float(r[5]))] = int(r[6])
    elif r[0] == "change" and r[6] != "nan":
        row["changes"].append(float(r[6]))
    elif r[0] == "lost":
        row["lost"] += 1
if not rows:
    print("aa_check: no results in " + ", ".join(sys.argv[1:]), file=sys.stderr)
    sys.exit(2)
thresholds = sorted({t for row in rows.values() for (_, t) in row["verdicts"]})
order = sorted(rows, key=lambda k: (k[0] != "aa", k[1], list(rows).index(k)))

def pct(x):
    return ("%+.2f%%" % x).replace("+-", "-")

def thr(t):
    return "%g%%" % t

for (backend, device), fake in devices.items():
    print("device: %s on backend %s%s" % (device, backend, " (fake timer: a plant costs nothing under it)" if fake else ""))
print()
print("| pairs of | pairs | " + " | ".join("failed at " + thr(t) for t in thresholds) + " | B/A change: median [min, max] (cases) |")
print("|---|---:|" + "---:|" * len(thresholds) + "---|")
for key in order:
    kind, size, scn = key
    row = rows[key]
    label = ("A/A `%s` (false alarms)" % scn) if kind == "aa" else ("+%g%% plant, `%s` (detections)" % (size, scn))
    cells = []
    for t in thresholds:
        codes = [c for (p, tt), c in row["verdicts"].items() if tt == t]
        cell = str(codes.count(1))
        if codes.count(4):
            cell += " (+%d inconclusive)" % codes.count(4)
        cells.append(cell if codes else "-")
    ch = row["changes"]
    change = "%s [%s, %s] (%d)" % (pct(statistics.median(ch)), pct(min(ch)), pct(max(ch)), len(ch)) if ch else "n/a"
    print("| %s | %d | %s | %s |" % (label, len(row["pairs"]), " | ".join(cells), change))
print()
status = 0
for key in order:
    if rows[key]["lost"]:
        print("%d case(s) of %s pairs at +%g%% lost bit-exactness or went missing: not a measurement of time"
              % (rows[key]["lost"], key[2], key[1]))
        status = 1
aa = [k for k in order if k[0] == "aa"]
if aa:
    n = sum(len(rows[k]["pairs"]) for k in aa)
    names = ", ".join(k[2] for k in aa)
    def alarms(t):
        return sum(1 for k in aa for (p, tt), c in rows[k]["verdicts"].items() if tt == t and c == 1)
    clean = [t for t in thresholds if alarms(t) == 0]
    if clean:
        t = clean[0]
        found = []
        for k in order:
            if k[0] == "plant":
                codes = [c for (p, tt), c in rows[k]["verdicts"].items() if tt == t]
                found.append("+%g%%: %d of %d" % (k[1], codes.count(1), len(codes)))
        print("smallest threshold with no false alarm in %d A/A pairs (%s): %s%s"
              % (n, names, thr(t), " (detections there: " + ", ".join(found) + ")" if found else ""))
    else:
        t = min(thresholds, key=alarms)
        print("every threshold false-alarmed in %d A/A pairs (%s): the fewest, %d, at %s" % (n, names, alarms(t), thr(t)))
        status = 1
sys.exit(status)
PY
}

if [ "${1:-}" = --table ]; then
	shift
	[ $# -ge 1 ] || usage
	files=()
	for f in "$@"; do
		[ -d "$f" ] && f=$f/results.tsv
		[ -f "$f" ] || die 2 "no results file '$f'"
		files+=("$f")
	done
	print_table "${files[@]}"
	exit $?
fi

pairs=5 scenario=$root/scenarios/smoke.ini backend=auto plant_scenario=$root/examples/plugin/rga_plant.ini
plants="" plant_pairs="" thresholds_arg="" time_limit="" out="" fake=0
while [ $# -gt 0 ]; do
	opt=$1
	case "$opt" in
	--) shift && break ;;
	-h | --help) help && exit 0 ;;
	--fake-timer) fake=1 && shift && continue ;;
	-n | --pairs | -s | --scenario | -b | --backend | --plants | --plant-pairs | --plant-scenario | --thresholds | --time-limit | --out)
		[ $# -ge 2 ] || { echo "aa_check: $opt wants a value" >&2 && usage; } ;;
	*) echo "aa_check: unknown option '$opt' (run options go after --)" >&2 && usage ;;
	esac
	val=$2
	shift 2
	case "$opt" in
	-n | --pairs) pairs=$val ;;
	-s | --scenario) scenario=$val ;;
	-b | --backend) backend=$val ;;
	--plants) plants=$val ;;
	--plant-pairs) plant_pairs=$val ;;
	--plant-scenario) plant_scenario=$val ;;
	--thresholds) thresholds_arg=$val ;;
	--time-limit) time_limit=$val ;;
	--out) out=$val ;;
	esac
done
run_opts=("$@")

IFS=, read -r -a plant_list <<<"$plants"
IFS=, read -r -a thresholds <<<"$thresholds_arg"
is_count "$pairs" || { echo "aa_check: --pairs wants a count of pairs, not '$pairs'" >&2 && usage; }
[ "$pairs" -gt 0 ] || [ ${#plant_list[@]} -gt 0 ] || { echo "aa_check: --pairs 0 measures nothing without --plants" >&2 && usage; }
for p in "${plant_list[@]}"; do
	if ! is_count "$p" || [ "$p" -eq 0 ]; then
		echo "aa_check: --plants wants sizes in whole percent, e.g. 2,3,5, not '$plants'" >&2 && usage
	fi
done
[ -n "$plant_pairs" ] || plant_pairs=$pairs
if ! is_count "$plant_pairs" || { [ "$plant_pairs" -eq 0 ] && [ ${#plant_list[@]} -gt 0 ]; }; then
	echo "aa_check: --plant-pairs wants a count of pairs, not '$plant_pairs'" >&2 && usage
fi
for t in "${thresholds[@]}"; do
	is_pct "$t" || { echo "aa_check: --thresholds wants percentages, e.g. 2,3,5, not '$thresholds_arg'" >&2 && usage; }
done
[ -z "$time_limit" ] || { is_count "$time_limit" && [ "$time_limit" -gt 0 ]; } ||
	{ echo "aa_check: --time-limit wants seconds, not '$time_limit'" >&2 && usage; }
backends='^(auto|cpu|cuda)$'
if ! [[ $backend =~ $backends ]]; then
	echo "aa_check: --backend is auto, cpu or cuda, not '$backend'" >&2 && usage
fi
[ "$pairs" -eq 0 ] || [ -f "$scenario" ] || die 2 "no scenario file '$scenario'"
[ ${#plant_list[@]} -eq 0 ] || [ -f "$plant_scenario" ] || die 2 "no plant scenario file '$plant_scenario'"
command -v python3 >/dev/null || die 2 "needs python3 on PATH (the gate's JSON, the table)"

tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
export ABBENCH_DB="$tmp/aa.db"
if [ "$fake" -eq 1 ]; then export ABBENCH_FAKE_TIMER=1; else unset ABBENCH_FAKE_TIMER; fi
if [ -n "$out" ]; then
	mkdir -p "$out" || die 3 "cannot make '$out'"
	results=$out/results.tsv
else
	results=$tmp/results.tsv
fi
touch "$results" || die 3 "cannot write '$results'"
# Pairs are numbered per call: results of several calls add up in --table.
call=$(date -u +%Y%m%dT%H%M%S)-$$
scn_name=$(basename "$scenario" .ini)
plant_name=$(basename "$plant_scenario" .ini)

# The plant scenario for arm plantP: the residual_gate_add cases of
# --plant-scenario (its other cases, [arms] and [arm NAME] sections left
# out), a = eager, b = the plugin's plantP by absolute path.
lib=${ABBENCH_PLANT_LIB:-$(cd "$(dirname "$AB")" 2>/dev/null && pwd)/examples/plugin/librga_plant.so}
case "$lib" in /*) ;; *) lib=$PWD/$lib ;; esac
plant_ini() { # SIZE
	awk -v b="plugin:$lib:plant$1" '
		function flush() { if (kind == "keep" || (kind == "case" && rga)) { printf "%s", buf; kept += kind == "case" } buf = "" }
		/^[ \t]*\[/ {
			flush()
			name = $0; sub(/^[ \t]*\[[ \t]*/, "", name); sub(/[ \t]*\].*$/, "", name)
			kind = name ~ /^case[ \t]/ ? "case" : (name == "arms" || name ~ /^arm[ \t]/) ? "drop" : "keep"
			rga = 0
		}
		kind == "case" && /^[ \t]*site[ \t]*=/ { v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t]*[;#].*$/, "", v); rga = v == "residual_gate_add" }
		{ buf = buf $0 "\n" }
		END { flush(); printf "\n[arms]\na = eager\nb = %s\n", b; exit kept == 0 }
	' kind=keep "$plant_scenario" >"$tmp/plant$1.ini" || die 2 "'$plant_scenario' has no residual_gate_add case to plant into"
}
if [ ${#plant_list[@]} -gt 0 ]; then
	[ -f "$lib" ] || die 2 "no plugin '$lib' (make builds it)"
	plant_ini 0
	for p in "${plant_list[@]}"; do plant_ini "$p"; done
fi

# Runs one side of a pair; exits the script with its status when it fails.
header_done=0
measure() { # LABEL SCENARIO
	local rc=0
	"$AB" run "$2" --backend "$backend" --label "$1" --no-progress ${run_opts[@]+"${run_opts[@]}"} >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$tmp/err" >&2
		die "$rc" "run '$1' failed (exit $rc)"
	fi
	[ "$header_done" -eq 0 ] || return 0
	header_done=1
	device=$("$AB" show "$1" | sed -n 's/^backend [^ ]*  device //p' | sed 's/  copy .*//')
	printf 'device\t%s\t%s\t%s\t%s\n' "$(basename "$2" .ini)" "$backend" "$device" "$fake" >>"$results"
	local what=()
	[ "$pairs" -eq 0 ] || what+=("$pairs A/A pairs of $(basename "$scenario")")
	[ ${#plant_list[@]} -eq 0 ] || what+=("$plant_pairs planted pairs of +${plants//,/%, +}% into $(basename "$plant_scenario")")
	echo "aa_check: $(printf '%s, ' "${what[@]}" | sed 's/, $//') on backend $backend, device $device"
}

# The gates' JSON files as lines, each led by the file's place K (0, 1,
# ...): "K rule PCT", then per case "K case NAME VERDICT CHANGE% P LOST"
# (LOST 1: lost bit-exactness or missing), tab-separated. One python for
# all the thresholds of a pair: its start costs more than a gate.
gate_rows() { # FILE...
	python3 - "$@" <<'PY'
import json, sys
for k, path in enumerate(sys.argv[1:]):
    d = json.load(open(path, encoding="utf-8"))
    print("%d\trule\t%g" % (k, d["rule"]["max_regression_pct"]))
    for c in d["cases"]:
        change = "nan" if c["change"] is None else "%.4f" % (100 * c["change"])
        p = "nan" if c["p_value"] is None else "%.2g" % c["p_value"]
        lost = c["lost_exact"] or c["verdict"] == "missing"
        print("%d\tcase\t%s\t%s\t%s\t%s\t%d" % (k, c["name"], c["verdict"], change, p, lost))
PY
}

word() { case "$1" in 0) echo pass ;; 1) echo FAIL ;; *) echo inconclusive ;; esac; }

# Gates RUN against BASE at every threshold; records the verdicts, the
# cases' B/A changes (once) and prints the pair's line.
gate_pair() { # KIND SIZE PAIR RUN BASE SCENARIO-NAME
	local kind=$1 size=$2 pair=$3 run=$4 base=$5 scn=$6 t k=0 line="" detail="" range
	local -a opt codes=() files=() ts=("${thresholds[@]:-profile}")
	for t in "${ts[@]}"; do
		opt=()
		[ "$t" = profile ] || opt=(--max-regression "$t")
		codes[k]=0
		"$AB" gate "$run" --baseline "$base" "${opt[@]}" --json --out "$tmp/gate-$k.json" 2>"$tmp/err" || codes[k]=$?
		if ! [[ ${codes[k]} =~ ^[014]$ ]]; then
			cat "$tmp/err" >&2
			die "${codes[k]}" "gate of $run against $base failed (exit ${codes[k]})"
		fi
		files+=("$tmp/gate-$k.json")
		k=$((k + 1))
	done
	gate_rows "${files[@]}" >"$tmp/rows" || die 3 "cannot read the gate's JSON"
	local rec="$scn\t$kind\t$size\t$call/$pair"
	awk -F'\t' -v pre="change\t$rec" '$1 == 0 && $2 == "case" { print pre "\t" $3 "\t" $5 }' "$tmp/rows" >>"$results"
	awk -F'\t' -v pre="lost\t$rec" '$1 == 0 && $2 == "case" && $7 == 1 { print pre "\t" $3 }' "$tmp/rows" >>"$results"
	for k in "${!ts[@]}"; do
		t=${ts[k]}
		[ "$t" != profile ] || t=$(awk -F'\t' -v k="$k" '$1 == k && $2 == "rule" { print $3 }' "$tmp/rows")
		printf "verdict\t$rec\t%s\t%s\n" "$t" "${codes[k]}" >>"$results"
		line+="${line:+, }$t%: $(word "${codes[k]}")"
		if [ "${codes[k]}" -ne 1 ] || [ "$kind" != aa ]; then
			continue
		fi
		detail+=$(awk -F'\t' -v k="$k" -v t="$t" '$1 == k && $2 == "case" && $4 != "pass" && $4 != "faster" && $4 != "new" {
			printf "\n    at %s%%: %s %s, B/A %+.2f%% (p %s)", t, $3, $4, $5, $6 }' "$tmp/rows")
		opt=()
		[ "${ts[k]}" = profile ] || opt=(--max-regression "$t")
		[ -z "$out" ] || "$AB" gate "$run" --baseline "$base" "${opt[@]}" --out "$out/alarm-$scn-$pair-$t.md" 2>/dev/null
	done
	range=$(awk -F'\t' '$1 == 0 && $2 == "case" && $5 != "nan" { n++; if (n == 1 || $5 < lo) lo = $5; if (n == 1 || $5 > hi) hi = $5 }
		END { if (n) printf "B/A %+.2f%% to %+.2f%% over %d case(s)", lo, hi, n; else printf "no B/A change" }' "$tmp/rows")
	if [ "$kind" = aa ]; then
		echo "A/A pair $pair: $line; $range$detail"
	else
		echo "+$size% plant, pair $pair: $line; $range"
	fi
}

round() { # I
	local i=$1 p
	if [ ${#plant_list[@]} -gt 0 ] && [ "$i" -le "$plant_pairs" ]; then
		measure "plant-$i-0" "$tmp/plant0.ini"
		for p in "${plant_list[@]}"; do
			measure "plant-$i-$p" "$tmp/plant$p.ini"
			gate_pair plant "$p" "$i" "plant-$i-$p" "plant-$i-0" "$plant_name"
		done
	fi
	if [ "$i" -le "$pairs" ]; then
		measure "aa-$i-a" "$scenario"
		measure "aa-$i-b" "$scenario"
		gate_pair aa 0 "$i" "aa-$i-b" "aa-$i-a" "$scn_name"
	fi
}

rounds=$pairs
[ ${#plant_list[@]} -eq 0 ] || [ "$plant_pairs" -le "$rounds" ] || rounds=$plant_pairs
start=$(date +%s) last=0 done_rounds=0
for i in $(seq 1 "$rounds"); do
	now=$(date +%s)
	if [ -n "$time_limit" ] && [ "$i" -gt 1 ] && [ $((now - start + last)) -gt "$time_limit" ]; then
		echo "aa_check: stopped at the time limit of ${time_limit}s after $done_rounds of $rounds rounds ($((now - start))s)"
		break
	fi
	round "$i"
	last=$(($(date +%s) - now))
	done_rounds=$i
done
echo
rc=0
print_table "$results" >"$tmp/table.md" || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
cat "$tmp/table.md"
[ -z "$out" ] || cp "$tmp/table.md" "$out/table.md"
exit "$rc"
