#!/usr/bin/env python3
"""divergence_check.py CASE_DUMP_DIR DIFF_JSON [--case NAME]

Checks `abbench diff --format json` against an independent numpy
computation from the .npy files `abbench run --dump` wrote for the case
(CASE_DUMP_DIR: DUMP/CASE, holding A1_<arm a>_<tensor>.npy and
B_<arm b>_<tensor>.npy). For every output of the B slot: the elements
whose bits differ (count and %), the ULP histogram (ordered-integer
distance: a float's key is its magnitude bits, or -magnitude - 1 with the
sign set; NaN has none), class mismatches (NaN / Inf / finite), NaN
payloads, sign flips, the largest ULP and its first index, the largest
|B - A| of pairs finite on both sides and its first index, the first
differing index, the rows (vectors along the last axis) touched. Nothing
here comes from abbench's code: only the dumped bytes and the document's
claims. A tensor both arms dumped that the document does not list must be
byte-equal. Prints each figure that disagrees, then a table (a row per
tensor: its figures as numpy has them and how many abbench states alike); exit 0 when every
figure agrees, 1 when one does not, 2 on bad input. Needs numpy
(/usr/bin/python3 on the CPU machines, /opt/torch/.venv/bin/python3 on
the GPU machine).
"""
import json
import os
import sys

import numpy as np

BITS = {"bf16": (np.uint16, 0x8000, 0x7F80), "f16": (np.uint16, 0x8000, 0x7C00), "f32": (np.uint32, 0x80000000, 0x7F800000)}


def values(bits, dtype):
    """The float values of raw bits (bf16 widened to f32 exactly)."""
    if dtype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return bits.view(np.float16 if dtype == "f16" else np.float32).astype(np.float64)


def figures(a_file, b_file, dtype):
    """Every figure of one tensor from its two dumps."""
    ut, sign, inf = BITS[dtype]
    a = np.load(a_file).view(ut).reshape(-1).astype(np.int64)
    b = np.load(b_file).view(ut).reshape(-1).astype(np.int64)
    shape = np.load(a_file, mmap_mode="r").shape
    if a.shape != b.shape:
        raise ValueError(f"{a_file} and {b_file} differ in size")
    diff = a != b
    mag_a, mag_b = a & (sign - 1), b & (sign - 1)
    cls_a = np.where(mag_a > inf, 2, np.where(mag_a == inf, 1, 0))
    cls_b = np.where(mag_b > inf, 2, np.where(mag_b == inf, 1, 0))
    key_a = np.where(a & sign, -mag_a - 1, mag_a)
    key_b = np.where(b & sign, -mag_b - 1, mag_b)
    measured = diff & (cls_a == cls_b) & (cls_a != 2)
    ulp = np.abs(key_a - key_b)
    idx = np.flatnonzero(diff)
    f = {"differing": int(diff.sum()), "elements": int(a.size)}
    f["percent"] = 100.0 * f["differing"] / f["elements"] if a.size else 0.0
    edges = [(1, 1), (2, 2), (3, 10), (11, 1000), (1001, None)]
    names = ["1", "2", "3-10", "11-1000", ">1000"]
    u = ulp[measured]
    for n, (lo, hi) in zip(names, edges):
        f["ulp " + n] = int(((u >= lo) & ((u <= hi) if hi else True)).sum())
    f["class_mismatches"] = int((diff & (cls_a != cls_b)).sum())
    f["nan_payloads"] = int((diff & (cls_a == 2) & (cls_b == 2)).sum())
    f["sign_flips"] = int((measured & ((a & sign) != (b & sign))).sum())
    if measured.any():
        m = np.where(measured, ulp, -1)
        f["max_ulp"], f["max_ulp index"] = int(m.max()), int(np.argmax(m))
    else:
        f["max_ulp"], f["max_ulp index"] = None, None
    fin = measured & (cls_a == 0)
    if fin.any():
        d = np.where(fin, np.abs(values(b.astype(ut), dtype) - values(a.astype(ut), dtype)), -1.0)
        f["max_abs"], f["max_abs index"] = float(d.max()), int(np.argmax(d))
    else:
        f["max_abs"], f["max_abs index"] = None, None
    f["first index"] = int(idx[0]) if idx.size else None
    row = shape[-1] if len(shape) else 1
    f["rows_touched"] = int(np.unique(idx // row).size) if idx.size else 0
    return f


def claims(t):
    """The same figures as the document states them."""
    h = t["ulp_histogram"]
    c = {"differing": t["differing"], "elements": t["elements"], "percent": t["percent"]}
    for n in ("1", "2", "3-10", "11-1000", ">1000"):
        c["ulp " + n] = h[n]
    for k in ("class_mismatches", "nan_payloads", "sign_flips"):
        c[k] = t[k]
    c["max_ulp"] = t["max_ulp"]["ulp"] if t["max_ulp"] else None
    c["max_ulp index"] = t["max_ulp"]["index"] if t["max_ulp"] else None
    c["max_abs"] = t["max_abs"]["abs_diff"] if t["max_abs"] else None
    c["max_abs index"] = t["max_abs"]["index"] if t["max_abs"] else None
    c["first index"] = t["first"]["index"] if t["first"] else None
    c["rows_touched"] = t["rows_touched"]
    return c


def same(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return x is not None and y is not None and abs(x - y) <= 1e-9 * max(1.0, abs(x))
    return x == y


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    case_dir, doc = argv[1], json.load(open(argv[2]))
    case = doc["case"]["name"]
    rows, bad = [], 0
    slots = [s for s in doc["slots"] if s["label"] == "B"]
    listed = {t["tensor"]: t for s in slots for t in s["tensors"]}
    a_arm, b_arm = doc["case"]["arm_a"], doc["case"]["arm_b"]
    if not os.path.isdir(case_dir):
        print(f"divergence_check: no directory {case_dir}", file=sys.stderr)
        return 2
    outs = sorted(f[len("A1_" + a_arm) + 1:-4] for f in os.listdir(case_dir)
                  if f.startswith("A1_" + a_arm + "_") and os.path.exists(os.path.join(case_dir, f"B_{b_arm}_" + f[len("A1_" + a_arm) + 1:])))
    if not outs:
        print(f"divergence_check: no A1/B dumps of case '{case}' in {case_dir}", file=sys.stderr)
        return 2
    for name in outs:
        a_file = os.path.join(case_dir, f"A1_{a_arm}_{name}.npy")
        b_file = os.path.join(case_dir, f"B_{b_arm}_{name}.npy")
        if name not in listed:  # abbench found it byte-equal (a tensor both arms write)
            eq = np.array_equal(np.load(a_file).view(np.uint8), np.load(b_file).view(np.uint8))
            rows.append((case, name, 0, "0", "-", "-", "byte-equal", "1/1" if eq else "0/1 MISMATCH"))
            bad += not eq
            continue
        t = listed[name]
        mine, theirs = figures(a_file, b_file, t["dtype"]), claims(t)
        wrong = [k for k in mine if not same(mine[k], theirs[k])]
        for k in wrong:
            print(f"MISMATCH {case} {name} {k}: abbench {theirs[k]}, numpy {mine[k]}")
        bad += len(wrong)
        hist = "/".join(str(mine["ulp " + n]) for n in ("1", "2", "3-10", "11-1000", ">1000"))
        rows.append((case, name, mine["differing"], f"{mine['percent']:.4g}", mine["max_ulp"], mine["first index"], hist,
                     f"{len(mine) - len(wrong)}/{len(mine)}" + (" MISMATCH" if wrong else "")))
    head = ("case", "tensor", "differing", "%", "max ULP", "first", "ULPs 1/2/3-10/11-1000/>1000", "figures agree")
    w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    print()
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
    for r in rows:
        print("  ".join(str(v).ljust(w[i]) for i, v in enumerate(r)))
    print(f"divergence_check: {case}: " + ("every figure agrees with numpy" if not bad else f"{bad} figure(s) DISAGREE"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
