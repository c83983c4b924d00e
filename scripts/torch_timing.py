#!/usr/bin/env python3
"""Times PyTorch's own eager chain for every case of a scenario, with the
harness's protocol (L2 flushed by a memset of an L2-sized buffer before
every rep, CUDA events around the chain, median of --reps after --warmup),
so that abbench's eager arm can be held to within 15% of it on the same GPU
in the same session. Each site's chain comes from kernels/<site>/torch_chain.py
(scripts/site_chains.py). Prints one line per case and writes CSV with --csv.
"""
import argparse
import configparser
import csv
import statistics
import sys

import torch

import site_chains


def parse_cases(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    cp.read(path)
    for sec in cp.sections():
        if sec.startswith("case "):
            c = cp[sec]
            shape = [int(v) for v in c["shape"].split("x")]
            yield sec[5:].strip(), c["site"], shape, float(c.get("eps", "1e-5")), c.get("affine", "false") == "true"


def make_chain(chains, site, shape, eps, affine):
    """A callable running the site's eager chain on random inputs of shape."""
    mod = chains.get(site)
    if mod is None:
        raise ValueError("no kernels/*/torch_chain.py serves site " + site)
    g = torch.Generator(device="cuda").manual_seed(1)
    rnd = lambda *s: torch.randn(*s, device="cuda", generator=g, dtype=torch.float32).to(torch.bfloat16)
    inp = mod.inputs(shape, rnd, affine)
    return lambda: mod.chain(inp, eps)


def time_chain(fn, l2, reps, warmup):
    """Events around the chain as Python launches it (launch gaps included)."""
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


def time_graph(fn, l2, reps, warmup):
    """The same chain captured in a CUDA graph and replayed: PyTorch's kernels
    without Python's dispatch gaps (the fair match for a chain launched from C)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return time_chain(g.replay, l2, reps, warmup)


def kernel_profile(fn, reps):
    """Per kernel of the chain: launches per call and mean self time (us),
    from PyTorch's profiler (CUPTI underneath)."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    out = []
    for ev in prof.key_averages():
        if ev.device_type == torch.autograd.DeviceType.CUDA and ev.count:
            total = getattr(ev, "self_device_time_total", None) or getattr(ev, "self_cuda_time_total", 0)
            out.append((ev.key, ev.count / reps, total / ev.count))
    return out


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
    chains = site_chains.load()
    for name, site, shape, eps, affine in parse_cases(a.scenario):
        fn = make_chain(chains, site, shape, eps, affine)
        med, lo, hi = time_chain(fn, l2, a.reps, a.warmup)
        gmed, glo, ghi = time_graph(fn, l2, a.reps, a.warmup)
        kernels = kernel_profile(fn, 20)
        ksum = sum(c * t for _, c, t in kernels)
        shp = "x".join(map(str, shape))
        rows.append((name, site, shp, med, lo, hi, gmed, ksum, len(kernels), sum(c for _, c, _ in kernels)))
        print(f"torch eager {name:<20} {shp:<16} python-launched median {med:8.2f} us | graph replay median "
              f"{gmed:8.2f} us (min {glo:.2f}) | kernel sum {ksum:8.2f} us (n={a.reps})")
        for k, c, t in kernels:
            print(f"    {c:4.1f} x {t:8.2f} us  {k[:110]}")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "site", "shape", "torch_median_us", "torch_min_us", "torch_max_us",
                        "torch_graph_median_us", "torch_kernel_sum_us", "distinct_kernels", "launches_per_call"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
