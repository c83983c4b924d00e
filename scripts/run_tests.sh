#!/usr/bin/env bash
# Runs every unit test binary in BUILD/tests and every CLI test in
# tests/cli/t*.sh, then prints one closing line "N passed, N failed,
# N skipped". Exits non-zero when anything failed.
set -uo pipefail

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export ABBENCH="$root/$build/abbench"
passed=0 failed=0 skipped=0
failures=()

run_one() { # name, command...
	local name=$1; shift
	local log
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		if grep -q '^SKIP' "$log"; then
			skipped=$((skipped + 1))
			echo "skip  $name: $(grep -m1 '^SKIP' "$log")"
		else
			passed=$((passed + 1))
			echo "pass  $name"
		fi
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL  $name"
		sed 's/^/      /' "$log" | tail -40
	fi
	rm -f "$log"
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$build"/gpu/test_*; do
	[ -x "$t" ] || continue
	run_one "gpu/$(basename "$t")" "$t" --quick
done
for t in tests/cli/t*.sh; do
	[ -f "$t" ] || continue
	run_one "cli/$(basename "$t" .sh)" bash "$t" "$ABBENCH"
done

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
