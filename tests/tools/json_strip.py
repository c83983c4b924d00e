#!/usr/bin/env python3
"""Prints a JSON document without what differs between two runs of the
same measurements: run identity (id, label, uuid, run_set, shard, set_runs),
times (started_at, finished_at, elapsed_s) and the command line.

    json_strip.py FILE

Sorted keys, one canonical form, so that `cmp` compares two documents.
"""
import json
import sys

DROP = {"id", "label", "uuid", "run_set", "shard", "set_runs", "started_at", "finished_at", "elapsed_s", "command_line"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in DROP}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        json.dump(strip(json.load(f)), sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
