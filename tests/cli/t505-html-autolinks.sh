#!/usr/bin/env bash
# Text from outside never becomes a link in the dashboard (issue 31 row
# 8): a device name 'www.evil.example', a host and notes with http:// and
# https:// URLs, a Python arm's details with one too, planted in a stored
# run; `publish` renders the run's report.html without the GFM autolink
# extension, so each stays text: no <a href> to evil.example anywhere in
# the site, and the text itself is there. Before: GFM's autolinks made
# each an <a href="http://www.evil.example">.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/python_lib.sh"
export ABBENCH_FAKE_TIMER=1 SAMPLES=3
py_scenario "$T/s.ini" eager "python:$PYDATA/rga_numpy.py:rga_exact"
"$AB" run "$T/s.ini" --db "$T/p.db" --no-progress >/dev/null 2>&1 || fail "the run"
sqlite3 "$T/p.db" "UPDATE devices SET name = 'www.evil.example';
UPDATE runs SET host = 'http://evil.example/host', notes = 'see https://evil.example/notes and www.evil.example';
UPDATE run_arms SET detail = 'function ''rga_exact''; http://evil.example/arm'"
expect_exit 0 "publish the planted run" "$AB" publish "$T/site" --db "$T/p.db"
html=$(find "$T/site" -name '*.html' | tr '\n' ' ')
check "pages were written" test -n "$html"
# shellcheck disable=SC2086 # the pages
check "no link to evil.example in any page" bash -c "! grep -il '<a[^>]*href=\"[^\"]*evil' $html"
# shellcheck disable=SC2086
check "the device name is there as text" grep -ql 'www\.evil\.example' $html
# shellcheck disable=SC2086
check "the notes are there as text" grep -ql 'https://evil\.example/notes' $html
# shellcheck disable=SC2086
check "the host and the arm's details too" bash -c "grep -ql 'http://evil\.example/host' $html && grep -ql 'http://evil\.example/arm' $html"
finish
