# Shared helpers for the CLI tests: each test sources this, gets $AB (the
# binary), a scratch directory $T removed at exit, and ok/fail/expect_exit.
set -u
AB=${1:-${ABBENCH:-build/abbench}}
case "$AB" in /*) ;; *) AB="$PWD/$AB" ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export ABBENCH_DB="$T/default.db"
# Device locks (run/devlock.h) in the test's own directory: tests never wait
# for each other, nor for a real run on this machine.
export ABBENCH_LOCK_DIR="$T/locks"
n_fail=0

ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; n_fail=$((n_fail + 1)); }
check() { # description, command...
	local desc=$1; shift
	if "$@"; then ok "$desc"; else fail "$desc"; fi
}
# expect_exit STATUS DESCRIPTION command... ; output in $T/out, $T/err
expect_exit() {
	local want=$1 desc=$2; shift 2
	local got=0
	"$@" >"$T/out" 2>"$T/err" || got=$?
	if [ "$got" -eq "$want" ]; then ok "$desc (exit $got)"; else
		fail "$desc: exit $got, wanted $want"; sed 's/^/    /' "$T/err" | head -5; fi
}
finish() {
	if [ "$n_fail" -ne 0 ]; then echo "$n_fail check(s) failed"; exit 1; fi
	exit 0
}
