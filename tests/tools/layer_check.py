#!/usr/bin/env python3
"""layer_check.py [ROOT]

Checks the layer rule of docs/ARCHITECTURE.md by reading the #include lines
of every C, CUDA and header file under ROOT/harness and ROOT/kernels:

    common < store | backend < config < arms < run < analysis < print < cli

A file in harness/LAYER/ includes only its own layer or layers below it;
store and backend are siblings (neither includes the other). backend/cuda/
is the CUDA backend's private folder: it may include backend/ and below,
and nothing outside backend/cuda/ includes it. kernels/ sits beside common/
at the bottom: any layer may include it, and it includes nothing from
harness/. harness/ and kernels/ files spell their includes from the include
roots ("store/store.h", "kernels/common/bf16.h"), never relative to
themselves ("../", or a bare name of their own folder).

Two rules more than the order: analysis/ computes and judges from what it
is handed and reads no file, so it includes nothing from store/ and no
config/ header whose module opens files (config/X.h where config/X.c calls
fopen, open, opendir, ini_parse, ...); print/ formats what analysis/
computed, so it includes nothing from backend/ (a kernel's operation name is
the summary's, not attrib's).

An include is classified by the file it names: relative to the including
file first, then by its first path component
when that is a layer or "kernels". Includes that name neither (a CUDA or
system header in quotes, a header outside the tree) are not judged. Prints
one line per violation and exits 1 when there is any; a source file in a
harness/ folder that is not a known layer is one too (a new folder needs
its place in ORDER and in docs/ARCHITECTURE.md).
"""
import os
import re
import sys

ORDER = {"common": 0, "store": 1, "backend": 1, "backend/cuda": 1, "config": 2, "arms": 3, "run": 4,
         "analysis": 5, "print": 6, "cli": 7}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".c", ".h", ".cu", ".cuh")


def layer_of(rel):
    """The layer of a path relative to ROOT: 'kernels', a harness layer, or None."""
    parts = rel.split("/")
    if parts[0] == "kernels":
        return "kernels"
    if parts[0] != "harness" or len(parts) < 3:
        return None
    if parts[1] == "backend" and len(parts) >= 4 and parts[2] == "cuda":
        return "backend/cuda"
    return parts[1] if parts[1] in ORDER else None


def target_of(root, src_rel, inc):
    """(layer, relative) of what `#include "inc"` in src_rel names."""
    here = os.path.dirname(os.path.join(root, src_rel))
    local = os.path.normpath(os.path.join(here, inc))
    if os.path.exists(local):
        rel = os.path.relpath(local, root)
        if not rel.startswith(".."):
            return layer_of(rel), True
    first = inc.split("/")[0]
    if first == "kernels":
        return "kernels", False
    if first == "backend" and inc.startswith("backend/cuda/"):
        return "backend/cuda", False
    if first in ORDER:
        return first, False
    if first == "harness":
        return layer_of(inc) or "harness", False
    return None, False


OPENS_FILES = re.compile(r'\b(fopen|freopen|fdopen|open|openat|opendir|ini_parse|sqlite3_open\w*|mkstemp|popen|dlopen|infile_open)\s*\(')


def opens_files(root, inc):
    """Whether the module of config header inc (config/X.h) opens files:
    its config/X.c calls one of OPENS_FILES."""
    base = os.path.splitext(inc)[0] + ".c"
    path = os.path.join(root, "harness", base)
    if not os.path.exists(path):
        return False
    return OPENS_FILES.search(open(path, errors="replace").read()) is not None


def extra_rule(root, src, dst, inc):
    """The rules beside the order; a message when inc breaks one."""
    if src == "analysis" and dst == "store":
        return "analysis reads no file: it includes nothing from store/ (the cli loads the runs)"
    if src == "analysis" and dst == "config" and opens_files(root, inc):
        return "analysis reads no file: %s's module opens files" % inc
    if src == "print" and dst in ("backend", "backend/cuda"):
        return "print formats computed results: it includes nothing from backend/"
    return None


def allowed(src, dst):
    if dst is None or src == dst:
        return True
    if src == "kernels":
        return False                # kernels/ never includes harness/
    if dst == "kernels":
        return True
    if dst == "backend/cuda":
        return False                # private to the CUDA backend
    if src == "backend/cuda" and dst == "backend":
        return True
    if dst == "harness":
        return False
    return ORDER[dst] < ORDER[src]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = checked = 0
    for top in ("harness", "kernels"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                rel = os.path.relpath(os.path.join(d, name), root)
                src = layer_of(rel)
                if src is None:
                    print(f"{rel}: not in a known layer folder: give its folder a place in ORDER "
                          f"(tests/tools/layer_check.py) and in docs/ARCHITECTURE.md")
                    bad += 1
                    continue
                for n, line in enumerate(open(os.path.join(root, rel), errors="replace"), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    checked += 1
                    inc = m.group(1)
                    dst, relative = target_of(root, rel, inc)
                    roots = tuple(l + "/" for l in ORDER) + ("kernels/",)
                    if (relative and not inc.startswith(roots)) or inc.startswith(("./", "../")):
                        print(f"{rel}:{n}: relative include \"{inc}\": spell it from the include root")
                        bad += 1
                    if not allowed(src, dst):
                        print(f"{rel}:{n}: {src} includes \"{inc}\" ({dst}): not below {src}")
                        bad += 1
                    elif extra_rule(root, src, dst, inc):
                        print(f"{rel}:{n}: {src} includes \"{inc}\": {extra_rule(root, src, dst, inc)}")
                        bad += 1
    print(f"{checked} includes checked, {bad} violations")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
