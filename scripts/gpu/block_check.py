#!/usr/bin/env python3
"""The GLM-Image block at its real dims on the GPU, eager against fused,
without abbench (issue 22; scripts/gpu/block.sh runs it; docs/BLOCK.md):

    python3 scripts/gpu/block_check.py [--blocks N] [--no-triton] [--json FILE]
    python3 scripts/gpu/block_check.py --cpu-smoke      # tiny dims, CPU torch: the code's logic only

It calls the very functions abbench's Python arms will call,
examples/python/glm_block.py's block_* and step_* as fn(t, d), on seeded
inputs (img [1, 4096, 4096], txt [1, 264, 4096], temb [1, 512], bf16,
normal(0, 1)), with every fused path there is: 'abk' (abbench's CUDA
kernels through build/libabbench_kernels.so, built by `make` elsewhere and
carried; this script builds nothing) and 'triton' (the exact Triton
kernels). It:
  1. checks each site kind on block 0's own tensors: PyTorch's chain and
     each fused kernel on the same bytes, elements that differ;
  2. runs one block and one step (the 30 blocks and norm_out) per path and
     compares both streams' bytes with eager (torch.equal, md5), eager run
     twice too, and prints the streams' magnitudes block by block;
  3. times block and step, A/B/A (eager, each fused path, eager), with CUDA
     events around each call, the median of N after a warm-up, with an L2
     flush (a 256 MB write) before each rep and without;
  4. attributes one block's GPU time by kernel family with torch.profiler
     (GEMM, attention, LayerNorm, elementwise, fused, other), per path;
  5. prints a table last: block eager, block fused, the saving in us and %,
     per forward (the measured step, and 30 x the block + norm_out) and per
     30-step image of 2 forwards a step; md5 equal or not.
Exit status: 0 when every fused path that ran is byte-equal to eager
everywhere; 1 when one differs or a step failed; 2 without a GPU.
"""
import argparse
import hashlib
import json
import math
import os
import statistics
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "examples", "python"))

import glm_block as gb  # noqa: E402
import glm_model as gm  # noqa: E402

ARMS = {"eager": "eager", "abk": "fused", "triton": "fused_triton"}
FLUSH_BYTES = 256 << 20  # > 4x the H200's 60 MB L2


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=gm.STEP_BLOCKS, help="blocks per step (default: the model's 30)")
    ap.add_argument("--block-reps", type=int, default=30, help="timed reps of a block per slot")
    ap.add_argument("--step-reps", type=int, default=5, help="timed reps of a step per slot")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls before each slot")
    ap.add_argument("--no-triton", action="store_true", help="leave the Triton path out")
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--seed", type=int, default=gm.WEIGHT_SEED, help="the inputs' seed (weights: glm_model's)")
    ap.add_argument("--cpu-smoke", action="store_true",
                    help="tiny dims on the CPU with a torch stand-in for the fused kernels: checks this script's "
                    "and glm_block.py's logic, measures nothing")
    return ap.parse_args()


# ---- the environment: GPU, or the CPU smoke -----------------------------------


class Env:
    """torch, its functional API, the device, timers and the L2 flush."""

    def __init__(self, cpu):
        import torch
        import torch.nn.functional as F
        self.torch, self.cpu = torch, cpu
        self.dev = torch.device("cpu" if cpu else "cuda")
        self.F = F if hasattr(F, "scaled_dot_product_attention") else _with_math_sdpa(torch, F)
        self.flush_buf = None if cpu else torch.empty(FLUSH_BYTES, dtype=torch.int8, device=self.dev)

    def sync(self):
        if not self.cpu:
            self.torch.cuda.synchronize()

    def flush(self):
        if self.flush_buf is not None:
            self.flush_buf.zero_()

    def time_reps(self, fn, reps, warmup, flush):
        """us of each of reps calls of fn, each between two events (the
        host's clock on the CPU), after warmup untimed calls."""
        for _ in range(warmup):
            fn()
        self.sync()
        if self.cpu:
            out = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t0) * 1e6)
            return out
        ev = [(self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
        for start, end in ev:
            if flush:
                self.flush()
            start.record()
            fn()
            end.record()
        self.sync()
        return [start.elapsed_time(end) * 1000.0 for start, end in ev]


def _with_math_sdpa(torch, F):
    """F with a plain scaled_dot_product_attention, for the CPU smoke on a
    torch older than 2.0 (Debian's 1.13)."""

    def sdpa(q, k, v, dropout_p=0.0, is_causal=False):
        s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(q.shape[-1])
        return (s.softmax(-1) @ v.float()).to(q.dtype)

    ns = types.SimpleNamespace(**{n: getattr(F, n) for n in dir(F) if not n.startswith("__")})
    ns.scaled_dot_product_attention = sdpa
    return ns


class TorchKernels:
    """The CPU smoke's stand-in for a fused path: the sites' PyTorch chains
    written into the outputs. Byte-equal to eager by construction, so a
    difference in the smoke means glm_block's fused path wires a site to
    the wrong tensors."""

    def __init__(self, F):
        self.F = F

    def ln_modulate(self, x, scale, shift, out, eps):
        F = self.F
        out.copy_(F.layer_norm(x, (x.shape[-1], ), None, None, eps) * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1))

    def qk_layernorm(self, q, k, q_out, k_out, eps):
        q_out.copy_(self.F.layer_norm(q, (q.shape[-1], ), None, None, eps))
        k_out.copy_(self.F.layer_norm(k, (k.shape[-1], ), None, None, eps))

    def gate_add(self, x, y, gate, out):
        out.copy_(x + y * gate.unsqueeze(1))


# ---- inputs, arms, bytes -------------------------------------------------------


def make_case(env, dims, seed):
    """t and d as abbench gives them to a Python arm on CUDA."""
    torch = env.torch
    g = torch.Generator(device=env.dev)
    g.manual_seed(seed)
    rnd = lambda *shape: torch.randn(*shape, generator=g, device=env.dev, dtype=torch.float32).to(torch.bfloat16)
    t = dict(img=rnd(dims.batch, dims.img, dims.hidden), txt=rnd(dims.batch, dims.txt, dims.hidden),
             temb=rnd(dims.batch, dims.temb))
    t["img_out"] = torch.empty_like(t["img"])
    t["txt_out"] = torch.empty_like(t["txt"])
    axes = dict(B=dims.batch, I=dims.img, S=dims.txt, W=dims.hidden, H=dims.heads, E=dims.temb)
    d = dict(case="block_check", site="glm_block", axes=axes, dims=dict(axes), eps=gm.EPS, affine=False,
             backend="cuda", device=str(env.dev), stream=None, dtypes={k: "bf16" for k in t})
    return t, d


def arm_fn(env, kind, path, blocks):
    """kind 'block' or 'step'; a callable running it on (t, d)."""
    if env.cpu:
        kern = None if path == "eager" else TorchKernels(env.F)

        def fn(t, d):
            with env.torch.no_grad():
                dims = gm.dims_of(t, d)
                h, e = gb.forward(env.torch, env.F, path, dims, t["img"], t["txt"], t["temb"], d["eps"],
                                  1 if kind == "block" else blocks, kind == "step", kern=kern)
                t["img_out"].copy_(h)
                t["txt_out"].copy_(e)

        return fn
    if kind == "step" and blocks != gm.STEP_BLOCKS:
        gb_blocks = blocks

        def fn(t, d):
            with env.torch.no_grad():
                dims = gm.dims_of(t, d)
                h, e = gb.forward(env.torch, env.F, path, dims, t["img"], t["txt"], t["temb"], d["eps"], gb_blocks,
                                  True)
                t["img_out"].copy_(h)
                t["txt_out"].copy_(e)

        return fn
    return getattr(gb, f"{kind}_{ARMS[path]}")


def md5(torch, x):
    return hashlib.md5(x.contiguous().view(torch.int16).cpu().numpy().tobytes()).hexdigest()


def n_diff(torch, a, b):
    return int((a.view(torch.int16) != b.view(torch.int16)).sum())


def outputs(env, fn, t, d):
    """Runs fn once; copies of (img_out, txt_out)."""
    t["img_out"].fill_(float("nan"))
    t["txt_out"].fill_(float("nan"))
    fn(t, d)
    env.sync()
    return t["img_out"].clone(), t["txt_out"].clone()


def magnitudes(torch, x):
    v = x.float()
    return dict(finite=bool(torch.isfinite(v).all()), std=float(v.std()), max=float(v.abs().max()))


# ---- 1. the sites on block 0's own tensors --------------------------------------


def site_checks(env, dims, t, kerns):
    """Each site kind's PyTorch chain against each fused kernel set, on the
    tensors block 0 hands that site."""
    torch, F, eps = env.torch, env.F, gm.EPS
    w = gb.make_weights(torch, env.dev, dims, 0)
    rope = gb.rope_tables(torch, env.dev, dims)
    h, e, temb = t["img"], t["txt"], t["temb"]
    c = dict(zip(gm.ADA_CHUNKS, F.linear(temb, w["ada_w"], w["ada_b"]).chunk(12, dim=1)))
    eager_ln = lambda x, s, sh: F.layer_norm(x, (x.shape[-1], ), None, None, eps) * (1 + s.unsqueeze(1)) + sh.unsqueeze(1)
    nh, ne = eager_ln(h, c["scale_msa"], c["shift_msa"]), eager_ln(e, c["c_scale_msa"], c["c_shift_msa"])
    cases = {}
    captured = {}

    def qk_capture(q, k, eps_):
        captured.update(q=q, k=k)
        return F.layer_norm(q, (q.shape[-1], ), None, None, eps_), F.layer_norm(k, (k.shape[-1], ), None, None, eps_)

    attn_h, _ = gb.joint_attention(torch, F, w, nh, ne, rope, dims.heads, qk_capture, eps)
    rows = []
    for path, kern in kerns.items():
        for name, x, s, sh in (("ln_modulate image (norm1)", h, c["scale_msa"], c["shift_msa"]),
                               ("ln_modulate text (norm1_context)", e, c["c_scale_msa"], c["c_shift_msa"])):
            out = torch.empty_like(x)
            kern.ln_modulate(x, s.contiguous(), sh.contiguous(), out, eps)
            rows.append((name, path, n_diff(torch, eager_ln(x, s, sh), out), out.numel()))
        q, k = captured["q"], captured["k"]
        qo, ko = torch.empty_like(q), torch.empty_like(k)
        kern.qk_layernorm(q, k, qo, ko, eps)
        ref_q = F.layer_norm(q, (q.shape[-1], ), None, None, eps)
        ref_k = F.layer_norm(k, (k.shape[-1], ), None, None, eps)
        rows.append(("qk_layernorm q and k (joint)", path, n_diff(torch, ref_q, qo) + n_diff(torch, ref_k, ko),
                     2 * q.numel()))
        y = attn_h.contiguous()
        out = torch.empty_like(h)
        kern.gate_add(h, y, c["gate_msa"].contiguous(), out)
        rows.append(("gate_add image (gate_msa)", path, n_diff(torch, h + y * c["gate_msa"].unsqueeze(1), out),
                     out.numel()))
    env.sync()
    cases["rows"] = [dict(site=r[0], path=r[1], differing=r[2], elements=r[3]) for r in rows]
    print("\n== 1. each site on block 0's tensors: elements differing from PyTorch's chain ==")
    for r in rows:
        print(f"  {r[0]:36s} {r[1]:7s} {r[2]:>10d} of {r[3]}")
    return cases


# ---- 2. bytes and magnitudes ----------------------------------------------------


def equality(env, dims, t, d, paths, blocks):
    torch = env.torch
    res = {}
    print("\n== 2. outputs: bytes against eager (md5), both streams ==")
    for kind in ("block", "step"):
        ref = outputs(env, arm_fn(env, kind, "eager", blocks), t, d)
        again = outputs(env, arm_fn(env, kind, "eager", blocks), t, d)
        r = dict(eager_md5=[md5(torch, x) for x in ref],
                 eager_repeat_equal=all(torch.equal(a, b) for a, b in zip(ref, again)),
                 magnitudes=dict(img_out=magnitudes(torch, ref[0]), txt_out=magnitudes(torch, ref[1])), paths={})
        print(f"  {kind}: eager img_out {r['eager_md5'][0]}  txt_out {r['eager_md5'][1]}  "
              f"eager twice equal: {r['eager_repeat_equal']}")
        for path in paths:
            try:
                got = outputs(env, arm_fn(env, kind, path, blocks), t, d)
            except Exception as exc:  # reported, and the path leaves the timing
                r["paths"][path] = dict(error=f"{type(exc).__name__}: {exc}")
                print(f"  {kind}: {path}: FAILED: {type(exc).__name__}: {exc}")
                traceback.print_exc()
                continue
            p = dict(md5=[md5(torch, x) for x in got], differing=[n_diff(torch, a, b) for a, b in zip(ref, got)])
            p["equal"] = all(torch.equal(a, b) for a, b in zip(ref, got))
            r["paths"][path] = p
            print(f"  {kind}: {path:7s} img_out {p['md5'][0]}  txt_out {p['md5'][1]}  "
                  f"{'byte-equal' if p['equal'] else 'DIFFERS in %d + %d elements' % tuple(p['differing'])}")
        for name, m in r["magnitudes"].items():
            print(f"  {kind}: eager {name}: finite {m['finite']}, std {m['std']:.4g}, max |x| {m['max']:.4g}")
        res[kind] = r
    return res


def stream_magnitudes(env, dims, t, blocks):
    """The eager streams' std and max |x| after each block of a step."""
    torch, F = env.torch, env.F
    rope = gb.rope_tables(torch, env.dev, dims)
    h, e = t["img"], t["txt"]
    rows = []
    with torch.no_grad():
        for layer in range(blocks):
            w = gb.make_weights(torch, env.dev, dims, layer)
            h, e = gb.block_eager_fwd(torch, F, w, h, e, t["temb"], rope, dims.heads, gm.EPS)
            rows.append((layer, magnitudes(torch, h), magnitudes(torch, e)))
    print("\n   block  image std   max |x|   text std   max |x|   (eager, after the block)")
    for layer, mh, me in rows:
        if layer < 3 or layer == blocks - 1 or layer % 10 == 9:
            print(f"   {layer:5d}  {mh['std']:9.4g} {mh['max']:9.4g}  {me['std']:9.4g} {me['max']:9.4g}"
                  f"{'' if mh['finite'] and me['finite'] else '  NOT FINITE'}")
    return [dict(block=l, img=mh, txt=me) for l, mh, me in rows]


# ---- 3. timing, A/B/A -------------------------------------------------------------


def summarize(us):
    us = sorted(us)
    q = lambda f: us[min(len(us) - 1, int(f * (len(us) - 1) + 0.5))]
    return dict(median=statistics.median(us), p10=q(0.1), p90=q(0.9), n=len(us))


def bracket(env, kind, paths, t, d, blocks, reps, warmup, flush):
    """Slots A1 (eager), B (each fused path), A2 (eager)."""
    order = ["eager"] + list(paths) + ["eager"]
    slots = []
    for i, path in enumerate(order):
        fn = arm_fn(env, kind, path, blocks)
        us = env.time_reps(lambda: fn(t, d), reps, warmup, flush)
        slots.append(dict(slot="A1" if i == 0 else "A2" if i == len(order) - 1 else "B", path=path, **summarize(us),
                          samples=us))
    a = [u for s in slots if s["path"] == "eager" for u in s["samples"]]
    res = dict(slots=slots, eager=summarize(a), drift=abs(slots[-1]["median"] - slots[0]["median"]) /
               slots[0]["median"])
    for s in slots:
        if s["path"] != "eager":
            res[s["path"]] = {k: s[k] for k in ("median", "p10", "p90", "n")}
    return res


def timing(env, paths, t, d, blocks, args):
    print("\n== 3. timing: CUDA events around each call, median (p10-p90) of n, A/B/A ==")
    res = {}
    for kind, reps in (("block", args.block_reps), ("step", args.step_reps)):
        for flush in (True, False):
            key = f"{kind}_{'flush' if flush else 'noflush'}"
            r = bracket(env, kind, paths, t, d, blocks, reps, args.warmup, flush)
            res[key] = r
            line = "  ".join(f"{s['slot']} {s['path']} {s['median']:.1f} ({s['p10']:.1f}-{s['p90']:.1f}) n={s['n']}"
                             for s in r["slots"])
            print(f"  {key:14s} {line}  drift {100 * r['drift']:.2f}%")
    return res


# ---- 4. attribution ----------------------------------------------------------------

FAMILIES = (
    ("fused", ("ab_fused", "ln_modulate_welford", "qk_welford", "gate_add_exact")),
    ("LayerNorm", ("layer_norm", "layernorm")),
    ("attention", ("flash", "fmha", "attention", "sdpa", "cudnn")),
    ("GEMM", ("gemm", "gemv", "xmma", "cutlass", "nvjet", "cublas", "splitk", "addmm", "aten::mm")),
    ("elementwise", ("elementwise", "catarray", "copy", "memcpy", "memset", "fill", "reduce", "index")),
)


def family(name):
    low = name.lower()
    for fam, keys in FAMILIES:
        if any(k in low for k in keys):
            return fam
    return "other"


def kernel_times(prof, device="CUDA"):
    """{kernel name: (total us, launches)} of a torch.profiler run: its
    CUDA kernels (device "CPU": its CPU ops' self time, for the smoke)."""
    out = {}
    for e in prof.key_averages():
        if not str(getattr(e, "device_type", "")).endswith(device):
            continue
        if device == "CPU":
            us = e.self_cpu_time_total
        else:
            us = getattr(e, "self_device_time_total", None)
            if us is None:
                us = getattr(e, "self_cuda_time_total", 0)
        if us > 0:
            tot, n = out.get(e.key, (0.0, 0))
            out[e.key] = (tot + us, n + e.count)
    return out


def attribution(env, paths, t, d, blocks, reps=3):
    from torch.profiler import ProfilerActivity, profile
    print("\n== 4. one block's GPU time by kernel family (torch.profiler, mean of %d blocks, us) ==" % reps)
    res = {}
    for path in ["eager"] + list(paths):
        fn = arm_fn(env, "block", path, blocks)
        fn(t, d)
        env.sync()
        acts = [ProfilerActivity.CPU] + ([] if env.cpu else [ProfilerActivity.CUDA])
        with profile(activities=acts) as prof:
            for _ in range(reps):
                fn(t, d)
            env.sync()
        fams = {}
        for name, (us, n) in kernel_times(prof, "CPU" if env.cpu else "CUDA").items():
            f = fams.setdefault(family(name), dict(us=0.0, launches=0, kernels={}))
            f["us"] += us / reps
            f["launches"] += n / reps
            f["kernels"][name] = us / reps
        res[path] = fams
    names = [f for f, _ in FAMILIES] + ["other"]
    print("  family        " + "".join(f"{p:>20s}" for p in res))
    for f in names:
        cells = "".join(f"{res[p].get(f, {}).get('us', 0):12.1f} ({res[p].get(f, {}).get('launches', 0):4.0f} k)"
                        for p in res)
        print(f"  {f:12s}  {cells}")
    total = {p: sum(v["us"] for v in res[p].values()) for p in res}
    print("  total         " + "".join(f"{total[p]:12.1f}        " for p in res))
    for p in res:
        top = sorted(((us, n) for fam in res[p].values() for n, us in fam["kernels"].items()), reverse=True)[:6]
        print(f"  {p} top kernels: " + "; ".join(f"{n[:60]} {us:.1f}" for us, n in top))
    return res


def launch_counts_ok(att, paths):
    """The fused block launches 9 fused kernels (4 LN + modulate, 1 qk, 4
    gates) and no LayerNorm; eager 6 LayerNorms (4 + q + k) and no fused."""
    notes = []
    eager = att.get("eager", {})
    if round(eager.get("LayerNorm", {}).get("launches", 0)) != 6 or eager.get("fused"):
        notes.append(f"eager: {eager.get('LayerNorm', {}).get('launches', 0):.0f} LayerNorm launches (6 expected), "
                     f"{eager.get('fused', {}).get('launches', 0):.0f} fused")
    for p in paths:
        f = att.get(p, {})
        if round(f.get("fused", {}).get("launches", 0)) != 9 or f.get("LayerNorm"):
            notes.append(f"{p}: {f.get('fused', {}).get('launches', 0):.0f} fused launches (9 expected), "
                         f"{f.get('LayerNorm', {}).get('launches', 0):.0f} LayerNorm")
    return notes


# ---- 5. the table --------------------------------------------------------------------


def final_table(dims, paths, eq, tm, blocks):
    print("\n== glm_block: GLM-Image DiT block, %d image + %d text tokens, hidden %d (%d x %d), temb %d, bf16 ==" %
          (dims.img, dims.txt, dims.hidden, dims.heads, dims.head_dim, dims.temb))
    print(f"{'':46s}{'eager us (p10-p90)':>32s}{'fused us (p10-p90)':>32s}{'n A/B':>9s}{'saving us':>11s}"
          f"{'saving %':>9s}  bytes equal (md5)")
    rows = []
    for path in paths:
        if path not in tm.get("block_flush", {}):
            continue
        for kind, label in (("block", "block"), ("step", f"step ({blocks} blocks + norm_out)")):
            for fl in ("flush", "noflush"):
                r = tm[f"{kind}_{fl}"]
                ea, fb = r["eager"], r[path]
                a, b = ea["median"], fb["median"]
                equal = eq[kind]["paths"][path]["equal"]
                rows.append(dict(path=path, kind=kind, flush=fl == "flush", eager=ea, fused=fb, saving_us=a - b,
                                 saving_pct=100 * (a - b) / a, equal=equal))
                cell = lambda x: f"{x['median']:.1f} ({x['p10']:.1f}-{x['p90']:.1f})"
                print(f"{path + ' ' + label + (', L2 flushed' if fl == 'flush' else ', no flush'):46s}"
                      f"{cell(ea):>32s}{cell(fb):>32s}{str(ea['n']) + '/' + str(fb['n']):>9s}{a - b:11.1f}"
                      f"{100 * (a - b) / a:8.2f}%  {'yes' if equal else 'NO'} ({eq[kind]['paths'][path]['md5'][0][:8]})")
    print()
    for path in paths:
        if path not in tm.get("block_flush", {}):
            continue
        for fl in ("flush", "noflush"):
            s, b = tm[f"step_{fl}"], tm[f"block_{fl}"]
            fa, fb = s["eager"]["median"], s[path]["median"]
            # 30 x the block, plus norm_out's share from the step: not measured alone, so not added.
            pa, pb = gm.BLOCKS * b["eager"]["median"], gm.BLOCKS * b[path]["median"]
            scale = gm.BLOCKS / blocks
            print(f"{path}, {'L2 flushed' if fl == 'flush' else 'no flush'}:")
            print(f"  per forward, measured step x {scale:g}: eager {scale * fa / 1e3:.2f} ms, fused "
                  f"{scale * fb / 1e3:.2f} ms, saving {scale * (fa - fb) / 1e3:.3f} ms ({100 * (fa - fb) / fa:.2f}%)")
            print(f"  per forward, 30 x block:           eager {pa / 1e3:.2f} ms, fused {pb / 1e3:.2f} ms, "
                  f"saving {(pa - pb) / 1e3:.3f} ms ({100 * (pa - pb) / pa:.2f}%)")
            per_image = 30 * 2 * scale
            print(f"  per 30-step image (2 forwards a step, from the step): eager {per_image * fa / 1e6:.3f} s, "
                  f"fused {per_image * fb / 1e6:.3f} s, saving {per_image * (fa - fb) / 1e6:.3f} s")
    return rows


# ---- main ----------------------------------------------------------------------------------


def run_checks(env, dims, t, d, kerns, args, res):
    """Sections 1 to 5 on the fused kernel sets kerns ({path: Kernels});
    fills res; returns the exit status (0, or 1 when bytes differ)."""
    torch, notes, paths = env.torch, res["notes"], list(kerns)
    with torch.no_grad():
        res["sites"] = site_checks(env, dims, t, kerns)
    res["equality"] = eq = equality(env, dims, t, d, paths, args.blocks)
    res["magnitudes"] = stream_magnitudes(env, dims, t, args.blocks)
    timed = [p for p in paths if all("error" not in eq[k]["paths"].get(p, {}) for k in ("block", "step"))]
    res["timing"] = tm = timing(env, timed, t, d, args.blocks, args)
    try:
        res["attribution"] = att = attribution(env, timed, t, d, args.blocks, reps=1 if env.cpu else 3)
        for n in [] if env.cpu else launch_counts_ok(att, timed):
            notes.append(n)
            print(f"  NOTE: {n}")
    except Exception as exc:
        notes.append(f"attribution failed: {type(exc).__name__}: {exc}")
        traceback.print_exc()
    res["table"] = final_table(dims, timed, eq, tm, args.blocks)
    bad = [f"{k} {p}" for k in ("block", "step") for p, r in eq[k]["paths"].items() if not r.get("equal")]
    sites_bad = [f"{r['site']} {r['path']}" for r in res["sites"]["rows"] if r["differing"]]
    print(f"\nmd5 equal: {'every fused path, block and step' if not bad else 'NO: ' + ', '.join(bad)}; "
          f"sites: {'all byte-equal' if not sites_bad else 'differ: ' + ', '.join(sites_bad)}; "
          f"eager deterministic: {all(eq[k]['eager_repeat_equal'] for k in eq)}")
    for n in notes:
        print(f"note: {n}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1, default=str)
    return 1 if bad or sites_bad or not paths else 0


def torch_vs_numpy(env, dims, t, blocks):
    """The torch model and the numpy stand-in, both eager, on the numpy
    stand-in's weights: within bf16 rounding of each other."""
    import glm_block_np as nb
    import numpy as np
    torch = env.torch
    print("\n== the torch model against the numpy stand-in (same weights, both eager, bf16) ==")
    h, e, temb = (nb.to_bf16(x.float().numpy()) for x in (t["img"], t["txt"], t["temb"]))
    as_torch = lambda a: torch.from_numpy(nb.to_f32(a)).to(torch.bfloat16)
    weights = lambda layer, table: {k: as_torch(v) for k, v in nb.make_weights(dims, layer, table=table).items()}
    ok = True
    for n, norm_out in ((1, False), (blocks, True)):
        nh, ne = nb.forward(dims, h, e, temb, gm.EPS, False, n, norm_out)
        with torch.no_grad():
            th, te = gb.forward(torch, env.F, "eager", dims, t["img"], t["txt"], t["temb"], gm.EPS, n, norm_out,
                                weights=weights)
        for name, a, b in (("image", th, nh), ("text", te, ne)):
            ref = nb.to_f32(b).astype(np.float64)
            err = float(np.abs(a.float().numpy().astype(np.float64) - ref).max() / max(ref.std(), 1e-30))
            good = err < (0.05 if n == 1 else 0.5)
            ok = ok and good
            print(f"  {n} block(s){' + norm_out' if norm_out else ''}, {name}: max |torch - numpy| / std "
                  f"{err:.4f} {'ok' if good else 'TOO FAR'}")
    return ok


def cpu_smoke(args):
    env = Env(cpu=True)
    dims = gm.Dims(1, 16, 8, 64, 2, 16).check()
    t, d = make_case(env, dims, args.seed)
    args = argparse.Namespace(**{**vars(args), "block_reps": 3, "step_reps": 2, "warmup": 1})
    res = dict(device="cpu", dims=dims.__dict__, blocks=args.blocks, notes=[])
    status = run_checks(env, dims, t, d, {"abk": TorchKernels(env.F)}, args, res)  # TorchKernels as 'abk'
    ok = torch_vs_numpy(env, dims, t, args.blocks)
    print(f"\ncpu smoke: {'fused path wiring differs' if status else 'fused path wiring ok'}; "
          f"torch vs numpy {'ok' if ok else 'TOO FAR'}")
    return 0 if ok and not status else 1


def main():
    args = parse_args()
    if args.cpu_smoke:
        return cpu_smoke(args)
    try:
        import torch
    except ImportError as exc:
        print(f"block_check: no torch ({exc})")
        return 2
    if not torch.cuda.is_available():
        print("block_check: torch sees no CUDA device")
        return 2
    t0 = time.time()
    env = Env(cpu=False)
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, "
          f"L2 {getattr(props, 'L2_cache_size', 0) / 1e6:.0f} MB; torch {torch.__version__}")
    dims = gm.real_dims()
    t, d = make_case(env, dims, args.seed)
    res = dict(device=props.name, torch=torch.__version__, dims=dims.__dict__, blocks=args.blocks, notes=[])
    kerns = {}
    for path in gb.FUSED_PATHS:
        if path == "triton" and args.no_triton:
            continue
        try:
            kerns[path] = gb.kernels(path)
        except Exception as exc:
            res["notes"].append(f"{path}: not available: {type(exc).__name__}: {exc}")
            print(f"block_check: fused path {path} not available: {type(exc).__name__}: {exc}")
    w0 = time.time()
    with torch.no_grad():
        for layer in range(args.blocks):
            gb.make_weights(torch, env.dev, dims, layer)
        gb.make_weights(torch, env.dev, dims, gm.NORM_OUT_LAYER, table=gm.OUT_WEIGHTS)
    env.sync()
    print(f"weights: {args.blocks} blocks + norm_out drawn in {time.time() - w0:.1f} s, "
          f"{torch.cuda.memory_allocated() / 1e9:.1f} GB allocated")
    status = run_checks(env, dims, t, d, kerns, args, res)
    print(f"block_check: {time.time() - t0:.0f} s, exit {status}")
    return status


if __name__ == "__main__":
    sys.exit(main())
