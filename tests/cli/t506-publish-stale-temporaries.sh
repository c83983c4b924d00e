#!/usr/bin/env bash
# A publish killed by SIGKILL leaves no temporary that a later publish
# keeps (issue 31 row 11): kill -9 can run no handler, so the PNG, SVG
# or HTML temporary being written (NAME.tmpXXXXXX) stays in the
# dashboard folder; the next publish takes the folder's lock (one publish
# at a time) and removes every such temporary of ours before it writes.
# Checked two ways: KILLS publishes killed at staggered moments, then one
# that finishes, after which no *.tmpXXXXXX is left (before: each kill
# that hit a write left one for good, and uploading the folder took them
# along); and temporaries planted in charts/ and runs/ removed, while a
# file that only looks alike (another extension, another suffix) stays.
# Also: two publishes into one folder at once both succeed, one waiting.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1
KILLS=${KILLS:-6}
for i in 1 2 3; do
	"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --db "$T/p.db" --label "n$i" >/dev/null 2>&1 ||
		fail "run $i"
done
site="$T/site"
temps() { find "$site" -type f -regextype posix-extended -regex '.*\.(png|svg|html|md|css|dat|gp)\.tmp[A-Za-z0-9]{6}' | wc -l; }
left=0
for k in $(seq "$KILLS"); do
	"$AB" publish "$site" --db "$T/p.db" >/dev/null 2>&1 &
	pid=$!
	sleep "0.$((k * 7 % 9 + 1))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	left=$((left + $(temps)))
done
echo "# $KILLS publishes killed, temporaries seen after the kills: $left"
mkdir -p "$site/charts" "$site/runs/run-9"
for f in charts/trend-x.png.tmpAbC123 charts/trend-x.svg.tmp0z9Y8x runs/run-9/report.html.tmpQwErTy index.html.tmp123abc; do
	echo stale >"$site/$f"
done
echo mine >"$site/charts/notes.tmp123456"      # not a kind of file publish writes
echo mine >"$site/charts/keep.png.tmp"          # not mkstemp's suffix
expect_exit 0 "a publish after the kills" "$AB" publish "$site" --db "$T/p.db"
check "no temporary of ours is left in the folder" test "$(temps)" -eq 0
check "files that only look alike stay" test -s "$site/charts/notes.tmp123456" -a -s "$site/charts/keep.png.tmp"
check "the page is whole" grep -q '</html>' "$site/index.html"
"$AB" publish "$site" --db "$T/p.db" >"$T/o1" 2>"$T/e1" & p1=$!
"$AB" publish "$site" --db "$T/p.db" >"$T/o2" 2>"$T/e2" & p2=$!
r1=0; r2=0; wait "$p1" || r1=$?; wait "$p2" || r2=$?
check "two publishes into one folder at once both succeed ($r1, $r2)" test "$r1" -eq 0 -a "$r2" -eq 0
check "and leave no temporary" test "$(temps)" -eq 0
finish
