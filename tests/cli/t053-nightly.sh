#!/usr/bin/env bash
# scripts/nightly.sh and scripts/aa_check.sh end to end on the CPU backend.
# nightly: an A/A night passes (a slowdown that a second measurement does
# not confirm is noise); a planted regression (b = eager) is confirmed and
# fails; lost bit-exactness (b = twopass) fails without a second
# measurement; an unknown baseline is exit 2; the verdicts and the report
# are written. aa_check: prints its false-alarm count and exits accordingly.
# The nights that depend on timing get up to three tries, each with a fresh
# baseline (see t052-gate.sh).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH="$AB" ABBENCH_DB="$T/n.db"
sed 's/^min_samples = .*/min_samples = 20/' scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
sed 's/^b = twopass/b = fused/' tests/scenarios/twopass_smoke.ini >"$T/tp_base.ini"

# A fresh baseline per attempt: a baseline run that happened to be fast
# makes every later run look slow, and measuring again would confirm it.
nightly() { # expected status, out dir, scenario, run options...
	local want=$1 out=$2 scenario=$3 rc=0
	shift 3
	for attempt in 1 2 3; do
		rc=0
		"$AB" run "$T/base.ini" --backend cpu --label "main$attempt" --no-progress >/dev/null 2>&1
		"$AB" baseline set nightly "main$attempt" >/dev/null
		NIGHTLY_OUT="$out" scripts/nightly.sh "$scenario" nightly "$@" >"$T/out" 2>"$T/err" || rc=$?
		[ "$rc" -eq "$want" ] && break
		echo "    attempt $attempt: exit $rc"
		sed 's/^/      /' "$T/err" | grep nightly:
	done
	return "$rc"
}

rc=0
nightly 0 "$T/aa" "$T/base.ini" --backend cpu --no-progress || rc=$?
check "an A/A night passes (exit $rc)" test "$rc" -eq 0
check "its verdict is written" test -s "$T/aa/gate.md"
check "its report is written" test -s "$T/aa/report/report.md"
check "the run is labelled nightly-DATE" grep -q "^## gate: .*run [0-9]* \`nightly-$(date -u +%Y-%m-%d)\`" "$T/aa/gate.md"

rc=0
nightly 1 "$T/reg" "$T/reg.ini" --backend cpu --no-progress || rc=$?
check "a planted regression fails the night (exit $rc)" test "$rc" -eq 1
check "it was measured again before failing" grep -q "confirmed slower" "$T/err"
check "the re-measured case has its own verdict" bash -c "ls '$T'/reg/gate-recheck-*.md >/dev/null"
check "the report is written even on failure" test -s "$T/reg/report/report.md"

# bit-exactness: a baseline of the twopass scenario's cases with b = fused
"$AB" run "$T/tp_base.ini" --backend cpu --quick --label tpbase --no-progress >/dev/null 2>&1
"$AB" baseline set nightly tpbase >/dev/null
expect_exit 1 "lost bit-exactness fails the night" env NIGHTLY_OUT="$T/tp" scripts/nightly.sh tests/scenarios/twopass_smoke.ini nightly --backend cpu --quick --no-progress
check "no second measurement for bit-exactness" bash -c "! grep -q 'measuring it again' '$T/err'"
check "the verdict names it" grep -q 'LOST BIT-EXACTNESS' "$T/tp/gate.md"

expect_exit 2 "an unknown baseline is a data error" env NIGHTLY_OUT="$T/x" scripts/nightly.sh scenarios/smoke.ini nosuch --backend cpu --quick --no-progress
expect_exit 2 "nightly without a baseline argument" scripts/nightly.sh scenarios/smoke.ini

rc=0
scripts/aa_check.sh 2 scenarios/smoke.ini --backend cpu --quick >"$T/aa.out" 2>"$T/err" || rc=$?
check "aa_check ends with its false-alarm count" grep -Eqx 'false alarms: [0-2] of 2' "$T/aa.out"
alarms=$(sed -n 's/^false alarms: \([0-9]*\) of 2$/\1/p' "$T/aa.out")
check "aa_check exits 0 with no false alarm, 1 with some (got $rc, $alarms alarms)" \
	test "$rc" -eq "$([ "${alarms:-x}" = 0 ] && echo 0 || echo 1)"
check "aa_check reports each pair" test "$(grep -c '^pair [12]: ' "$T/aa.out")" -eq 2
expect_exit 2 "aa_check with a bad count" scripts/aa_check.sh many
finish
