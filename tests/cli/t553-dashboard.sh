#!/usr/bin/env bash
# The dashboard a team would publish (abbench publish): steps by E-divisive
# means under its noise model, a step between runs of one commit called
# "same commit: noise", hover values on every point, a page of every step
# with both runs' reports linked, commit links from --commit-url, escaped.
# Fourteen runs of smoke.ini on the fake timer (20 samples a slot), dated
# 2026-11-01.., planted in the database:
#   - runs 1-8 of one commit (c996322aaaaa): ln_modulate's fused arm
#     +27.56% from run 4 on: a step, "same commit: noise", counted as no
#     regression (the issue's dashboard called it one);
#     residual_gate_add +20% from run 5 on, where the device's driver
#     changed (runs 5-8 on a copy of the device row): evidence beyond the
#     A/A noise, "a regression (same commit, driver changed)";
#   - runs 9-14 each of its own commit (run 14's holds '"<x>&' to see it
#     escaped and URL-encoded): ln_continuous +10% from run 11 on, a
#     regression; qk_layernorm -15% from run 9 on (commit changes there),
#     an improvement.
# Then: history's table and publish's pages say so; every trend SVG holds a
# <title> per point; steps.html lists the four steps with links to both
# runs' reports (which exist) and to both commits; a bad --commit-url is
# exit 2; Chromium loads index.html and steps.html from file:// with no
# console message and every image, object, link and anchor resolving, and
# takes screenshots at 1400 px (copied beside the binary).
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/d.db" ABBENCH_FAKE_TIMER=1
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache"
mkdir -p "$HOME"
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/base.ini"
for i in $(seq 1 14); do
	"$AB" run "$T/base.ini" --backend cpu --no-progress --label "nightly-$i" >/dev/null 2>&1
done
slower() { # FACTOR FIRST-RUN LAST-RUN CASE: the fused arm's samples scaled
	echo "UPDATE samples SET wall_ns = wall_ns * $1 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON
		c.id = s.case_id WHERE c.run_id BETWEEN $2 AND $3 AND s.arm = 'b' AND c.name = '$4');"
}
sqlite3 "$ABBENCH_DB" "
UPDATE runs SET started_at = printf('2026-11-%02dT02:00:00Z', id),
	git_commit = CASE WHEN id <= 8 THEN 'c996322aaaaa' WHEN id = 14 THEN 'e14\"<x>&' ELSE printf('d%011d', id) END;
INSERT INTO devices (name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes, driver_version,
	runtime_version, default_sm_mhz, copy_gbps) SELECT name, 'cpu-driver-2', backend, cc_major, cc_minor, sm_count,
	l2_bytes, mem_bytes, 'driver 2', runtime_version, default_sm_mhz, copy_gbps FROM devices
	WHERE id = (SELECT device_id FROM runs WHERE id = 1);
UPDATE runs SET device_id = (SELECT id FROM devices WHERE uuid = 'cpu-driver-2') WHERE id BETWEEN 5 AND 8;
$(slower 1.2756 4 14 ln_modulate)
$(slower 1.20 5 14 residual_gate_add)
$(slower 1.10 11 14 ln_continuous)
$(slower 0.85 9 14 qk_layernorm)"

expect_exit 0 "history" "$AB" history
check "ln_modulate's step between runs of one commit: noise" \
	grep -Eq "^  step: \+27\.[0-9]{2}% at run 4 \(commit c996322aaaaa, 2026-11-04, label nightly-4\): .*, same commit: noise$" "$T/out"
check "its row says so" grep -Eq '^  4 .* <- step \+27\.[0-9]{2}% \(same commit: noise\)$' "$T/out"
check "residual_gate_add's: the driver changed with it, a regression" \
	grep -Eq "^  step: \+20\.[0-9]{2}% at run 5 \(commit c996322aaaaa, .*, a regression \(same commit, driver changed\)$" "$T/out"
check "ln_continuous: +10% at run 11, a regression" grep -Eq '^  step: \+10\.[0-9]{2}% at run 11 \(commit d00000000011, .*, a regression$' "$T/out"
check "qk_layernorm: -15% at run 9, an improvement" grep -Eq '^  step: -15\.[0-9]{2}% at run 9 \(commit d00000000009, .*, an improvement$' "$T/out"
check "four steps in all" test "$(grep -c '^  step: ' "$T/out")" -eq 4

url='https://example.org/abbench/commit/{commit}?from=dash&v=1'
expect_exit 0 "publish with commit links" "$AB" publish "$T/site" --commit-url "$url"
page="$T/site/index.html" steps="$T/site/steps.html"
check "the matrix counts 2 regressions, 1 improvement, 1 same-commit step" \
	grep -q '<span class="bad">2 regressions</span>, <span class="better">1 improvement</span>, <span class="noise">1 same-commit step (noise)</span>' "$page"
check "the link to every step" grep -q '<a href="steps.html">Every step (4)</a>' "$page"
check "the noise step's line, grey, no regression" \
	grep -Eq '<li class="noise">Step \+27\.[0-9]{2}% at <a href="runs/run-4/report.html">run 4</a> .*, same commit: noise</li>' "$page"
check "its card edged grey, not red" grep -q '<article class="card noise">' "$page"
check "commits linked, the template's & escaped" \
	grep -q '<a class="commit" href="https://example.org/abbench/commit/c996322aaaaa?from=dash&amp;v=1"><code>c996322aaaaa</code></a>' "$page"
check "an odd commit URL-encoded in the link and escaped in the text" \
	grep -qF '<a class="commit" href="https://example.org/abbench/commit/e14%22%3Cx%3E%26?from=dash&amp;v=1"><code>e14&quot;&lt;x&gt;&amp;</code></a>' "$page"
check "no raw odd commit anywhere" bash -c "! grep -qF 'e14\"<x>' '$page' '$steps'"
check "charts as objects (their hover works), an image inside" \
	grep -q '<object type="image/svg+xml" data="charts/trend-smoke-CPU_fake_timer__ABBENCH_FAKE_TIMER_1_-ln_modulate.svg" width="720" height="380"><img src=' "$page"
svg="$T/site/charts/trend-smoke-CPU_fake_timer__ABBENCH_FAKE_TIMER_1_-ln_modulate.svg"
check "a hover circle per point of the chart" test "$(grep -c '^<circle .*><title>run [0-9]*, commit ' "$svg")" -eq 14
# the plot's 14 points (the key's sample point comes after them)
pts=$(grep -o "use xlink:href='#gpPt6' transform='translate([0-9.]*,[0-9.]*)" "$svg" | sed 's/.*translate(//' | head -n 14 |
	awk -F, '{ printf "%.0f,%.0f ", $1, $2 }')
circles=$(grep -o '^<circle cx="[0-9.]*" cy="[0-9.]*"' "$svg" | sed 's/<circle cx="//; s/" cy="/,/; s/"$//' |
	awk -F, '{ printf "%.0f,%.0f ", $1, $2 }')
check "each circle on gnuplot's point (within a pixel)" test -n "$pts" -a "$pts" = "$circles"
check "a point's hover: run, commit, date, label, figure, samples, its step" \
	grep -Eq '<title>run 4, commit c996322aaaaa, 2026-11-04 02:00, label nightly-4: 5\.[0-9]{2} us \[5\.[0-9]{2}, 5\.[0-9]{2}\], n=20; &lt;- step \+27\.[0-9]{2}% \(same commit: noise\)</title>' "$svg"
check "the odd commit escaped in its hover" grep -qF 'commit e14&quot;&lt;x&gt;&amp;, 2026-11-14' "$svg"
check "every chart an SVG with hover values" \
	test "$(grep -l 'id="abbench-hover"' "$T"/site/charts/*.svg | wc -l)" -eq "$(ls "$T"/site/charts/*.svg | wc -l)"
check "steps.html: the four steps, newest first (at runs 11, 9, 5, 4)" \
	test "$(grep -o '<tr class="step-[a-z]*">' "$steps" | tr -d '\n')" = '<tr class="step-bad"><tr class="step-better"><tr class="step-bad"><tr class="step-noise">'
check "each with both runs' reports" bash -c "grep -q '<a href=\"runs/run-10/report.html\">run 10</a>' '$steps' && grep -q '<a href=\"runs/run-11/report.html\">run 11</a>' '$steps'"
for id in 3 4 5 8 9 10 11; do check "run $id's report page exists" test -s "$T/site/runs/run-$id/report.html"; done
check "its counts" grep -q '4 steps in the history, newest first: <span class="bad">2 regressions</span>, <span class="better">1 improvement</span>, <span class="noise">1 between runs of one commit (noise)</span>' "$steps"

expect_exit 2 "a --commit-url that is not http(s)" "$AB" publish "$T/x" --commit-url 'javascript:alert(1)/{commit}'
expect_exit 2 "a --commit-url without {commit}" "$AB" publish "$T/x" --commit-url 'https://example.org/'
expect_exit 2 "a --commit-url with a quote" "$AB" publish "$T/x" --commit-url 'https://example.org/{commit}"x'
check "says what it takes" grep -q 'must be an http:// or https:// URL holding {commit}' "$T/err"
check "no directory made" test ! -e "$T/x"

if ! command -v chromium >/dev/null; then
	fail "chromium is not installed (make deps installs it)"
	finish
fi
chrome() { # LOG, then chromium arguments
	local log=$1; shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" --enable-logging=stderr --v=0 "$@" 2>"$log"
}
for p in index steps; do
	check "chromium loads $p.html and dumps its DOM" \
		bash -c "$(declare -f chrome); T='$T' chrome '$T/$p.log' --dump-dom 'file://$T/site/$p.html' >'$T/$p.dom'"
	check "$p.html: no console message, every image, object, link and anchor resolves" \
		python3 tests/tools/check_page.py "$T/$p.dom" "$T/site" "$T/$p.log"
	check "$p.html: a screenshot at 1400 px" \
		bash -c "$(declare -f chrome); T='$T' chrome '$T/$p-shot.log' --window-size=1400,1000 --screenshot='$T/$p.png' 'file://$T/site/$p.html'"
	cp "$T/$p.png" "$(dirname "$AB")/dashboard-$p.png" 2>/dev/null || true
done
finish
