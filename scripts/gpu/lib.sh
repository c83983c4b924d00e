# scripts/gpu/lib.sh - what every stage script of scripts/gpu/ starts with;
# sourced, never run:
#
#   . "$(dirname "$0")/lib.sh" NAME "$@"
#   [ -n "$stages" ] || stages="DEFAULT STAGES"
#
# It moves to the checkout's root and sets
#   ROOT     the checkout (the current directory from here on)
#   RESULTS  where the stage's results go: $OUT, else $ROOT/gpu-out (made)
#   TMP      the stage's scratch folder, $TMPDIR/abbench-NAME, emptied;
#   LOGS     $TMP/logs (made)
#   JSON     $RESULTS/json: the documents the stage read its results from
#   AB       build/abbench (this script builds nothing: `make` elsewhere)
#   READ     the interpreter of the readers (scripts/gpu/abjson.py and the
#            stages' tables): $READ_PYTHON, else python3 (the standard
#            library is all they need)
#   stages   the script's arguments ("" when none: the script sets its
#            default stages)
#   status   0; a stage that fails sets it to 1
# and puts the machine's CUDA libraries of build/gpu/lib on the loader's
# path. Functions: step, want, ab_json.
#
# Results are read through abbench's public interface only: `abbench
# export|show|list --format json` (docs/JSON.md) into $JSON, read by
# Python (abjson.py); never the database's tables, never a report's
# markdown. tests/cli/t421-gpu-readers.sh runs every reader on the CPU.
# shellcheck disable=SC2034 # its variables are the sourcing script's
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
ROOT=$PWD
LIB_NAME=${1:?lib.sh: no stage name}
shift
RESULTS=${OUT:-$ROOT/gpu-out}
TMP=${TMPDIR:-/tmp}/abbench-$LIB_NAME
LOGS=$TMP/logs
JSON=$RESULTS/json
AB=$ROOT/build/abbench
READ=${READ_PYTHON:-python3}
rm -rf "$TMP" && mkdir -p "$LOGS" "$RESULTS" "$JSON"
stages=$*
status=0
export LD_LIBRARY_PATH=$ROOT/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# step TITLE: a heading in the stage's output.
step() { echo; echo "=== $* ==="; }
# want STAGE: whether the stage is among those asked for.
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
# ab_json KIND RUN [DB]: RUN (a label or id) as `abbench KIND --format
# json` reads it from DB (default $ABBENCH_DB), KIND export or show, into
# $JSON/RUN.KIND.json (RUN's characters other than letters, digits, '.',
# '_' and '-' as '_'); prints the file's path; abbench's exit status.
# ab_json list - [DB]: every run, re-measurements too, into
# $JSON/list.json.
ab_json() {
	local kind=$1 run=$2 db=${3:-${ABBENCH_DB:-abbench.db}} f
	if [ "$kind" = list ]; then
		f=$JSON/list.json
		rm -f "$f"
		"$AB" list --rechecks --format json --db "$db" --out "$f" 2>/dev/null || return
	else
		f=$JSON/$(printf '%s' "$run" | tr -c 'A-Za-z0-9._-' '_').$kind.json
		rm -f "$f" # never an older run's document in its place
		"$AB" "$kind" "$run" --format json --db "$db" --out "$f" 2>/dev/null || return
	fi
	echo "$f"
}
