#!/usr/bin/env python3
"""abjson.py - abbench's results as its public interface gives them, for
the GPU stage scripts (scripts/gpu/*.sh): the JSON documents of `abbench
export|show|list --format json` (docs/JSON.md), never the database's
tables or a report's markdown. Standard library only: the GPU machine's
python3 runs it as well as the venv's.

As a module (tables.py imports it): load, slot_md5s, us, arm_slots.
As a command, one answer a line for the scripts' checks:

  abjson.py exact SHOW.json yes|no      cases whose B is (not) byte-equal to A1
  abjson.py kernels EXPORT.json [ARM]   distinct kernel names of ARM's slots (b), '; '-joined
  abjson.py md5s EXPORT.json SLOT       per case, SLOT's outputs' md5s ('+'-joined), space-separated
  abjson.py longest EXPORT.json ARM     the longest sample (wall ns) of ARM's slots
  abjson.py get DOC.json PATH           a field: run.status, run.device.uuid, cases.0.name ...
  abjson.py count DOC.json PATH         how many items a list field has: cases, runs ...
  abjson.py runs LIST.json              per run: id, status, label (tab-separated), newest first
  abjson.py newest LIST.json SCENARIO   the id of the scenario's newest 'ok' run ('' when none)
  abjson.py slots EXPORT.json           per case: slots, samples, slots stopped at max_samples
  abjson.py times EXPORT.json TAG       per case: A1 and B medians, B kernel median, B byte-equal
  abjson.py verdicts COMPARE.json [V..] 'N same, M differ': compare's cases held the same (same,
                                        within_floors) and called faster or slower; with
                                        verdicts V, how many cases have one of them

A file named - is standard input. Exit status 0; 2 with a one-line
message for a file that is not the document asked for.
"""
import json
import os
import sys

FORMAT_VERSION = 2


def load(path, fmt=None):
    """The document at path, checked to be abbench's (of format fmt)."""
    if path == "-":
        doc = json.load(sys.stdin)
    else:
        with open(path) as f:
            doc = json.load(f)
    if not isinstance(doc, dict) or not str(doc.get("format", "")).startswith("abbench."):
        raise ValueError(f"{path}: not an abbench JSON document")
    if fmt and doc["format"] != fmt:
        raise ValueError(f"{path}: a {doc['format']} document, not {fmt}")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path}: format_version {doc.get('format_version')}, this reader knows {FORMAT_VERSION}")
    return doc


def us(ns, digits=2):
    """ns in microseconds as text, 'n/a' when unknown."""
    return "n/a" if ns is None else f"{ns / 1e3:.{digits}f}"


def slot_md5s(slot, width=8):
    """An exported slot's outputs' md5s, each cut to width, '+'-joined."""
    return "+".join(o["md5"][:width] for o in slot["outputs"])


def arm_slots(case, arm):
    """An exported or shown case's slots of arm 'a' or 'b'."""
    return [s for s in case["slots"] if s["arm"] == arm]


def slot(case, label):
    """The slot called label ('A1', 'B' ...) of a case, None without one."""
    return next((s for s in case["slots"] if s["label"] == label), None)


def field(doc, path):
    """doc's field at a dotted path (list items by index)."""
    v = doc
    for part in path.split("."):
        v = v[int(part)] if isinstance(v, list) else v[part]
    return v


def text(v):
    """A JSON value as the shell wants it: '' for null, true/false lower-case."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if isinstance(v, str) else json.dumps(v)


def cmd_exact(path, want):
    doc = load(path, "abbench.show")
    equal = want == "yes"
    return [str(sum(1 for c in doc["cases"] if c["summary"]["b_byte_equal"] == equal))]


def cmd_kernels(path, arm="b"):
    doc = load(path, "abbench.export")
    names = []
    for c in doc["cases"]:
        for s in arm_slots(c, arm):
            for k in s["kernels"]:
                if k["name"] not in names:
                    names.append(k["name"])
    return ["; ".join(names)]


def cmd_md5s(path, label):
    doc = load(path, "abbench.export")
    return [" ".join(slot_md5s(s, 32) for c in doc["cases"] for s in c["slots"] if s["label"] == label)]


def cmd_longest(path, arm):
    doc = load(path, "abbench.export")
    samples = [x for c in doc["cases"] for s in arm_slots(c, arm) for x in s["samples_ns"] if x is not None]
    return [f"{max(samples):.0f}" if samples else ""]


def cmd_get(path, key):
    return [text(field(load(path), key))]


def cmd_count(path, key):
    return [str(len(field(load(path), key)))]


def cmd_runs(path):
    return [f"{r['id']}\t{r['status']}\t{r['label']}" for r in load(path, "abbench.list")["runs"]]


def cmd_slots(path):
    doc = load(path, "abbench.export")
    slots = [s for c in doc["cases"] for s in c["slots"]]
    capped = sum(1 for s in slots if s["stopping_reason"] == "max_samples")
    return [f"{len(slots)} {sum(s['n_samples'] for s in slots)} {capped}"]


def cmd_times(path, tag):
    doc = load(path, "abbench.export")
    out = []
    for c in doc["cases"]:
        a, b = slot(c, "A1"), slot(c, "B")
        if not a or not b:
            continue
        exact = all(o["bit_exact"] for o in b["outputs"])
        out.append(f"{tag:<14} {c['name']:<18} A1 {us(a['median_ns']):>9} us  B {us(b['median_ns']):>9} us  "
                   f"B kernels {us(b['kernel_median_ns']):>9} us  exact {'yes' if exact else 'NO'}")
    return out


def cmd_newest(path, scenario):
    ids = [r["id"] for r in load(path, "abbench.list")["runs"] if r["scenario"] == scenario and r["status"] == "ok"]
    return [str(ids[0]) if ids else ""]


def cmd_verdicts(path, *wanted):
    v = [c["verdict"] for c in load(path, "abbench.compare")["cases"]]
    if wanted:
        return [str(sum(1 for x in v if x in wanted))]
    same = sum(1 for x in v if x in ("same", "within_floors"))
    return [f"{same} same, {sum(1 for x in v if x in ('faster', 'slower'))} differ"]


COMMANDS = {"exact": cmd_exact, "kernels": cmd_kernels, "md5s": cmd_md5s, "longest": cmd_longest, "get": cmd_get,
            "count": cmd_count, "runs": cmd_runs, "newest": cmd_newest, "verdicts": cmd_verdicts, "slots": cmd_slots, "times": cmd_times}


def main(argv):
    if len(argv) < 3 or argv[1] not in COMMANDS:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        lines = COMMANDS[argv[1]](*argv[2:])
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print(f"abjson.py {argv[1]}: {e}", file=sys.stderr)
        return 2
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that wanted the first lines only (head, grep -q)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
