#!/usr/bin/env python3
"""text_columns.py FILE - checks that the text tables of `abbench show`
and `abbench run` (print/figure_fmt.c: figure_text_table) are in line.

A table starts at a head line ("case  shape ..." or "  slot  arm ...")
and runs over the lines after it with the same indent and at least three
cells (a line indented deeper, a note under a slot's row, is skipped).
Cells are separated by two spaces or more. For every row: it has at least the head's columns
(run's table may add the case's own arms after the last), and each cell
starts where its head starts (a left-aligned word column) or ends where its
head ends (a right-aligned number column). Prints "ok - ..." or the first
misaligned line, exits 1 when any table is out of line.
"""
import re
import sys

CELL = re.compile(r"\S+(?: \S+)*")
HEADS = (re.compile(r"^case  +shape  "), re.compile(r"^  slot  +arm  "))


def spans(line):
    return [(m.start(), m.end()) for m in CELL.finditer(line)]


def aligned(head, row):
    """Whether each of the head's columns is in line in row."""
    if len(row) < len(head):
        return False
    for (hs, he), (rs, re_) in zip(head, row):
        if hs != rs and he != re_:
            return False
    return True


def main():
    lines = open(sys.argv[1]).read().split("\n")
    tables = bad = 0
    i = 0
    while i < len(lines):
        if not any(h.match(lines[i]) for h in HEADS):
            i += 1
            continue
        tables += 1
        indent = len(lines[i]) - len(lines[i].lstrip(" "))
        head = spans(lines[i])
        i += 1
        rows = 0
        while i < len(lines) and lines[i].strip():
            ind = len(lines[i]) - len(lines[i].lstrip(" "))
            if ind > indent:  # a note under a slot's row
                i += 1
                continue
            cells = spans(lines[i])
            if ind < indent or len(cells) < 3:  # the prose after the table
                break
            if not aligned(head, cells):
                print(f"not ok - out of line with its head: {lines[i]!r}")
                bad += 1
            rows += 1
            i += 1
        if not rows:
            print(f"not ok - a table without rows at line {i}")
            bad += 1
    if not tables:
        print("not ok - no table found")
        sys.exit(1)
    print(f"ok - {tables} tables, {bad} rows out of line")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
