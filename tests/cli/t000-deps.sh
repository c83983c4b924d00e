#!/usr/bin/env bash
# Every program the CLI tests and the scripts they run call is either part
# of a minimal Debian root (an Essential or Priority: required package) or
# installed by `make deps` (scripts/deps.sh --programs). Found by parsing
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
