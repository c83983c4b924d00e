#!/usr/bin/env bash
# Runs every unit test binary in BUILD/tests and every CLI test in
# tests/cli/t*.sh, then prints one closing line "N passed, N failed,
# N skipped". Exits non-zero when anything failed.
#
# The tests run ABBENCH_TEST_JOBS at a time (default: the machine's CPUs),
# each line printed as its test ends: `make test` (the suite twice, plain
# and sanitized) took 13.5 minutes on the 2-core VM one at a time, past its
# 10-minute budget. A test of 20 s or more says how long it took. Every
# test has its own scratch directory, database and device-lock folder
# (tests/cli/lib.sh), so none waits for another.
set -uo pipefail

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
export ABBENCH="$root/$build/abbench"
jobs=${ABBENCH_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# run_one INDEX NAME KIND PATH: the test's verdict in $RESULTS/INDEX, and
# its line (with the failure's last 40 lines) printed in one write. KIND:
# unit (a binary), gpu (a binary run with --quick), cli (a script).
run_one() {
	local idx=$1 name=$2 kind=$3 path=$4 log verdict text rc=0 t0 secs took=""
	log=$(mktemp)
	t0=$(date +%s)
	case $kind in
	unit) "$path" >"$log" 2>&1 || rc=$? ;;
	gpu) "$path" --quick >"$log" 2>&1 || rc=$? ;;
	*) bash "$path" "$ABBENCH" >"$log" 2>&1 || rc=$? ;;
	esac
	# a slow test says how long it took: where the suite's time goes
	secs=$(($(date +%s) - t0))
	[ "$secs" -ge 20 ] && took=" (${secs} s)"
	if [ "$rc" -eq 0 ]; then
		if grep -q '^SKIP' "$log"; then
			verdict=skip text="skip  $name: $(grep -m1 '^SKIP' "$log")"
		else
			verdict=pass text="pass  $name$took"
		fi
	else
		verdict=fail text="FAIL  $name$took"$'\n'"$(sed 's/^/      /' "$log" | tail -40)"
	fi
	rm -f "$log"
	printf '%s %s\n' "$verdict" "$name" >"$RESULTS/$idx"
	printf '%s\n' "$text"
}
export -f run_one
export RESULTS=$results

# Four fields per test, NUL-separated for xargs: index (zero-padded, so
# that the verdicts read back in order), name, kind, path.
list() {
	local i=0 t
	for t in tests/cli/t*.sh; do
		[ -f "$t" ] || continue
		printf '%04d\0%s\0cli\0%s\0' $((i++)) "cli/$(basename "$t" .sh)" "$t"
	done
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		printf '%04d\0%s\0unit\0%s\0' $((i++)) "unit/$(basename "$t")" "$t"
	done
	for t in "$build"/gpu/test_*; do
		[ -x "$t" ] || continue
		printf '%04d\0%s\0gpu\0%s\0' $((i++)) "gpu/$(basename "$t")" "$t"
	done
}
# shellcheck disable=SC2016 # $1 .. $4 are the inner shell's
list | xargs -0 -n 4 -P "$jobs" bash -c 'run_one "$1" "$2" "$3" "$4"' _

passed=0 failed=0 skipped=0
failures=()
for f in "$results"/*; do
	[ -f "$f" ] || continue
	read -r verdict name <"$f"
	case $verdict in
	pass) passed=$((passed + 1)) ;;
	skip) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) failures+=("$name") ;;
	esac
done
echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
