#!/usr/bin/env python3
"""golden_norm.py - replaces the fields that differ from run to run in the
outputs of tests/cli/t400-golden-outputs.sh, so that the same build of the
same code prints the same golden bytes on any machine and at any time.

    golden_norm.py EXPORT.json FILE...     rewrites each FILE in place

The run's uuid, commit and device driver are read from EXPORT.json (an abbench.export
document of the run) and replaced wherever they appear; times of day
(started, finished) wherever they appear; the host where it is printed
(JSON's "host", the report's provenance line); the device's driver (the
CPU backend's is the host's kernel release); the binary's path (build/
or build-san/: the command line); each slot's wall time (elapsed_s: the fake timer models sample times, not
the slot's host time) in the JSON export and in the report's Sampling
table; the test's own temporary directory and the checkout's path.
Nothing else is touched: every figure abbench computes stays as printed.
"""
import json
import os
import re
import sys


def literals(export_paths):
    """(value, placeholder) pairs, longest value first."""
    pairs = []
    for path in export_paths:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)["run"]
        if len(run.get("uuid") or "") >= 8:
            pairs.append((run["uuid"], "<uuid>"))
        if re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?", run.get("git_commit") or ""):
            pairs.append((run["git_commit"], "<commit>"))
        driver = (run.get("device") or {}).get("driver_version") or ""
        if len(driver) >= 4:  # the CPU backend's is the host's kernel: "linux 6.18.44-..."
            pairs.append((driver, "<driver>"))
    for env, name in (("T", "<T>"), ("ROOT", "<ROOT>"), ("AB", "<abbench>")):
        v = os.environ.get(env)
        if v:
            pairs.append((v, name))
    return sorted(set(pairs), key=lambda p: -len(p[0]))


def json_escaped(v):
    return json.dumps(v)[1:-1]


ELAPSED = re.compile(r'("elapsed_s": )[-0-9.e+]+')
# the Sampling table's full rows: ... | warm-up | samples | discarded | stopped by | slot time (s) | noise |
SLOT_TIME = re.compile(r"^(\| .* \| \d+ \| \d+ \| \d+ \| [a-z_\\]+ \| )\d+\.\d{3}( \| \d+\.\d\d% \|)$", re.M)
HOST_JSON = re.compile(r'("host": )"(?:[^"\\]|\\.)*"')
HOST_MD = re.compile(r"^(- abbench .*, host ).*$", re.M)  # the provenance line, not a host time ("GPU 4.05 us, host 5.000 ms")
TIMESTAMP = re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\dZ?\b")


def normalise(text, pairs):
    for v, name in pairs:
        text = text.replace(v, name)
        esc = json_escaped(v)
        if esc != v:
            text = text.replace(esc, name)
    text = ELAPSED.sub(r"\g<1>0", text)
    text = SLOT_TIME.sub(r"\g<1>0.000\g<2>", text)
    text = HOST_JSON.sub(r'\g<1>"<host>"', text)
    text = HOST_MD.sub(r"\g<1><host>", text)
    return TIMESTAMP.sub("<time>", text)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: golden_norm.py EXPORT.json[,EXPORT.json...] FILE...")
    pairs = literals(sys.argv[1].split(","))
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(normalise(text, pairs))


if __name__ == "__main__":
    main()
