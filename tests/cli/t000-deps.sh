#!/usr/bin/env bash
# Every program the CLI tests and the scripts they run call is either part
# of a minimal Debian root (an Essential or Priority: required package) or
# installed by `make deps` (scripts/deps.sh --programs), and make run's
# packages are a part of make test's without the test-only ones (Chromium,
# munge, Slurm, cmocka, clang ...). Found by parsing
# the scripts (tests/tools/commands_used.py), so a test that starts calling
# a new tool fails here until deps.sh installs it.
. "$(dirname "$0")/lib.sh"
if ! command -v dpkg-query >/dev/null; then
	echo "SKIP: not a Debian system (no dpkg-query)"
	exit 0
fi

# The scripts that `make test` and `make run` execute on this machine
# (scripts/gpu_check.sh runs on the GPU machine, with its own tools).
scripts=(tests/cli/*.sh scripts/run_tests.sh scripts/make_run.sh scripts/nightly.sh
	scripts/aa_check.sh scripts/deps.sh)
python3 tests/tools/commands_used.py "${scripts[@]}" >"$T/used" || fail "commands_used.py ran"
check "commands found in the scripts" test -s "$T/used"

scripts/deps.sh --programs | cut -d: -f1 >"$T/installed"
dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
	awk '$2 == "yes" || $3 == "required" { print $1 }' >"$T/base-packages"

# in_base COMMAND: the command's file (or its alternatives' targets)
# belongs to a package of the minimal root.
in_base() {
	local c=$1 path pkg
	for path in /usr/bin/$c /bin/$c /usr/sbin/$c /sbin/$c $(update-alternatives --list "$c" 2>/dev/null); do
		[ -e "$path" ] || continue
		pkg=$(dpkg-query -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || continue
		[ -n "$pkg" ] && grep -qx "$pkg" "$T/base-packages" && return 0
	done
	return 1
}

# make run installs what running needs, make test what testing needs: the
# run set is part of the test set and holds none of the test-only packages
scripts/deps.sh --packages run | sort >"$T/run-set"
scripts/deps.sh --packages test | sort >"$T/test-set"
check "make run's packages are all make test's" test -z "$(comm -23 "$T/run-set" "$T/test-set")"
for p in chromium munge slurmctld slurmd slurm-client libcmocka-dev clang shellcheck jq python3-numpy; do
	check "make run does not install $p" bash -c "! grep -qx '$p' '$T/run-set' && grep -qx '$p' '$T/test-set'"
done
check "make run installs gnuplot (the report's charts)" grep -qx gnuplot-nox "$T/run-set"
check "the Makefile: run needs deps-run, test deps" bash -c "grep -q '^run: deps-run\$' Makefile && grep -q '^test: deps\$' Makefile &&
	grep -q 'scripts/deps.sh run' Makefile && grep -q 'scripts/deps.sh test' Makefile"
expect_exit 2 "an unknown set" scripts/deps.sh nightly

for c in $(cut -d: -f3 "$T/used" | sort -u); do
	if grep -qx "$c" "$T/installed"; then
		ok "$c: installed by make deps"
	elif in_base "$c"; then
		ok "$c: part of a minimal Debian root"
	else
		fail "$c is called by $(grep ":$c\$" "$T/used" | head -1 | cut -d: -f1-2) but make deps does not install it"
	fi
done
finish
