#!/usr/bin/env bash
# .github/workflows/nightly.yml's shell blocks, run as they are on this
# machine (tests/tools/workflow_check.py writes each step that has an id to
# JOB.ID.sh; t175 checks the workflow's shape), with what GitHub would
# provide played by the test: a bare repository as origin, a fresh clone
# per job, artifacts copied between the jobs' folders as upload/download
# would, the CPU backend's fake timer instead of the GPU runners
# (BACKEND=cpu, 2 shards of smoke.ini), and a stand-in `gh` that keeps a
# pull request's comments in a JSON file (jq applies the --jq filter).
# Three nights on "main":
#   1. no history branch yet: the run set becomes the baseline (exit 0);
#      the history job creates the branch with GPU/night.db, baseline.db
#      and baseline (the run set's id);
#   2. a planted regression (b = eager): the gate job lists the slower
#      cases, the recheck job measures them again in ONE run, the verdict
#      confirms them (exit 1); the PR comment is made once and then edited
#      in place (never a second one; another user's comment quoting the
#      marker is left alone); the branch gets a second commit, its
#      baseline unchanged, its night.db holding the re-measurement run;
#   3. a passing night: the baseline moves to it.
. "$(dirname "$0")/lib.sh"
set -e
command -v jq >/dev/null || { echo "SKIP: no jq (make deps installs it)"; exit 0; }
repo=$PWD
wf=$T/wf
python3 tests/tools/workflow_check.py .github/workflows/nightly.yml "$wf" >/dev/null || true
steps="shards.measure gate.tip gate.fetch gate.first recheck.need recheck.measure verdict.verdict verdict.exit"
for f in $steps comment.post history.commit; do
	check "the workflow has step $f" test -f "$wf/$f.sh"
done
export ABBENCH_FAKE_TIMER=1 GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export SHARDS=2 BACKEND=cpu HISTORY_BRANCH=abbench-history MARKER='<!-- abbench-gate -->' GPU=h200 \
	GITHUB_REPOSITORY=owner/repo GITHUB_SERVER_URL=https://github.example GITHUB_RUN_ID=7 GITHUB_SHA=c0ffee PR=12
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/base.ini"
sed 's/^b = fused/b = eager/' "$T/base.ini" >"$T/reg.ini"
n=$(grep -c '^\[case ' "$T/base.ini")

origin=$T/origin.git
git init -q --bare -b main "$origin"
git init -q -b main "$T/seed"
echo "the repository" >"$T/seed/README"
git -C "$T/seed" add README
git -C "$T/seed" -c user.name=t -c user.email=t@t commit -q -m seed
git -C "$T/seed" push -q "$origin" main

# A job's workspace: a fresh clone; with build/abbench and scripts/ as
# the checkout and the binary's artifact give them (not for history).
ws() { # NAME [bare]
	local d=$T/ws-$1
	rm -rf "$d" "$d.tmp"
	git clone -q "$origin" "$d"
	if [ "${2:-}" != bare ]; then
		ln -s "$repo/scripts" "$d/scripts"
		mkdir "$d/build"
		ln -s "$AB" "$d/build/abbench"
	fi
	echo "$d"
}
step() { # WORKSPACE STEP [VAR=VALUE...]: runs it there; its log in $T/log
	local d=$1 s=$2
	shift 2
	(cd "$d" && env GITHUB_OUTPUT="$d/.out-$s" RUNNER_TEMP="$d.tmp" "$@" bash "$wf/$s.sh") >>"$T/log" 2>&1
}
output() { sed -n "s/^$3=//p" "$1/.out-$2"; } # WORKSPACE STEP KEY

night() { # RUN_SET SCENARIO
	export RUN_SET=$1 SCENARIO=$2
	local s g r v
	s=$(ws shards)
	step "$s" shards.measure SHARD=1
	step "$s" shards.measure SHARD=2
	g=$(ws gate)
	mkdir "$g/shards"
	cp "$s"/shard-h200-*.db "$g/shards/"
	step "$g" gate.tip
	[ -z "$(output "$g" gate.tip sha)" ] || step "$g" gate.fetch # the cache missed
	step "$g" gate.first
	r=$(ws recheck)
	mkdir -p "$r.tmp" && cp -r "$g/night" "$r.tmp/night"
	step "$r" recheck.need
	[ "$(output "$r" recheck.need cases)" = 0 ] || step "$r" recheck.measure
	v=$(ws verdict)
	cp -r "$g/night" "$v/night"
	mkdir "$v/recheck"
	[ ! -f "$r.tmp/recheck-h200.db" ] || cp "$r.tmp/recheck-h200.db" "$v/recheck/"
	verdict=0
	step "$v" verdict.verdict || verdict=$?
	night_status=$(output "$v" verdict.verdict status)
	job_exit=0
	step "$v" verdict.exit STATUS="$night_status" || job_exit=$?
	h=$(ws history bare)
	mkdir -p "$h.tmp/nights/night-h200"
	cp "$v/night/tonight.db" "$v/night/status" "$h.tmp/nights/night-h200/"
	step "$h" history.commit
}
branch() { git --git-dir="$origin" show "abbench-history:$1"; }

night gh-1-1 "$T/base.ini"
check "night 1: the verdict block ran (exit $verdict)" test "$verdict" -eq 0
check "night 1: the baseline is set, status 0" test "$night_status" = 0 -a "$job_exit" -eq 0
check "night 1: its summary" test "$(cat "$T/ws-verdict/night/out/summary.txt")" = \
	"BASELINE SET: no baseline 'nightly' yet: 'set:gh-1-1-h200' is now it; nothing gated"
check "night 1: nothing measured again" test "$(output "$T/ws-recheck" recheck.need cases)" = 0
check "night 1: the history branch made, its baseline the run set" test "$(branch h200/baseline)" = gh-1-1-h200
check "night 1: with the night's and the baseline's databases" bash -c \
	"git --git-dir='$origin' ls-tree --name-only -r abbench-history | sort | tr '\n' ' ' | grep -qx 'h200/baseline h200/baseline.db h200/night.db '"

night gh-2-1 "$T/reg.ini"
check "night 2: the gate found the history branch" test -n "$(output "$T/ws-gate" gate.tip sha)"
check "night 2: and fetched the baseline from it" test -s "$T/ws-gate/history/h200/baseline.db"
check "night 2: $n slower cases to measure again" test "$(output "$T/ws-recheck" recheck.need cases)" = "$n"
check "night 2: measured again on the GPU runner" test -s "$T/ws-recheck.tmp/recheck-h200.db"
"$AB" list --rechecks --db "$T/ws-recheck.tmp/recheck-h200.db" >"$T/rechecks" 2>/dev/null
check "night 2: in ONE run of all $n cases" bash -c \
	"test \$(tail -n +2 '$T/rechecks' | grep -c .) -eq 1 && grep -q ' gh-2-1-h200-recheck .* $n  *ok ' '$T/rechecks'"
check "night 2: the verdict block ran (exit $verdict), the night's status 1" test "$verdict" -eq 0 -a "$night_status" = 1
check "night 2: the verdict job ends with exit 1" test "$job_exit" -eq 1
check "night 2: its summary" test "$(cat "$T/ws-verdict/night/out/summary.txt")" = \
	"FAIL: $n cases of 'set:gh-2-1-h200' against baseline 'nightly': $n slower; measured again in one run ('gh-2-1-h200-recheck'): $n confirmed slower, 0 cleared, 0 inconclusive"
check "night 2: the report" test -s "$T/ws-verdict/night/out/report/report.md"
check "night 2: the baseline did not move" test "$(branch h200/baseline)" = gh-1-1-h200
check "night 2: a second commit on the branch" test "$(git --git-dir="$origin" rev-list --count abbench-history)" -eq 2
branch h200/night.db >"$T/night2.db"
check "night 2: night.db holds the shards and the re-measurement" bash -c \
	"'$AB' list --rechecks --db '$T/night2.db' 2>/dev/null | grep -c ' gh-2-1-h200' | grep -qx 3"

# The pull request's comment: made once, then edited in place.
mkdir -p "$T/bin"
cat >"$T/bin/gh" <<'EOF'
#!/usr/bin/env bash
# A stand-in gh: the REST calls of the comment step, on a JSON file.
store=$GH_STORE
echo "gh $*" >>"$store.log"
[ "$1" = api ] || exit 2
shift
method=GET filter=. body="" path=""
while [ $# -gt 0 ]; do
	case "$1" in
	--method) method=$2 && shift 2 ;;
	--paginate) shift ;;
	--jq) filter=$2 && shift 2 ;;
	-F) [[ $2 == body=@* ]] || exit 2; body=$(cat "${2#body=@}") && shift 2 ;;
	-*) echo "gh: unknown flag $1" >&2 && exit 2 ;;
	*) path=$1 && shift ;;
	esac
done
edit() { jq "$@" "$store" >"$store.new" && mv "$store.new" "$store"; }
case "$method $path" in
"GET repos/$GITHUB_REPOSITORY/issues/$PR/comments") jq -r "$filter" "$store" ;;
"POST repos/$GITHUB_REPOSITORY/issues/$PR/comments")
	id=$((100 + $(jq length "$store")))
	edit --arg b "$body" --argjson id "$id" '. + [{id: $id, user: {login: "github-actions[bot]"}, body: $b}]' ;;
"PATCH repos/$GITHUB_REPOSITORY/issues/comments/"*)
	id=${path##*/}
	jq -e --argjson id "$id" 'any(.[]; .id == $id)' "$store" >/dev/null || { echo "gh: HTTP 404" >&2 && exit 1; }
	edit --arg b "$body" --argjson id "$id" 'map(if .id == $id then .body = $b else . end)' ;;
*) echo "gh: unexpected $method $path" >&2 && exit 1 ;;
esac
EOF
chmod +x "$T/bin/gh"
store=$T/comments.json
echo '[{"id": 50, "user": {"login": "octocat"}, "body": "quoting the bot: <!-- abbench-gate -->"}]' >"$store"
c=$(ws comment bare)
mkdir -p "$c/reports/report-h200"
cp -r "$T/ws-verdict/night/out/." "$c/reports/report-h200/"
for k in 1 2; do
	check "comment step, push $k" step "$c" comment.post PATH="$T/bin:$PATH" GH_STORE="$store" GH_TOKEN=x
done
check "the first push made the comment, the second edited it" bash -c \
	"grep -c -- '--method POST' '$store.log' | grep -qx 1 && grep -c -- '--method PATCH repos/owner/repo/issues/comments/101 ' '$store.log' | grep -qx 1"
check "one bot comment on the pull request" test "$(jq '[.[] | select(.user.login == "github-actions[bot]")] | length' "$store")" -eq 1
check "carrying the marker, the GPU and the summary" bash -c "jq -r '.[] | select(.id == 101) | .body' '$store' >'$T/body' &&
	head -n 1 '$T/body' | grep -qxF '<!-- abbench-gate -->' && grep -qx '### h200' '$T/body' &&
	grep -qF '**FAIL: $n cases of ' '$T/body' && grep -q '^## gate: FAIL' '$T/body'"
check "the other user's comment untouched" test "$(jq -r '.[] | select(.id == 50) | .body' "$store")" = "quoting the bot: <!-- abbench-gate -->"

night gh-3-1 "$T/base.ini"
check "night 3: passes" test "$night_status" = 0
check "night 3: its summary" test "$(cat "$T/ws-verdict/night/out/summary.txt")" = \
	"PASS: $n cases of 'set:gh-3-1-h200' against baseline 'nightly': $n passed"
check "night 3: the baseline moved to it" test "$(branch h200/baseline)" = gh-3-1-h200
check "night 3: three commits, history kept" test "$(git --git-dir="$origin" rev-list --count abbench-history)" -eq 3
check "night 3: main untouched" test "$(git --git-dir="$origin" rev-list --count main)" -eq 1
[ "$n_fail" -eq 0 ] || sed 's/^/    log: /' "$T/log" | tail -30
finish
