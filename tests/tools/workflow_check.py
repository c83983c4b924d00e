#!/usr/bin/env python3
"""Checks .github/workflows/nightly.yml and writes its shell out for lint.

    workflow_check.py WORKFLOW.yml OUTDIR

Parses the YAML (python3-yaml) and checks the recipe's shape: a build job
on a hosted runner; a shards job whose matrix crosses GPU kinds with shard
numbers 1..SHARDS, runs on [self-hosted, ..., gpu-KIND] and calls
`abbench run --shard "$SHARD/$SHARDS" --run-set`; a gate job that merges,
gates a run set against the baseline, uploads the report and comments with
`gh pr comment`. Every `run:` block is written to OUTDIR/NN-JOB.sh with the
${{ ... }} expressions replaced by a plain word, for `bash -n` and
shellcheck. Exit 1 with the failed checks listed.
"""
import os
import re
import sys

import yaml


def steps_text(job):
    return "\n".join(s.get("run", "") for s in job.get("steps", []))


def checks(wf):
    jobs = wf["jobs"]
    on = wf.get("on", wf.get(True))
    shards, gate = jobs["shards"], jobs["gate"]
    matrix = shards["strategy"]["matrix"]
    n = int(wf["env"]["SHARDS"])
    uses = [s.get("uses", "") for s in gate["steps"]]
    yield "triggers: schedule and pull_request", "schedule" in on and "pull_request" in on
    yield "build runs on a hosted runner", "self-hosted" not in str(jobs["build"]["runs-on"])
    yield "build uploads the binary", any("upload-artifact" in s.get("uses", "") for s in jobs["build"]["steps"])
    yield "shards need build", shards["needs"] == "build"
    yield "shards: matrix of GPU kinds and shards 1..SHARDS", matrix["shard"] == list(range(1, n + 1)) and len(matrix["gpu"]) >= 1
    yield "shards run on self-hosted runners chosen by GPU label", (
        "self-hosted" in shards["runs-on"] and "gpu-${{ matrix.gpu }}" in shards["runs-on"])
    yield "shards call run --shard I/N --run-set", re.search(
        r'abbench run .*--shard "\$SHARD/\$SHARDS" --run-set', steps_text(shards).replace("\\\n", " ")) is not None
    yield "gate needs shards", gate["needs"] == "shards"
    text = steps_text(gate)
    yield "gate merges the shards", "abbench merge" in text
    yield "gate gates the run set against the nightly baseline", re.search(r'abbench gate "set:\$set" --baseline nightly', text) is not None
    yield "gate writes the report", "abbench report" in text
    yield "gate uploads the report", any("upload-artifact" in u for u in uses)
    yield "gate comments with gh", "gh pr comment" in text
    yield "gate keeps the baseline database", any("cache/restore" in u for u in uses) and any("cache/save" in u for u in uses)


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
            if "run" in step:
                k += 1
                body = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", step["run"])
                with open(os.path.join(argv[2], f"{k:02d}-{name}.sh"), "w", encoding="utf-8") as f:
                    f.write("#!/usr/bin/env bash\nset -e\n" + body)
    print(f"{k} run blocks written")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
