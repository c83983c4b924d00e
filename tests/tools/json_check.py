#!/usr/bin/env python3
"""Validates a JSON document against its schema in docs/JSON.md.

    json_check.py DOC.md FORMAT FILE

The schema of FORMAT is the ```json block after the line
"<!-- schema: FORMAT -->" in DOC.md; the block after "<!-- schema: defs -->"
is merged into its "$defs". Exit 0 when FILE is valid, 1 with the
errors listed when not, 2 on bad usage or a missing schema.
"""
import json
import re
import sys

import jsonschema


def schema_blocks(text):
    blocks = {}
    for m in re.finditer(r"<!-- schema: (\S+) -->\s*```json\n(.*?)\n```", text, re.S):
        blocks[m.group(1)] = json.loads(m.group(2))
    return blocks


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        blocks = schema_blocks(f.read())
    if argv[2] not in blocks:
        print(f"json_check: no schema '{argv[2]}' in {argv[1]}", file=sys.stderr)
        return 2
    schema = blocks[argv[2]]
    schema.setdefault("$defs", {}).update(blocks.get("defs", {}))
    with open(argv[3], encoding="utf-8") as f:
        doc = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:20]:
        print(f"{argv[3]}: {'/'.join(str(p) for p in e.path) or '(top)'}: {e.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
