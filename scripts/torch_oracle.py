#!/usr/bin/env python3
"""PyTorch oracle for an `abbench run --dump DIR` directory.

Loads each case's inputs, runs PyTorch's own eager chain on the GPU (the
same ops GLM-Image calls, read from the site's kernels/<site>/torch_chain.py
through scripts/site_chains.py), and checks torch.equal against every dumped
arm output, plus the per-row mean and rstd of every arm that computes them
(abbench dumps them for the eager chains and twopass only) against aten's
native_layer_norm. One line per case and arm; exit status 1 on any
mismatch, 2 on unusable input.

With --cpu-dump DIR2 (a --dump of the same scenario made with --backend
cpu) it also cross-checks the GPU eager LayerNorm's mean against the CPU
backend's, bit for bit, and reports how many rows differ in rstd and by how
many ulp (the GPU uses the approximate rsqrtf, the CPU 1/sqrtf).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

import site_chains


def load(d, rel, device):
    a = np.load(os.path.join(d, rel))
    if a.dtype == np.uint16:
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16).to(device)
    return torch.from_numpy(a.copy()).to(device)


def torch_outputs(case, inp, chains):
    """PyTorch's eager outputs and (mean, rstd) per LayerNorm input tensor."""
    mod = chains.get(case["site"])
    if mod is None:
        raise ValueError("no kernels/*/torch_chain.py serves site " + case["site"])
    return mod.chain(inp, case["eps"]), mod.stats(inp, case["eps"])


def describe_mismatch(ref, got):
    ne = (ref.view(torch.int16) != got.view(torch.int16)).flatten()
    n = int(ne.sum())
    i = int(ne.nonzero()[0]) if n else -1
    return n, i


def check_case(d, case, device, chains):
    inp = {k: load(d, v, device) for k, v in case["inputs"].items()}
    outs, stats = torch_outputs(case, inp, chains)
    failures = 0
    for slot in case["slots"]:
        bad = []
        for name, ref in outs.items():
            got = load(d, slot["files"][name], device).view(ref.shape)
            if not torch.equal(ref.view(torch.int16), got.view(torch.int16)):
                n, i = describe_mismatch(ref, got)
                bad.append(f"{name}: {n} of {ref.numel()} differ, first at {i}")
        # Statistics are dumped only for the arms that compute them (the
        # eager chains, twopass: what each arm writes, from its case's
        # plan); every one the manifest lists is checked, and an eager
        # slot must list them.
        for prefix, (mean, rstd) in stats.items():
            for what, ref in (("mean", mean), ("rstd", rstd)):
                key = prefix + what
                if key not in slot["files"]:
                    if slot["variant"] == "eager":
                        bad.append(f"{key}: not dumped for the eager arm")
                    continue
                got = load(d, slot["files"][key], device).view(ref.shape)
                if not torch.equal(ref.view(torch.int32), got.view(torch.int32)):
                    n = int((ref.view(torch.int32) != got.view(torch.int32)).sum())
                    bad.append(f"{key}: {n} of {ref.numel()} rows differ")
        verdict = "equal" if not bad else "MISMATCH " + "; ".join(bad)
        print(f"{case['name']:<20} {slot['slot']:<3} {slot['variant']:<8} torch.equal: {verdict}")
        failures += bool(bad)
    return failures


def ulp_distance(a, b):
    ai = a.view(np.int32).astype(np.int64)
    bi = b.view(np.int32).astype(np.int64)
    ai = np.where(ai < 0, -(ai & 0x7FFFFFFF), ai)
    bi = np.where(bi < 0, -(bi & 0x7FFFFFFF), bi)
    return np.abs(ai - bi)


def cross_check_cpu(gpu_dir, cpu_dir, gm, cm):
    """GPU eager mean == CPU eager mean bit for bit; rstd differences in ulp."""
    failures = 0
    cpu_cases = {c["name"]: c for c in cm["cases"]}
    for case in gm["cases"]:
        c2 = cpu_cases.get(case["name"])
        if c2 is None:
            continue
        g_eager = next((s for s in case["slots"] if s["variant"] == "eager"), None)
        c_eager = next((s for s in c2["slots"] if s["variant"] == "eager"), None)
        if g_eager is None or c_eager is None:
            continue
        for key in sorted(g_eager["files"]):
            if not key.endswith("mean"):
                continue
            gm_ = np.load(os.path.join(gpu_dir, g_eager["files"][key]))
            cm_ = np.load(os.path.join(cpu_dir, c_eager["files"][key]))
            rk = key[:-4] + "rstd"
            gr = np.load(os.path.join(gpu_dir, g_eager["files"][rk]))
            cr = np.load(os.path.join(cpu_dir, c_eager["files"][rk]))
            both_nan = np.isnan(gm_) & np.isnan(cm_)
            mean_diff = int(((gm_.view(np.int32) != cm_.view(np.int32)) & ~both_nan).sum())
            fin = np.isfinite(gr) & np.isfinite(cr)
            ulps = ulp_distance(gr[fin], cr[fin])
            rows_r = int((ulps != 0).sum())
            max_ulp = int(ulps.max()) if ulps.size else 0
            ok = mean_diff == 0
            failures += not ok
            print(f"{case['name']:<20} cpu-vs-gpu {key:<7} mean: {mean_diff} of {gm_.size} rows differ "
                  f"({'bit-equal' if ok else 'MISMATCH'}); rstd: {rows_r} rows differ, max {max_ulp} ulp")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dump", help="directory written by abbench run --dump on the GPU")
    ap.add_argument("--cpu-dump", help="the same scenario dumped with --backend cpu")
    args = ap.parse_args()
    try:
        m = json.load(open(os.path.join(args.dump, "manifest.json")))
    except (OSError, ValueError) as e:
        print(f"torch_oracle: cannot read {args.dump}/manifest.json: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_oracle: no CUDA device for PyTorch", file=sys.stderr)
        return 2
    chains = site_chains.load()
    failures = sum(check_case(args.dump, c, "cuda", chains) for c in m["cases"])
    if args.cpu_dump:
        cm = json.load(open(os.path.join(args.cpu_dump, "manifest.json")))
        failures += cross_check_cpu(args.dump, args.cpu_dump, m, cm)
    print(f"torch_oracle: {failures} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
