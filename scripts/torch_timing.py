#!/usr/bin/env python3
"""Times PyTorch's own eager chain for every case of a scenario, with the
harness's protocol (L2 flushed by a memset of an L2-sized buffer before
every rep, CUDA events around the chain, median of --reps after --warmup),
so that abbench's eager arm can be held to within 15% of it on the same GPU
in the same session. Prints one line per case and writes CSV with --csv.
"""
import argparse
import configparser
import csv
import statistics
import sys

import torch
import torch.nn.functional as F


def parse_cases(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    cp.read(path)
    for sec in cp.sections():
        if sec.startswith("case "):
            c = cp[sec]
            shape = [int(v) for v in c["shape"].split("x")]
            yield sec[5:].strip(), c["site"], shape, float(c.get("eps", "1e-5")), c.get("affine", "false") == "true"


def make_chain(site, shape, eps, affine):
    dev, bf = "cuda", torch.bfloat16
    g = torch.Generator(device=dev).manual_seed(1)
    rnd = lambda *s: torch.randn(*s, device=dev, generator=g, dtype=torch.float32).to(bf)
    n = shape[-1]
    w = (1 + 0.1 * rnd(n)) if affine else None
    b = (0.1 * rnd(n)) if affine else None
    if site in ("ln_modulate", "ln_continuous"):
        x, scale, shift = rnd(*shape), 0.5 * rnd(shape[0], shape[2]), 0.5 * rnd(shape[0], shape[2])
        return lambda: F.layer_norm(x, (n,), w, b, eps) * (1 + scale).unsqueeze(1) + shift.unsqueeze(1)
    if site == "qk_layernorm":
        q, k = rnd(*shape), rnd(*shape)
        return lambda: (F.layer_norm(q, (n,), w, b, eps), F.layer_norm(k, (n,), w, b, eps))
    if site == "residual_gate_add":
        x, ff, gate = rnd(*shape), rnd(*shape), 0.5 * rnd(shape[0], shape[2])
        return lambda: x + ff * gate.unsqueeze(1)
    raise ValueError(site)


def time_chain(fn, l2, reps, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        l2.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1000.0)
    return statistics.median(times), min(times), max(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--csv")
    a = ap.parse_args()
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    l2 = torch.empty(l2_bytes, dtype=torch.uint8, device="cuda")
    rows = []
    for name, site, shape, eps, affine in parse_cases(a.scenario):
        med, lo, hi = time_chain(make_chain(site, shape, eps, affine), l2, a.reps, a.warmup)
        rows.append((name, site, "x".join(map(str, shape)), med, lo, hi))
        print(f"torch eager {name:<20} {site:<18} {rows[-1][2]:<16} median {med:9.2f} us  (min {lo:.2f}, max {hi:.2f}, n={a.reps})")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "site", "shape", "torch_median_us", "torch_min_us", "torch_max_us"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
