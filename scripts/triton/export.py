#!/usr/bin/env python3
"""Compiles abbench's Triton kernels, proves them against PyTorch's eager
chain, and exports Triton's own artefacts for abbench's cubin arms.

Runs on the GPU machine (torch and triton installed; no abbench build).
For each kernel variant (ln_modulate.py, qk_layernorm.py):
  1. compiles it through an ordinary launch, with TRITON_CACHE_DIR pointed at
     a fresh folder;
  2. runs it and PyTorch's eager chain on the same input bytes (seeded,
     normal(0, 1), plus normal + 1000 at the first shape) and counts the
     output elements whose bf16 bytes differ (torch.equal when 0);
  3. launches the cached cubin once more through the CUDA driver API
     (libcuda via ctypes, as abbench does), with the parameters in the
     manifest's order and NULL for Triton's trailing scratch pointers, and
     checks its bytes against Triton's own launch: the manifest is right;
  4. copies NAME.cubin and NAME.json from the cache to OUT_DIR (the kernel's
     function name is the stable name) and writes OUT_DIR/manifest.json;
  5. times kernel and chain with triton.testing.do_bench (L2 flushed before
     every rep, median), beside a plain copy of the same tensor.
It prints one table last. Exit status: 0 when every kernel that claims
exactness is byte-equal and every driver-API launch agrees, 1 otherwise,
2 when there is no GPU.

    python3 scripts/triton/export.py [--out DIR] [--no-bench] [--tune]
"""
import argparse
import ctypes
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# The glm_1024 shapes (scenarios/glm_1024.ini) plus the text stream's, which
# the same cubin serves.
LN_SHAPES = [(1, 4096, 4096), (1, 264, 4096)]
QK_SHAPES = [(1, 4360, 32, 128)]
# Checked, not timed: other batch sizes and row lengths through the same
# cubins (the general, non-uniform count paths of the Welford folds).
LN_EXTRA = [(2, 37, 3000), (3, 5, 4)]
QK_EXTRA = [(2, 50, 3, 96), (1, 33, 5, 64), (1, 7, 2, 12)]
EPS = 1e-5


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "triton-out"), help="output folder (default: REPO/triton-out)")
    ap.add_argument("--no-bench", action="store_true", help="skip the do_bench timings")
    ap.add_argument("--tune", action="store_true", help="also time a few launch configurations of each kernel")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--keep-ir", action="store_true", help="also copy each kernel's .ttgir and .llir to the output")
    return ap.parse_args()


# ---- inputs and PyTorch's chain ------------------------------------------


def make_inputs(torch, site, shape, seed, offset=0.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, device="cuda", generator=g, dtype=torch.float32)
    if site == "ln_modulate":
        b, _, n = shape
        x = (rnd(*shape) + offset).to(torch.bfloat16)
        return dict(x=x, scale=(0.5 * rnd(b, n)).to(torch.bfloat16), shift=(0.5 * rnd(b, n)).to(torch.bfloat16))
    return dict(q=(rnd(*shape) + offset).to(torch.bfloat16), k=(rnd(*shape) + offset).to(torch.bfloat16))


def torch_chain(F, site, inp):
    """PyTorch's eager ops, as GLM-Image calls them (scripts/torch_oracle.py)."""
    if site == "ln_modulate":
        x, scale, shift = inp["x"], inp["scale"], inp["shift"]
        return lambda: dict(out=F.layer_norm(x, (x.shape[-1], ), None, None, EPS) * (1 + scale).unsqueeze(1) +
                            shift.unsqueeze(1))
    q, k = inp["q"], inp["k"]
    n = q.shape[-1]
    return lambda: dict(q_out=F.layer_norm(q, (n, ), None, None, EPS), k_out=F.layer_norm(k, (n, ), None, None, EPS))


def alloc_outputs(torch, site, inp):
    if site == "ln_modulate":
        return dict(out=torch.empty_like(inp["x"]))
    return dict(q_out=torch.empty_like(inp["q"]), k_out=torch.empty_like(inp["k"]))


def triton_call(mod, spec, site, inp, out):
    if site == "ln_modulate":
        return lambda: mod.launch(spec, inp["x"], inp["scale"], inp["shift"], out["out"], EPS)
    return lambda: mod.launch(spec, inp["q"], inp["k"], out["q_out"], out["k_out"], EPS)


def count_differing(torch, ref, got):
    """Elements whose bf16 bytes differ, summed over the site's outputs."""
    return sum(int((ref[k].view(torch.int16) != got[k].view(torch.int16)).sum()) for k in ref)


def max_abs_diff(torch, ref, got):
    return max(float((ref[k].float() - got[k].float()).abs().nan_to_num(0.0).max()) for k in ref)


# ---- Triton's cache -> OUT_DIR --------------------------------------------


def cached_files(cache_dir, ck):
    """The cache's NAME.cubin and NAME.json for compiled kernel ck: the
    cubin whose bytes are ck's (several compilations may share a name)."""
    want = bytes(ck.asm["cubin"])
    for path in glob.glob(os.path.join(cache_dir, "**", "*.cubin"), recursive=True):
        with open(path, "rb") as f:
            if f.read() == want:
                meta = path[:-len(".cubin")] + ".json"
                if os.path.exists(meta):
                    return path, meta
    raise RuntimeError(f"{ck.name}: no cubin with its bytes under {cache_dir}")


def ptx_param_types(ptx, name):
    """The .param types of the kernel entry, in order (u64 pointers, u32/s32
    ints, f32 eps, then Triton's trailing scratch pointers)."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(([^)]*)\)", ptx)
    if not m:
        raise RuntimeError(f"{name}: no .entry in its PTX")
    return re.findall(r"\.param\s+\.(\w+)", m.group(1))


# ---- the driver-API launch abbench will make -------------------------------


class Driver:
    """libcuda through ctypes, in the context PyTorch made current."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        L, vp, u = self.lib, ctypes.c_void_p, ctypes.c_uint
        L.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
        L.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
        L.cuFuncSetAttribute.argtypes = [vp, ctypes.c_int, ctypes.c_int]
        L.cuLaunchKernel.argtypes = [vp, u, u, u, u, u, u, u, vp, vp, vp]
        L.cuModuleUnload.argtypes = [vp]

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed: CUresult {rc}")

    def launch(self, cubin_path, name, grid, block, shared, args):
        """args: ctypes scalars in parameter order (pointers as c_uint64)."""
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        with open(cubin_path, "rb") as f:
            image = f.read()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData")
        try:
            self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), "cuModuleGetFunction")
            if shared > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                self.check(self.lib.cuFuncSetAttribute(fn, 8, shared), "cuFuncSetAttribute")
            ptrs = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
            g = list(grid) + [1] * (3 - len(grid))
            self.check(self.lib.cuLaunchKernel(fn, g[0], g[1], g[2], block, 1, 1, shared, None, ptrs, None),
                       "cuLaunchKernel")
            self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")
        finally:
            self.lib.cuModuleUnload(mod)


def param_values(site, shape, inp, out):
    """Each user parameter's value by its scenario name (tensor -> pointer,
    shape symbol -> int, eps -> float)."""
    v = {k: t.data_ptr() for k, t in list(inp.items()) + list(out.items())}
    if site == "ln_modulate":
        b, t, n = shape
        v.update(B=b, T=t, N=n, W=n, M=b * t, H=1)
    else:
        b, t, h, d = shape
        v.update(B=b, T=t, H=h, N=d, W=h * d, M=b * t * h)
    v["eps"] = EPS
    return v


def driver_check(torch, drv, entry, site, shape, inp, ref_out):
    """Launches the exported cubin as abbench will; returns differing elements
    against Triton's own launch."""
    out = alloc_outputs(torch, site, inp)
    for t in out.values():
        t.fill_(float("nan"))
    vals = param_values(site, shape, inp, out)
    args = []
    for name, ty in zip(entry["params"], entry["ptx_params"]):
        val = vals[name]
        args.append(ctypes.c_float(val) if ty == "f32" else ctypes.c_uint64(val) if ty in ("u64", "b64") else
                    ctypes.c_int32(val))
    args += [ctypes.c_uint64(0)] * entry["scratch_params"]  # global and profile scratch: sizes are 0
    if entry["global_scratch_size"] or entry["profile_scratch_size"]:
        raise RuntimeError(f"{entry['name']}: scratch sizes are not 0; this check passes NULL")
    grid = [eval_grid(g, vals) for g in split_top(entry["grid"])]
    torch.cuda.synchronize()
    drv.launch(os.path.join(entry["dir"], entry["cubin"]), entry["kernel"], grid, entry["block"], entry["shared"], args)
    return count_differing(torch, ref_out, out)


def split_top(expr):
    """Splits a grid rule at its top-level commas: 'cdiv(M, 16), 2' -> 2 parts."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def eval_grid(expr, vals):
    """A scenario grid expression (symbols, + - * / %, cdiv) evaluated here."""
    env = {k: v for k, v in vals.items() if isinstance(v, int)}
    env["cdiv"] = lambda a, b: -(-a // b)
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, env))


# ---- the scenarios that run the exports ------------------------------------


def check_scenario(path, entry):
    """scenarios/triton_glm.ini against the manifest entry: its [arm NAME]
    must point at NAME.json and give the same grid and params. Returns a
    list of problems (empty when it matches)."""
    import configparser
    if not os.path.exists(path):
        return [f"{path}: missing"]
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    cp.read(path)
    sec = "arm " + entry["name"]
    if sec not in cp:
        return [f"{path}: no [{sec}]"]
    arm, bad = cp[sec], []
    norm = lambda t: ",".join(p.strip() for p in t.split(","))
    if os.path.basename(arm.get("triton", "")) != entry["json"]:
        bad.append(f"{path}: [{sec}] triton = {arm.get('triton')}, the export is {entry['json']}")
    if norm(arm.get("grid", "")) != norm(entry["grid"]):
        bad.append(f"{path}: [{sec}] grid = {arm.get('grid')}, the kernel needs {entry['grid']}")
    if norm(arm.get("params", "")) != norm(", ".join(entry["params"])):
        bad.append(f"{path}: [{sec}] params = {arm.get('params')}, the kernel takes {', '.join(entry['params'])}")
    return bad


# ---- timing ------------------------------------------------------------------


def bench_us(triton, fn):
    return 1000.0 * triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


# ---- one kernel ------------------------------------------------------------


def export_kernel(torch, F, triton, drv, cache, args, mod, name, spec, shapes):
    site = mod.SITE["site"]
    rows, entry = [], None
    glm, extra = shapes
    for i, shape in enumerate(glm + extra):
        for offset in ([0.0, 1000.0] if i == 0 else [0.0]):
            inp = make_inputs(torch, site, shape, args.seed, offset)
            ref = torch_chain(F, site, inp)()
            out = alloc_outputs(torch, site, inp)
            ck = triton_call(mod, spec, site, inp, out)()
            torch.cuda.synchronize()
            if entry is None:
                entry = write_artefacts(args.out, cache, ck, name, spec, mod, args.keep_ir)
            diff = count_differing(torch, ref, out)
            row = dict(kernel=name, shape="x".join(map(str, shape)), input="normal" + (" +1000" if offset else ""),
                       elements=sum(t.numel() for t in ref.values()), differing=diff,
                       max_abs_diff=max_abs_diff(torch, ref, out))
            try:
                row["driver_differing"] = driver_check(torch, drv, entry, site, shape, inp, out)
            except Exception as e:  # reported, and fails the run
                row["driver_error"] = str(e)
            if not args.no_bench and offset == 0.0 and shape in glm:
                row["triton_us"] = bench_us(triton, triton_call(mod, spec, site, inp, out))
                row["torch_us"] = bench_us(triton, torch_chain(F, site, inp))
                src = inp["x"] if site == "ln_modulate" else inp["q"]
                dst = torch.empty_like(src)
                row["copy_us"] = bench_us(triton, lambda: dst.copy_(src)) * (1 if site == "ln_modulate" else 2)
            rows.append(row)
    entry["checks"] = rows
    return entry, rows


def write_artefacts(out_dir, cache, ck, name, spec, mod, keep_ir):
    """Copies NAME.cubin/.json out of Triton's cache; returns the manifest entry."""
    cubin, meta_path = cached_files(cache, ck)
    for ext in (".ttgir", ".llir") if keep_ir else ():
        if os.path.exists(cubin[:-len(".cubin")] + ext):
            shutil.copyfile(cubin[:-len(".cubin")] + ext, os.path.join(out_dir, name + ext))
    if ck.metadata.name != name:
        raise RuntimeError(f"kernel entry is {ck.metadata.name}, expected {name}")
    shutil.copyfile(cubin, os.path.join(out_dir, name + ".cubin"))
    shutil.copyfile(meta_path, os.path.join(out_dir, name + ".json"))
    with open(os.path.join(out_dir, name + ".ptx"), "w") as f:
        f.write(ck.asm["ptx"])
    with open(meta_path) as f:
        meta = json.load(f)
    ptx = ptx_param_types(ck.asm["ptx"], name)
    params = list(mod.PARAMS)
    grid = mod.SITE["grid"].format(**spec["constexprs"])
    return dict(name=name, site=mod.SITE["site"], kernel=meta["name"], cubin=name + ".cubin", json=name + ".json",
                dir=out_dir, params=params, ptx_params=ptx[:len(params)], scratch_params=len(ptx) - len(params),
                constexprs=spec["constexprs"], num_warps=meta["num_warps"], block=32 * meta["num_warps"],
                shared=meta["shared"], enable_fp_fusion=spec["options"].get("enable_fp_fusion", True),
                global_scratch_size=meta.get("global_scratch_size") or 0,
                profile_scratch_size=meta.get("profile_scratch_size") or 0, grid=grid,
                grid_note=mod.SITE["grid_note"], n_max=spec["n_max"], claims_exact=spec["exact"],
                registers=getattr(ck, "n_regs", None), spills=getattr(ck, "n_spills", None),
                triton_version=meta.get("triton_version"), arch=(meta.get("target") or {}).get("arch"))


# ---- tuning (development) --------------------------------------------------


def tune(torch, F, triton, ln_mod, qk_mod):
    """A few launch configurations per kernel at the glm shapes: time and bytes."""
    trials = [(ln_mod, "ln_modulate_welford_shfl", dict(num_warps=w), {}) for w in (2, 8)]
    trials += [(qk_mod, "qk_welford", dict(num_warps=1), dict(ROWS=r)) for r in (4, 8)]
    trials += [(qk_mod, "qk_welford", dict(num_warps=2), dict(ROWS=r)) for r in (4, 8)]
    for mod, name, opts, cx in trials:
        base = mod.variants()[name]
        opts = {k: v for k, v in opts.items() if v is not None}
        spec = dict(base, options=dict(base["options"], **opts), constexprs=dict(base["constexprs"], **cx))
        site = mod.SITE["site"]
        shape = LN_SHAPES[0] if site == "ln_modulate" else QK_SHAPES[0]
        inp = make_inputs(torch, site, shape, 1)
        out = alloc_outputs(torch, site, inp)
        try:
            ck = triton_call(mod, spec, site, inp, out)()
            diff = count_differing(torch, torch_chain(F, site, inp)(), out)
            us = bench_us(triton, triton_call(mod, spec, site, inp, out))
            print(f"tune {name:<22} {opts} {cx} {us:8.2f} us  differing {diff}  regs {getattr(ck, 'n_regs', '?')} "
                  f"spills {getattr(ck, 'n_spills', '?')} shared {ck.metadata.shared}", flush=True)
        except Exception as e:
            print(f"tune {name:<22} {opts} {cx} FAILED: {str(e)[-400:]}", flush=True)


# ---- main --------------------------------------------------------------------


def print_table(all_rows):
    print()
    print(f"{'kernel':<22} {'shape':<16} {'input':<13} {'differing':>17} {'max|d|':>8} {'driver':>7} "
          f"{'triton us':>10} {'torch us':>9} {'copy us':>8}")
    for r in all_rows:
        diff = f"{r['differing']}/{r['elements']}"
        drv = r.get("driver_error", "ERR")[:7] if "driver_differing" not in r else (
            "same" if r["driver_differing"] == 0 else str(r["driver_differing"]))
        t = lambda k: f"{r[k]:.2f}" if k in r else "-"
        print(f"{r['kernel']:<22} {r['shape']:<16} {r['input']:<13} {diff:>17} {r['max_abs_diff']:8.3g} {drv:>7} "
              f"{t('triton_us'):>10} {t('torch_us'):>9} {t('copy_us'):>8}")


def main():
    args = parse_args()
    cache = tempfile.mkdtemp(prefix="abbench-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = cache  # before triton is imported
    import torch
    import torch.nn.functional as F
    import triton
    import triton.testing  # noqa: F401
    if not torch.cuda.is_available():
        print("export: no CUDA device for PyTorch", file=sys.stderr)
        return 2
    sys.path.insert(0, HERE)
    import ln_modulate as ln_mod
    import qk_layernorm as qk_mod
    os.makedirs(args.out, exist_ok=True)
    print(f"export: torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}, "
          f"cache {cache}, out {args.out}", flush=True)
    drv = Driver()
    manifest, all_rows, failures = [], [], 0
    for mod, shapes in ((ln_mod, (LN_SHAPES, LN_EXTRA)), (qk_mod, (QK_SHAPES, QK_EXTRA))):
        for name, spec in mod.variants().items():
            try:
                entry, rows = export_kernel(torch, F, triton, drv, cache, args, mod, name, spec, shapes)
            except Exception:  # one broken kernel must not hide the others' results
                print(f"export: {name} FAILED\n{traceback.format_exc()[-3000:]}", flush=True)
                failures += 1
                continue
            manifest.append({k: v for k, v in entry.items() if k != "dir"})
            for problem in check_scenario(os.path.join(REPO, "scenarios", "triton_glm.ini"), entry):
                print(f"export: {problem}", flush=True)
                failures += 1
            all_rows += rows
            failures += sum(1 for r in rows if r.get("driver_differing", 1) != 0)
            failures += sum(1 for r in rows if spec["exact"] and r["differing"] != 0)
            print(f"export: {name} -> {args.out}/{name}.cubin (+.json, .ptx)", flush=True)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(dict(triton=triton.__version__, torch=torch.__version__, device=torch.cuda.get_device_name(),
                       eps=EPS, kernels=manifest), f, indent=1)
    if args.tune:
        tune(torch, F, triton, ln_mod, qk_mod)
    print_table(all_rows)
    print(f"export: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
