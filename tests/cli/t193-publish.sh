#!/usr/bin/env bash
# `abbench publish DIR`: the static HTML dashboard, opened in headless
# Chromium (Debian's chromium, installed by make deps).
# History: six runs of smoke.ini on the CPU backend's fake timer (dated
# 2026-11-01.., commits c0000000NNNN, ln_modulate's fused arm planted 25%
# slower from run 4 on, the baseline at run 2), and three runs of
# aa_smoke.ini moved to a second device in the database, so that the page
# has two scenarios x two devices. The newest smoke run's label holds
# '<&>' to see it escaped.
# Checks: the files (index.html, style.css, a chart per case, the newest
# runs' reports); the page names the step with its run and commit; the
# label is escaped; then Chromium loads it from file:// (no server) and
# tests/tools/check_page.py fails on any console message, any <img> whose
# file is missing or not a PNG, any relative link to a missing file, any
# #anchor without a target, a page without <h1>; a screenshot is taken
# (kept in the test's directory and copied beside the binary as
# dashboard.png for a person to look at). Removing a chart must make the
# checker fail.
. "$(dirname "$0")/lib.sh"
set -e
export ABBENCH_DB="$T/p.db" ABBENCH_FAKE_TIMER=1
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_CACHE_HOME="$T/home/.cache"
mkdir -p "$HOME"
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' scenarios/smoke.ini >"$T/base.ini"
run() { "$AB" run "$@" --backend cpu --no-progress >/dev/null 2>"$T/run.err" || { cat "$T/run.err"; return 1; }; }
for i in 1 2 3 4 5; do run "$T/base.ini" --label "nightly-$i"; done
run "$T/base.ini" --label 'pr<&>6'
for i in 1 2 3; do run scenarios/aa_smoke.ini --label "aa-$i"; done
sqlite3 "$ABBENCH_DB" "
UPDATE runs SET started_at = printf('2026-11-%02dT02:00:00Z', id), git_commit = printf('c%011d', id * 7919);
INSERT INTO devices (name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes, driver_version,
	runtime_version, default_sm_mhz) VALUES ('NVIDIA H200 (test)', 'GPU-test', 'cuda', 9, 0, 132, 0, 0, '', '', 0);
UPDATE runs SET device_id = (SELECT id FROM devices WHERE uuid = 'GPU-test') WHERE scenario_name = 'aa_smoke';
UPDATE samples SET wall_ns = wall_ns * 1.25 WHERE slot_id IN (SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id
	JOIN runs r ON r.id = c.run_id WHERE r.id >= 4 AND r.scenario_name = 'smoke' AND s.arm = 'b' AND c.name = 'ln_modulate');"
"$AB" baseline set nightly 2 >/dev/null
smoke_cases=$(grep -c '^\[case ' "$T/base.ini")
aa_cases=$(grep -c '^\[case ' scenarios/aa_smoke.ini)

expect_exit 0 "publish" "$AB" publish "$T/site"
check "it prints the page's path" grep -qx "$T/site/index.html" "$T/out"
check "index.html and style.css" test -s "$T/site/index.html" -a -s "$T/site/style.css"
check "a chart per case, an SVG" test "$(ls "$T"/site/charts/trend-*.svg | wc -l)" -eq $((smoke_cases + aa_cases))
check "the newest runs' reports (smoke: run 6, aa_smoke: run 9)" \
	test -s "$T/site/runs/run-6/report.md" -a -s "$T/site/runs/run-9/report.md"
check "every run's report as an HTML page (runs 1-9)" \
	test "$(ls "$T"/site/runs/run-*/report.html | wc -l)" -eq 9
check "rendered by cmark-gfm: its tables are HTML tables" grep -q '<table>' "$T/site/runs/run-2/report.html"
check "and the folded sections stay folded" grep -q '<details><summary><b>Accuracy</b>' "$T/site/runs/run-2/report.html"
check "older runs' reports have their tables, no charts" bash -c "! ls '$T'/site/runs/run-2/*.png 2>/dev/null"
page="$T/site/index.html"
check "two scenarios x two devices in the matrix" \
	grep -q '<tr><th>scenario</th><th>NVIDIA H200 (test)</th><th>CPU fake timer (ABBENCH_FAKE_TIMER=1)</th></tr>' "$page"
check "the step, named with its run (linked to its report) and commit" \
	grep -Eq '<li class="bad">Step \+25\.[0-9]{2}% at <a href="runs/run-4/report.html">run 4</a> \(commit <code>c00000031676</code>, 2026-11-04, label nightly-4\): 4\.[0-9]{2} us -&gt; 5\.[0-9]{2} us, a regression</li>' "$page"
check "the label is escaped" grep -q 'label <code>pr&lt;&amp;&gt;6</code>' "$page"
check "links to the full report's page" grep -q '<a href="runs/run-6/report.html">Full report of that run</a>' "$page"
check "and to every run's" grep -q '<li><a href="runs/run-3/report.html">run 3</a>, commit <code>c00000023757</code>' "$page"
check "no script" bash -c "! grep -qi '<script' '$page'"
check "no absolute path of this machine" bash -c "! grep -q '$T' '$page'"

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
check "chromium loads the page from file:// and dumps its DOM" \
	bash -c "$(declare -f chrome); T='$T' chrome '$T/dom.log' --dump-dom 'file://$page' >'$T/dom.html'"
check "the DOM has the page" grep -q '<h1>abbench dashboard</h1>' "$T/dom.html"
check "no console message, every image a PNG on disk, every link and anchor resolves" \
	python3 tests/tools/check_page.py "$T/dom.html" "$T/site" "$T/dom.log"
check "a screenshot" bash -c "$(declare -f chrome); T='$T' chrome '$T/shot.log' --window-size=1400,2000 --screenshot='$T/dashboard.png' 'file://$page'"
check "the screenshot is a PNG of some size" \
	bash -c "head -c 8 '$T/dashboard.png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' && test \$(stat -c %s '$T/dashboard.png') -gt 50000"
cp "$T/dashboard.png" "$(dirname "$AB")/dashboard.png" 2>/dev/null || true

# The checker must catch a missing image.
rm "$T"/site/charts/trend-smoke-*-ln_modulate.svg
check "chromium loads the damaged page" \
	bash -c "$(declare -f chrome); T='$T' chrome '$T/dom2.log' --dump-dom 'file://$page' >'$T/dom2.html'"
check "the checker fails on the missing chart" \
	bash -c "! python3 tests/tools/check_page.py '$T/dom2.html' '$T/site' '$T/dom2.log' >'$T/check2.out'"
check "and names it" grep -q "^image 'charts/trend-smoke-.*-ln_modulate.svg' does not exist$" "$T/check2.out"

# Without gnuplot: data and scripts, and the page says why there is no chart.
expect_exit 0 "publish --no-plots" "$AB" publish "$T/np" --no-plots --no-reports
check "no chart drawn" bash -c "! ls '$T'/np/charts/*.svg '$T'/np/charts/*.png 2>/dev/null"
check "the page says the charts were not drawn" grep -q 'Chart not drawn: charts turned off' "$T/np/index.html"
check "and that reports were turned off" grep -q 'No report: reports turned off (--no-reports).' "$T/np/index.html"
expect_exit 2 "publish with no run matching" "$AB" publish "$T/none" --scenario nothing
expect_exit 2 "publish without DIR" "$AB" publish
finish
