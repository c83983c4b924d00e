#!/usr/bin/env python3
"""The GPU check of the Python arms of the GLM sites (examples/python/glm_sites.py)
and of the PR lineage's sites (examples/python/lineage_sites.py), without
abbench: scripts/gpu/lineage.sh runs it on the GPU machine.

For every case (GLM-Image's sites at glm_1024.ini's shapes, the lineage's at
their PRs' shapes, and the lineage's kernels at odd shapes), on seeded
inputs of five kinds (normal; offset 1000; constant rows; NaN, +-Inf,
+-max and subnormals injected; values near 1e-20, whose squares are float
subnormals), it builds t as abbench will (the site's tensors by name, torch
tensors on the GPU) and d (axes, eps), calls the eager arm and each fused
arm on the same input bytes, and counts the output elements whose bf16 bytes
differ (torch.equal when none). It also checks that no arm writes an input,
that glm_sites' eager chains give the bytes of the oracle's chains
(kernels/*/torch_chain.py), and, for qk_rmsnorm, which lane-fold order
PyTorch's mean uses here (rows whose mean differs from each emulated order).
On normal inputs at the main shapes it times every arm with
triton.testing.do_bench (L2 flushed before every rep, median), next to a
plain copy of the activation, and names the CUDA kernels each arm launches
(torch.profiler). A table comes last.

    python3 scripts/gpu/lineage_check.py [--json FILE] [--no-bench] [--only SUBSTRING]

--cpu-dry-run (development, no GPU): the same logic on the CPU at small
shapes, the Triton kernels through tests/tools/lineage_triton_emu.py's
emulation, PyTorch CPU as the eager arms (bytes not comparable to the GPU's;
nothing timed).

Exit status: 0 when every kernel that claims exactness is byte-equal to its
eager arm on every input, no arm wrote an input and the GLM eager arms equal
the oracle's chains; 1 otherwise; 2 without torch, Triton or a GPU.
"""
import argparse
import configparser
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for p in (os.path.join(REPO, "examples", "python"), os.path.join(REPO, "scripts", "triton"),
          os.path.join(REPO, "scripts")):
    sys.path.insert(0, p)

# The built-in sites' tensors the arms use (kernels/<site>/site.c): name -> (axes, role).
GLM_TENSORS = {
    "ln_modulate": {"x": ("BTW", "in"), "scale": ("BW", "in"), "shift": ("BW", "in"), "out": ("BTW", "out")},
    "qk_layernorm": {"q": ("BTHD", "in"), "k": ("BTHD", "in"), "q_out": ("BTHD", "out"), "k_out": ("BTHD", "out")},
    "residual_gate_add": {"x": ("BTW", "in"), "ff": ("BTW", "in"), "gate": ("BW", "in"), "out": ("BTW", "out")},
}
GLM_TENSORS["ln_continuous"] = GLM_TENSORS["ln_modulate"]

# (case, module, site, shape, eps, eager, [(fused, claims exact)], timed)
CASES = [
    ("img_ln_modulate", "glm_sites", "ln_modulate", (1, 4096, 4096), 1e-5, "ln_modulate_eager",
     [("ln_modulate_triton", True)], True),
    ("txt_ln_modulate", "glm_sites", "ln_modulate", (1, 264, 4096), 1e-5, "ln_modulate_eager",
     [("ln_modulate_triton", True)], True),
    ("ln_continuous", "glm_sites", "ln_continuous", (1, 4096, 4096), 1e-5, "ln_modulate_eager",
     [("ln_modulate_triton", True)], False),
    ("qk_layernorm", "glm_sites", "qk_layernorm", (1, 4360, 32, 128), 1e-5, "qk_layernorm_eager",
     [("qk_layernorm_triton", True)], True),
    ("img_gate_add", "glm_sites", "residual_gate_add", (1, 4096, 4096), 1e-5, "residual_gate_add_eager", [], True),
    ("txt_gate_add", "glm_sites", "residual_gate_add", (1, 264, 4096), 1e-5, "residual_gate_add_eager", [], True),
    ("modulate_scale_shift", "lineage_sites", "modulate_scale_shift", (1, 4096, 3072), 1e-5,
     "modulate_scale_shift_eager", [("modulate_scale_shift_triton", True),
                                    ("modulate_scale_shift_triton_f32", False)], True),
    ("rmsnorm_scale_shift", "lineage_sites", "rmsnorm_scale_shift", (1, 4216, 4096), 1e-6,
     "rmsnorm_scale_shift_eager", [("rmsnorm_scale_shift_triton", True),
                                   ("rmsnorm_scale_shift_triton_naive", False)], True),
    ("qk_rmsnorm", "lineage_sites", "qk_rmsnorm", (1, 4096, 24, 128), 1e-5, "qk_rmsnorm_eager",
     [("qk_rmsnorm_triton", True), ("qk_rmsnorm_triton_up", False), ("qk_rmsnorm_triton_f32", False)], True),
    # odd shapes: rows and lengths off the kernels' blocks (checked, not timed)
    ("modulate_odd", "lineage_sites", "modulate_scale_shift", (2, 33, 1000), 1e-5, "modulate_scale_shift_eager",
     [("modulate_scale_shift_triton", True)], False),
    ("rmsnorm_odd", "lineage_sites", "rmsnorm_scale_shift", (2, 37, 3000), 1e-6, "rmsnorm_scale_shift_eager",
     [("rmsnorm_scale_shift_triton", True)], False),
    ("qk_rmsnorm_odd", "lineage_sites", "qk_rmsnorm", (2, 50, 3, 128), 1e-5, "qk_rmsnorm_eager",
     [("qk_rmsnorm_triton", True)], False),
]
DEVICE = "cuda"  # "cpu" under --cpu-dry-run
INPUTS = ("normal", "offset_1000", "constant_rows", "special", "tiny")
AXES = {"ln_modulate": "BTW", "ln_continuous": "BTW", "residual_gate_add": "BTW", "qk_layernorm": "BTHD"}


def declared_site(site):
    """(axes letters, {tensor: (axes, role)}) from scenarios/sites/SITE.ini."""
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    cp.read(os.path.join(REPO, "scenarios", "sites", site + ".ini"))
    sec = cp["site " + site]
    tensors = {}
    for item in sec["tensors"].split(", "):
        name, dtype, dims, role = item.strip().split(":")
        assert dtype == "bf16", f"{site}: tensor {name} is {dtype}; this check makes bf16 tensors only"
        tensors[name] = (dims.replace(",", ""), "in" if role == "input" else "out")
    return sec["axes"].replace(" ", ""), tensors


def draw(torch, gen, shape, name, kind):
    """One input tensor (bf16 on the GPU): parameters from their own
    distributions, activations from the input kind."""
    rnd = lambda: torch.randn(shape, device=DEVICE, generator=gen, dtype=torch.float32)
    if name in ("scale", "shift", "gate"):
        return (0.5 * rnd()).to(torch.bfloat16)
    if name.endswith("weight"):
        return (1.0 + 0.1 * rnd()).to(torch.bfloat16)
    v = rnd()
    if kind == "offset_1000":
        v = v + 1000.0
    elif kind == "constant_rows":
        v = v[..., :1].expand(shape).contiguous()
    elif kind == "tiny":
        v = v * 1e-20
    elif kind == "special":
        flat = v.view(-1, shape[-1])
        rows = torch.arange(flat.shape[0], device=DEVICE)
        vals = torch.tensor([float("nan"), float("inf"), float("-inf"), 3.3895e38, -3.3895e38], device=DEVICE)
        flat[rows, (7 * rows) % shape[-1]] = vals[rows % 5]
        flat[rows, (7 * rows + 3) % shape[-1]] = 1e-39  # bf16 subnormals
        flat[rows, (7 * rows + 5) % shape[-1]] = -2e-40
    return v.to(torch.bfloat16)


def build(torch, case, kind, seed):
    name, _, site, shape, eps, _, _, _ = case
    if site in GLM_TENSORS:
        letters, tensors = AXES[site], GLM_TENSORS[site]
    else:
        letters, tensors = declared_site(site)
    axes = dict(zip(letters, shape))
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    t = {}
    for tname, (dims, role) in tensors.items():
        tshape = tuple(axes[c] for c in dims)
        t[tname] = draw(torch, gen, tshape, tname, kind) if role == "in" else torch.empty(
            tshape, device=DEVICE, dtype=torch.bfloat16)
    stream = torch.cuda.current_stream().cuda_stream if DEVICE == "cuda" else None
    d = dict(case=name, site=site, axes=axes, dims={}, eps=eps, affine=False, backend="cuda", device=DEVICE + ":0",
             stream=stream, dtypes={k: "bf16" for k in t})
    outs = [k for k, (_, role) in tensors.items() if role == "out"]
    return t, d, outs


def sync(torch):
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def call(torch, fn, t, d, outs):
    """fn(t, d) with the outputs poisoned first; returns copies of the outputs."""
    for k in outs:
        t[k].fill_(float("nan"))
    fn(t, d)
    sync(torch)
    return {k: t[k].clone() for k in outs}


def differing(torch, ref, got):
    n = sum(int((ref[k].view(torch.int16) != got[k].view(torch.int16)).sum()) for k in ref)
    if n == 0:
        assert all(torch.equal(ref[k].view(torch.int16), got[k].view(torch.int16)) for k in ref)
    return n


def oracle_differing(torch, chains, case, t, ref):
    """glm_sites' eager chain against kernels/<site>/torch_chain.py's."""
    out = chains[case[2]].chain(t, case[4])
    sync(torch)
    return differing(torch, ref, {k: out[k] for k in ref})


def kernel_names(torch, fn, t, d):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(t, d)
        torch.cuda.synchronize()
    names = []
    for e in prof.events():
        dev = getattr(e, "device_type", None)
        if dev is not None and "CUDA" in str(dev):
            names.append(e.name)
    return names


def short(names):
    """'vectorized_layer_norm_kernel<...>' x1, ...: kernel names without
    template arguments, counted."""
    seen = []
    for n in names:
        s = n.split("<")[0].split("(")[0].replace("void ", "").split("::")[-1]
        if seen and seen[-1][0] == s:
            seen[-1][1] += 1
        else:
            seen.append([s, 1])
    return ", ".join(s if c == 1 else f"{s} x{c}" for s, c in seen)


def bench_us(triton, fn):
    return 1000.0 * triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def qk_order(torch, t):
    """Rows of q whose mean of squares (PyTorch's own reduce_kernel) differs
    from each emulated lane-fold order: decreasing offsets 8..1 and
    increasing 1..8 (16 lanes of 8 contiguous squares each). On normal
    inputs and on wide-range ones, where the order decides more bits."""
    res = {}
    for label, x in (("normal", t["q"]), ("wide", (t["q"].float() * torch.exp2(
            torch.randint(-12, 13, t["q"].shape, device=DEVICE).float())).to(torch.bfloat16))):
        sq = x.pow(2)
        ms = sq.mean(-1).view(-1)
        lanes = sq.float().view(-1, 16, 8)
        acc = lanes[:, :, 0].clone()
        for i in range(1, 8):
            acc = acc + lanes[:, :, i]
        for order in ("decreasing", "increasing"):
            s = acc
            while s.shape[1] > 1:
                h = s.shape[1] // 2
                s = s[:, :h] + s[:, h:] if order == "decreasing" else s[:, 0::2] + s[:, 1::2]
            em = (s[:, 0] * (1.0 / 128.0)).to(torch.bfloat16)
            res[f"{label}_{order}"] = int((em.view(torch.int16) != ms.view(torch.int16)).sum())
        res[f"{label}_rows"] = ms.numel()
    return res


def run_case(torch, triton, modules, chains, case, args, log):
    name, module, site, shape, eps, eager_name, fused, timed = case
    mod = modules[module]
    eager = getattr(mod, eager_name)
    rows = {eager_name: dict(arm=eager_name, role="eager", exact=None, diff={}, errors=[])}
    for f, exact in fused:
        rows[f] = dict(arm=f, role="fused", exact=exact, diff={}, errors=[])
    extra = {}
    for ki, kind in enumerate(INPUTS):
        t, d, outs = build(torch, case, kind, seed=20261203 + 101 * ki)
        inputs = {k: v.clone() for k, v in t.items() if k not in outs}
        try:
            ref = call(torch, eager, t, d, outs)
        except Exception:
            rows[eager_name]["errors"].append(f"{kind}: {traceback.format_exc(limit=2)[-600:]}")
            continue
        if site in chains:
            extra.setdefault("oracle", {})[kind] = oracle_differing(torch, chains, case, t, ref)
        for f, _ in fused:
            try:
                rows[f]["diff"][kind] = differing(torch, ref, call(torch, getattr(mod, f), t, d, outs))
            except Exception:
                rows[f]["errors"].append(f"{kind}: {traceback.format_exc(limit=3)[-900:]}")
        wrote = [k for k, v in inputs.items() if not torch.equal(v.view(torch.int16), t[k].view(torch.int16))]
        if wrote:
            extra.setdefault("inputs_written", {})[kind] = wrote
        if kind == "normal":
            if site == "qk_rmsnorm" and name == "qk_rmsnorm":
                extra["qk_order"] = qk_order(torch, t)
            if timed and not args.no_bench:
                for r in rows.values():
                    if not r["errors"]:
                        fn = getattr(mod, r["arm"])
                        r["us"] = bench_us(triton, lambda: fn(t, d))
                        r["kernels"] = kernel_names(torch, fn, t, d)
                src = [v for k, v in t.items() if k in ("x", "q", "k")]
                dst = [torch.empty_like(v) for v in src]
                extra["copy_us"] = bench_us(triton, lambda: [b.copy_(a) for a, b in zip(src, dst)])
        del t, inputs, ref
    elements = sum(int(torch.tensor(shape).prod()) for _ in outs)
    for r in rows.values():
        for e in r["errors"]:
            log(f"{name}: {r['arm']} FAILED on {e}")
        if r["diff"]:
            log(f"{name} {'x'.join(map(str, shape))} {r['arm']}: differing elements by input "
                f"(of {elements}): {r['diff']}")
    for k, v in extra.items():
        if k != "copy_us":
            log(f"{name}: {k}: {v}")
    return dict(case=name, site=site, shape="x".join(map(str, shape)), elements=elements, arms=list(rows.values()),
                **extra)


def failures_of(res):
    bad = []
    for c in res:
        for a in c["arms"]:
            if a["errors"]:
                bad.append(f"{c['case']}: {a['arm']} raised")
            if a["exact"] and any(a["diff"].values()):
                bad.append(f"{c['case']}: {a['arm']} claims exactness, differs {a['diff']}")
            if a["exact"] and len(a["diff"]) < len(INPUTS):
                bad.append(f"{c['case']}: {a['arm']} ran on {len(a['diff'])} of {len(INPUTS)} inputs")
        if c.get("inputs_written"):
            bad.append(f"{c['case']}: inputs written {c['inputs_written']}")
        if any((c.get("oracle") or {}).values()):
            bad.append(f"{c['case']}: glm_sites' eager differs from torch_chain.py {c['oracle']}")
    return bad


def print_table(res):
    print()
    print(f"{'case':<21} {'shape':<16} {'arm':<33} {'us':>8} {'copy us':>8}  {'differing':<24} kernels")
    for c in res:
        for i, a in enumerate(c["arms"]):
            us = f"{a['us']:.2f}" if "us" in a else "-"
            cp = f"{c['copy_us']:.2f}" if i == 0 and "copy_us" in c else ""
            if a["role"] == "eager":
                diff = "(reference)"
            elif a["errors"]:
                diff = "ERROR"
            else:
                n = sum(a["diff"].values())
                diff = ("equal" if n == 0 else f"{n}") + f" /{len(a['diff'])} inputs" + ("" if a["exact"] else " (inexact)")
            head = (c["case"], c["shape"]) if i == 0 else ("", "")
            print(f"{head[0]:<21} {head[1]:<16} {a['arm']:<33} {us:>8} {cp:>8}  {diff:<24} {short(a.get('kernels', []))}")


def dry_run_setup():
    """--cpu-dry-run: the emulated Triton, CPU tensors, small shapes."""
    global DEVICE, CASES
    sys.path.insert(0, os.path.join(REPO, "tests", "tools"))
    import lineage_triton_emu
    lineage_triton_emu.install()
    import numpy
    numpy.seterr(all="ignore")  # the hostile inputs overflow on purpose
    import torch.nn.functional as F
    if not hasattr(F, "rms_norm"):  # torch < 2.4: the composite's arithmetic
        F.rms_norm = lambda x, shape, w, eps: (x.float() * (x.float().pow(2).mean(-1, keepdim=True) + eps).rsqrt() *
                                               w.float()).to(x.dtype)
    DEVICE = "cpu"
    small = {3: lambda s: (s[0], min(s[1], 9), s[2]),
             4: lambda s: (s[0], min(s[1], 5), min(s[2], 3), s[3])}
    CASES = [c[:3] + (small[len(c[3])](c[3]), ) + c[4:] for c in CASES]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--no-bench", action="store_true", help="bytes only: no do_bench, no profiler")
    ap.add_argument("--only", help="run the cases whose name contains this")
    ap.add_argument("--cpu-dry-run", action="store_true", help="development: the logic on the CPU (see above)")
    args = ap.parse_args()
    if args.cpu_dry_run:
        dry_run_setup()
        args.no_bench = True
    try:
        import torch
        import triton
        import triton.testing  # noqa: F401
    except ImportError as e:
        print(f"lineage_check: {e}", file=sys.stderr)
        return 2
    if DEVICE == "cuda" and not torch.cuda.is_available():
        print("lineage_check: no CUDA device for PyTorch", file=sys.stderr)
        return 2
    import glm_sites
    import lineage_sites
    import site_chains
    modules = dict(glm_sites=glm_sites, lineage_sites=lineage_sites)
    chains = site_chains.load()
    log = lambda s: print(s, flush=True)
    device = torch.cuda.get_device_name() if DEVICE == "cuda" else "cpu dry run (emulated Triton)"
    log(f"lineage_check: torch {torch.__version__}, triton {getattr(triton, '__version__', '-')}, {device}")
    res = []
    for case in CASES:
        if args.only and args.only not in case[0]:
            continue
        res.append(run_case(torch, triton, modules, chains, case, args, log))
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
    for c in res:
        for a in c["arms"]:
            if a.get("kernels"):
                log(f"kernels {c['case']} {a['arm']}: {' | '.join(a['kernels'])}")
    bad = failures_of(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(torch=torch.__version__, triton=getattr(triton, "__version__", "-"), device=device,
                           inputs=INPUTS, cases=res, failures=bad), f, indent=1)
    for b in bad:
        log(f"lineage_check: {b}")
    print_table(res)
    print(f"lineage_check: {len(bad)} failure(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
