#!/usr/bin/env python3
"""Checks .github/workflows/nightly.yml and writes its shell out for lint and runs.

    workflow_check.py WORKFLOW.yml OUTDIR

Parses the YAML (python3-yaml) and checks the recipe's shape: a build job
on a hosted runner; a shards job whose matrix crosses GPU kinds with shard
numbers 1..SHARDS, runs on [self-hosted, ..., gpu-KIND] and calls
`abbench run --shard "$SHARD/$SHARDS" --run-set`; a gate job that merges
the shards, takes the baseline from the history branch (the cache only
restored, as a speed-up) and runs scripts/nightly.sh's gate step; a
recheck job on the GPU runners (nightly.sh --step recheck); a verdict job
(--step verdict) that uploads the report; a comment job, on pull requests
only, that edits one marked comment in place with `gh api` (PATCH, else
POST); a history job, on main only, one at a time, that pushes the runs to
the history branch. No run block may hold a ${{ ... }} expression (values
come through env:), so that the blocks run as they are.

Every `run:` block is written to OUTDIR/NN-JOB.sh (for `bash -n` and
shellcheck), and a step with an id also to OUTDIR/JOB.ID.sh (for the tests
that run it). Exit 1 with the failed checks listed.
"""
import os
import re
import sys

import yaml


def steps_text(job):
    return "\n".join(s.get("run", "") for s in job.get("steps", []))


def uses(job):
    return [s.get("uses", "") for s in job.get("steps", [])]


def needs(job):
    n = job.get("needs", [])
    return [n] if isinstance(n, str) else n


def checks(wf):
    jobs = wf["jobs"]
    on = wf.get("on", wf.get(True))
    shards, gate, recheck, verdict = jobs["shards"], jobs["gate"], jobs["recheck"], jobs["verdict"]
    comment, history = jobs["comment"], jobs["history"]
    matrix = shards["strategy"]["matrix"]
    n = int(wf["env"]["SHARDS"])
    yield "triggers: schedule and pull_request", "schedule" in on and "pull_request" in on
    yield "build runs on a hosted runner", "self-hosted" not in str(jobs["build"]["runs-on"])
    yield "build uploads the binary", any("upload-artifact" in u for u in uses(jobs["build"]))
    yield "shards need build", needs(shards) == ["build"]
    yield "shards: matrix of GPU kinds and shards 1..SHARDS", matrix["shard"] == list(range(1, n + 1)) and len(matrix["gpu"]) >= 1
    yield "shards run on self-hosted runners chosen by GPU label", (
        "self-hosted" in shards["runs-on"] and "gpu-${{ matrix.gpu }}" in shards["runs-on"])
    yield "shards call run --shard I/N --run-set", re.search(
        r'abbench run .*--shard "\$SHARD/\$SHARDS" --run-set', steps_text(shards).replace("\\\n", " ")) is not None
    text = steps_text(gate)
    yield "gate needs build and shards (needs.build is read)", set(needs(gate)) == {"build", "shards"}
    yield "gate merges the shards", "abbench merge" in text
    yield "gate reads the baseline from the history branch", 'git fetch --depth=1 origin "$HISTORY_BRANCH"' in text
    yield "gate: the cache is only restored (a speed-up)", (
        any("cache/restore" in u for u in uses(gate)) and not any("cache/save" in u for u in uses(gate)))
    yield "gate runs nightly.sh's gate step on the run set", re.search(
        r'scripts/nightly\.sh --init --step gate "set:\$set" nightly', text) is not None
    yield "recheck needs gate and runs on the GPU runners", (
        "gate" in needs(recheck) and "self-hosted" in recheck["runs-on"] and "gpu-${{ matrix.gpu }}" in recheck["runs-on"])
    yield "recheck measures again with nightly.sh --step recheck", "scripts/nightly.sh --step recheck" in steps_text(recheck)
    yield "verdict needs recheck, runs --step verdict", (
        "recheck" in needs(verdict) and "scripts/nightly.sh --step verdict" in steps_text(verdict))
    yield "verdict uploads the report", any("upload-artifact" in u for u in uses(verdict))
    text = steps_text(comment)
    yield "comment: pull requests only", "github.event_name == 'pull_request'" in comment.get("if", "")
    yield "comment: the marker is a hidden HTML comment", re.fullmatch(r"<!--.*-->", wf["env"]["MARKER"]) is not None
    yield "comment: finds the marked comment with gh api, PATCHes it, else POSTs", (
        '"$MARKER"' in text and "gh api --paginate" in text and "--method PATCH" in text and "--method POST" in text)
    yield "comment: never a new comment per push (no gh pr comment)", "gh pr comment" not in text
    text = steps_text(history)
    yield "history: main only, never pull requests", (
        "refs/heads/main" in history.get("if", "") and "github.event_name != 'pull_request'" in history.get("if", ""))
    yield "history: pushes the history branch, one writer at a time", (
        'git push -q origin "HEAD:refs/heads/$HISTORY_BRANCH"' in text and "group" in history.get("concurrency", {}))
    yield "history: may write contents", history.get("permissions", {}).get("contents") == "write"
    yield "history: caches the new tip for the next gate", any("cache/save" in u for u in uses(history))
    blocks = [s["run"] for j in jobs.values() for s in j.get("steps", []) if "run" in s]
    yield "no ${{ }} inside a run block (values through env:)", not any("${{" in b for b in blocks)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        wf = yaml.safe_load(f)
    bad = 0
    for what, ok in checks(wf):
        print(("ok - " if ok else "not ok - ") + what)
        bad += not ok
    os.makedirs(argv[2], exist_ok=True)
    k = 0
    for name, job in wf["jobs"].items():
        for step in job.get("steps", []):
            if "run" not in step:
                continue
            k += 1
            body = "#!/usr/bin/env bash\nset -e\n" + re.sub(r"\$\{\{[^}]*\}\}", "EXPR", step["run"])
            paths = [f"{k:02d}-{name}.sh"] + ([f"{name}.{step['id']}.sh"] if "id" in step else [])
            for p in paths:
                with open(os.path.join(argv[2], p), "w", encoding="utf-8") as f:
                    f.write(body)
    print(f"{k} run blocks written")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
