#!/usr/bin/python3
"""Runs the lineage's Triton kernels (scripts/triton/) on the CPU, through a
numpy emulation of the small part of triton.language they use, and checks
their logic without a GPU:

    /usr/bin/python3 tests/tools/lineage_triton_emu.py

Each kernel runs program by program; a tensor is a numpy array (float32,
int or bool), a pointer a (buffer, offsets) pair, and the emulation holds
Triton's rules that a CPU would not: every block dimension a power of two,
tl.split on a last dimension of 2, reshape keeping the element count, a
load's offsets inside the buffer wherever the mask is on. Float arithmetic
is numpy's float32 (IEEE, no contraction); tl.fma is computed in float64
and rounded once; rsqrt.approx.f32 becomes the correctly rounded 1 / sqrt,
the same as examples/python/lineage_numpy.py's, so that:

  - each exact lineage kernel must be byte-equal to the numpy eager chain
    of its site (lineage_numpy.py: aten's reduction orders, written
    independently as whole-array operations), on normal, offset-1000,
    constant-row and NaN/Inf/subnormal inputs, at shapes whose rows and
    lengths are not multiples of the kernels' blocks;
  - the inexact contrasts (and qk_rmsnorm_up) are reported, not judged;
  - the Python arms of glm_sites.py and lineage_sites.py launch the
    kernels with the right views and argument order (torch CPU tensors,
    when /usr/bin/python3 has torch: Debian's python3-torch), within
    rounding of PyTorch CPU's eager chain.

What it cannot show: anything the real compiler decides (layouts, the
shuffles' lane mapping, contraction, ftz), the GPU's rsqrt.approx, speed.
scripts/gpu/lineage.sh is the proof on the GPU. Prints one line per check
and 'N passed, N failed' last; exit 0 when all pass. About 20 s.
"""
import math
import os
import sys
import types

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples", "python"))
import lineage_numpy as ln  # noqa: E402

# ---- the emulation ------------------------------------------------------------------


class EmuError(Exception):
    """Something the real Triton would refuse (or that reads out of bounds)."""


class Tensor(np.ndarray):
    """A Triton tensor (0-d for a scalar). Float results stay float32, as
    Triton's int-with-float promotion does."""

    def __array_wrap__(self, out, context=None, *args):
        out = np.ndarray.__array_wrap__(self, out, context, *args)
        if isinstance(out, np.ndarray) and out.dtype == np.float64:
            out = out.astype(np.float32).view(Tensor)
        return out

    def to(self, dtype, bitcast=False):
        if bitcast:
            return np.ascontiguousarray(self).view(dtype.np).view(Tensor)
        if dtype is bfloat16:
            return ln.rbf(np.asarray(self, np.float32)).view(Tensor)
        return np.asarray(self).astype(dtype.np).view(Tensor)


def T(a):
    return np.asarray(a).view(Tensor)


class Dtype:

    def __init__(self, name, np_type):
        self.name, self.np = name, np_type


float32, bfloat16 = Dtype("fp32", np.float32), Dtype("bf16", np.float32)
int32, int64 = Dtype("i32", np.int32), Dtype("i64", np.int64)


class Ptr:
    """A pointer into a buffer: a flat numpy array (bf16 as uint16)."""

    def __init__(self, buf, offs=0):
        self.buf, self.offs = buf, offs

    def __add__(self, k):
        return Ptr(self.buf, self.offs + k)

    __radd__ = __add__


def _pow2(shape):
    for s in shape:
        if s & (s - 1):
            raise EmuError(f"block shape {tuple(shape)}: {s} is not a power of two")


def _offsets(ptr, mask):
    offs = np.broadcast_to(np.asarray(ptr.offs, np.int64), np.shape(ptr.offs))
    m = np.ones(offs.shape, bool) if mask is None else np.broadcast_to(np.asarray(mask, bool), offs.shape)
    bad = m & ((offs < 0) | (offs >= ptr.buf.size))
    if bad.any():
        raise EmuError(f"access outside the buffer ({int(bad.sum())} elements, e.g. offset {int(offs[bad][0])})")
    return np.where(m, offs, 0), m


def load(ptr, mask=None, other=None):
    offs, m = _offsets(ptr, mask)
    raw = ptr.buf[offs]
    v = ln.f32(raw) if ptr.buf.dtype == np.uint16 else raw.astype(np.float32)
    return T(np.where(m, v, np.float32(0.0 if other is None else other)).astype(np.float32))


def store(ptr, value, mask=None):
    offs, m = _offsets(ptr, mask)
    v = np.broadcast_to(np.asarray(value, np.float32), offs.shape)
    bits = ln.bf16(v) if ptr.buf.dtype == np.uint16 else v.astype(ptr.buf.dtype)
    ptr.buf[offs[m]] = bits[m]


def arange(a, b):
    _pow2([b - a])
    return T(np.arange(a, b, dtype=np.int32))


def full(shape, value, dtype):
    _pow2(shape)
    return T(np.full(shape, value, dtype.np))


def zeros(shape, dtype):
    return full(shape, 0, dtype)


def reshape(x, shape, can_reorder=False):
    shape = tuple(shape)
    if math.prod(shape) != np.size(x):
        raise EmuError(f"reshape {np.shape(x)} -> {shape}: element counts differ")
    _pow2(shape)
    return T(np.reshape(np.asarray(x), shape))


def split(x):
    if np.shape(x)[-1] != 2:
        raise EmuError(f"tl.split of shape {np.shape(x)}: the last dimension must be 2")
    return T(np.asarray(x)[..., 0]), T(np.asarray(x)[..., 1])


def permute(x, dims):
    return T(np.ascontiguousarray(np.transpose(np.asarray(x), dims)))


def fma(a, b, c):
    return T(ln.fma32(np.asarray(a, np.float32), np.asarray(b, np.float32), np.asarray(c, np.float32)))


def _shfl_down(x, off):
    """shfl.sync.down within groups of 32 consecutive elements (the lane
    mapping the _shfl folds of aten_welford.py assume)."""
    flat = np.asarray(x).reshape(-1)
    i = np.arange(flat.size)
    src = np.where(i % 32 + off < 32, i + off, i)
    return flat[src].reshape(np.shape(x))


def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    a = [np.asarray(v) for v in args]
    if asm.startswith("rsqrt.approx.f32"):
        return T(ln.rsqrt32(a[0]))
    if asm.startswith("shfl.sync.down.b32"):
        return T(_shfl_down(a[0], int(np.max(a[1]))))
    if asm.startswith("shfl.sync.idx.b32"):
        flat = a[0].reshape(-1, 32)
        return T(np.repeat(flat[:, :1], 32, axis=1).reshape(a[0].shape))
    raise EmuError(f"no emulation of inline asm '{asm}'")


_pid = [0, 0, 0]


def _jit(fn=None, **_):
    if fn is None:
        return lambda f: JITFunction(f)
    return JITFunction(fn)


class JITFunction:
    """A @triton.jit function: called from a kernel it is a plain call;
    kernel[grid](...) runs every program in turn."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__

    def __call__(self, *args, **kw):
        return self.fn(*args, **kw)

    def __getitem__(self, grid):
        return lambda *args, **kw: self._launch(tuple(grid), args, kw)

    def _launch(self, grid, args, kw):
        names = self.fn.__code__.co_varnames[:self.fn.__code__.co_argcount]
        consts = {k: v for k, v in kw.items() if k in names}
        conv = [_arg(a) for a in args]
        g = list(grid) + [1] * (3 - len(grid))
        for z in range(g[2]):
            for y in range(g[1]):
                for x in range(g[0]):
                    _pid[:] = [x, y, z]
                    self.fn(*conv, **consts)


def _buffer(a):
    """A flat numpy view of a kernel argument's memory (numpy or torch CPU):
    a view, so that the kernel's stores land in the caller's tensor."""
    if not isinstance(a, np.ndarray):
        import torch
        a = a.view(torch.int16).numpy().view(np.uint16) if a.dtype == torch.bfloat16 else a.numpy()
    flat = a.reshape(-1)
    if not np.shares_memory(flat, a):
        raise EmuError(f"a pointer argument of shape {a.shape} that is not contiguous memory")
    return flat


def _arg(a):
    if isinstance(a, bool) or a is None:
        return a
    if isinstance(a, int):
        return T(np.int32(a))
    if isinstance(a, float):
        return T(np.float32(a))  # Triton passes a Python float as fp32
    return Ptr(_buffer(a))


def install():
    """Puts the emulated triton, triton.language and triton.testing in sys.modules."""
    tl = types.ModuleType("triton.language")
    tl.constexpr = object
    tl.float32, tl.bfloat16, tl.int32, tl.int64 = float32, bfloat16, int32, int64
    tl.program_id = lambda axis: T(np.int32(_pid[axis]))
    tl.static_range = range
    tl.multiple_of = lambda x, n: x
    tl.where = lambda c, a, b: T(np.where(c, a, b))
    tl.sum = lambda x, axis=None: T(np.sum(np.asarray(x, np.float32), axis=axis, dtype=np.float32))
    tl.broadcast_to = lambda x, shape: T(np.broadcast_to(np.asarray(x), shape).copy())
    tl.max = lambda x, axis=None: T(np.max(np.asarray(x), axis=axis))
    for f in (load, store, arange, full, zeros, reshape, split, permute, fma, inline_asm_elementwise):
        setattr(tl, f.__name__, f)
    tl.math = types.SimpleNamespace(
        div_rn=lambda a, b: T(np.asarray(a, np.float32) / np.asarray(b, np.float32)),
        rsqrt=lambda x: T(ln.rsqrt32(np.asarray(x))))
    triton = types.ModuleType("triton")
    triton.jit = _jit
    triton.cdiv = lambda a, b: -(-a // b)
    triton.next_power_of_2 = lambda n: 1 << (int(n) - 1).bit_length()
    triton.language = tl
    triton.testing = types.ModuleType("triton.testing")
    sys.modules.update({"triton": triton, "triton.language": tl, "triton.testing": triton.testing})
    sys.path.insert(0, os.path.join(REPO, "scripts", "triton"))


# ---- the checks ---------------------------------------------------------------------


class Tally:

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what, flush=True)
        self.passed += bool(ok)
        self.failed += not ok


def inputs(rng, shape, kind, offset=0.0):
    v = rng.standard_normal(shape) + offset
    if kind == "constant_rows":
        v = np.broadcast_to(rng.standard_normal(shape[:-1] + (1, )), shape).copy()
    elif kind == "special":
        flat = v.reshape(-1, shape[-1])
        for r in range(flat.shape[0]):
            flat[r, (5 * r) % shape[-1]] = (np.nan, np.inf, -np.inf, 3.3895e38)[r % 4]
            flat[r, (5 * r + 2) % shape[-1]] = 1e-39
    return ln.bf16(v.astype(np.float32))


KINDS = (("normal", 0.0), ("offset_1000", 1000.0), ("constant_rows", 0.0), ("special", 0.0))


def lineage_cases():
    """site -> (shape, make(rng, kind, offset) -> t, eps, eager arm, [(variant, exact)], launch(mod, spec, t, eps))."""
    mod_t = lambda sh: lambda rng, k, o: dict(
        x=inputs(rng, sh, k, o), scale=ln.bf16(0.5 * rng.standard_normal((sh[0], sh[2])).astype(np.float32)),
        shift=ln.bf16(0.5 * rng.standard_normal((sh[0], sh[2])).astype(np.float32)), out=np.zeros(sh, np.uint16))
    rms_t = lambda sh: lambda rng, k, o: dict(mod_t(sh)(rng, k, o), weight=ln.bf16(
        (1 + 0.1 * rng.standard_normal(sh[2])).astype(np.float32)))
    qk_t = lambda sh: lambda rng, k, o: dict(
        q=inputs(rng, sh, k, o), k=inputs(rng, sh, k, o), q_out=np.zeros(sh, np.uint16),
        k_out=np.zeros(sh, np.uint16),
        q_weight=ln.bf16((1 + 0.1 * rng.standard_normal(128)).astype(np.float32)),
        k_weight=ln.bf16((1 + 0.1 * rng.standard_normal(128)).astype(np.float32)))
    return [
        ("modulate_scale_shift", (2, 7, 1000), mod_t, 1e-5, [("modulate_scale_shift", True),
                                                             ("modulate_scale_shift_f32", False)],
         lambda m, s, t, e: m.launch(s, t["x"], t["scale"], t["shift"], t["out"])),
        ("rmsnorm_scale_shift", (2, 3, 3000), rms_t, 1e-6, [("rmsnorm_scale_shift", True),
                                                            ("rmsnorm_scale_shift_naive", False)],
         lambda m, s, t, e: m.launch(s, t["x"], t["weight"], t["scale"], t["shift"], t["out"], e)),
        ("rmsnorm_scale_shift", (1, 2, 4096), rms_t, 1e-6, [("rmsnorm_scale_shift", True)],
         lambda m, s, t, e: m.launch(s, t["x"], t["weight"], t["scale"], t["shift"], t["out"], e)),
        ("qk_rmsnorm", (1, 7, 3, 128), qk_t, 1e-5, [("qk_rmsnorm", True), ("qk_rmsnorm_up", False),
                                                    ("qk_rmsnorm_f32", False)],
         lambda m, s, t, e: m.launch(s, _Q(t["q"]), t["k"], t["q_weight"], t["k_weight"], t["q_out"], t["k_out"], e)),
    ]


class _Q(np.ndarray):
    """A numpy array with torch's numel(), for launchers that ask for it."""

    def __new__(cls, a):
        return np.asarray(a).view(cls)

    def numel(self):
        return self.size


def check_lineage_kernels(tally):
    for site, shape, make, eps, variants, launch in lineage_cases():
        mod = __import__(site)
        specs = mod.variants()
        for ki, (kind, offset) in enumerate(KINDS):
            t = make(shape)(np.random.default_rng(7 + ki), kind, offset)
            d = dict(axes=dict(zip("BTHD" if site == "qk_rmsnorm" else "BTW", shape)), eps=eps)
            outs = [n for n in t if n.endswith("out")]
            getattr(ln, site + "_eager")(t, d)
            ref = {n: t[n].copy() for n in outs}
            for name, exact in variants:
                for n in outs:
                    t[n].fill(0xAAAA)
                try:
                    launch(mod, specs[name], t, eps)
                except EmuError as e:
                    tally.check(False, f"{name} {kind}: {e}")
                    continue
                diff = sum(int((t[n] != ref[n]).sum()) for n in outs)
                total = sum(ref[n].size for n in outs)
                what = f"{name} {'x'.join(map(str, shape))} {kind}: {diff} of {total} differ from the numpy eager chain"
                if exact:
                    tally.check(diff == 0, what)
                else:
                    print(f"info  {what} (not claimed exact)")


def check_folds(tally):
    """aten_rms's trees against lineage_numpy's, on sums of wildly different
    magnitudes (where the order decides the last bits): the same order must
    give the same bits, the other order other bits (so this can fail)."""
    import aten_rms
    rng = np.random.default_rng(11)
    s = (rng.standard_normal((64, 128)) * 10.0**rng.uniform(-7, 7, (64, 128))).astype(np.float32)
    got = np.asarray(aten_rms.fold_block_sum.fn(T(s[0]))).reshape(-1)
    block = [np.asarray(aten_rms.fold_block_sum.fn(T(r))).reshape(()) for r in s]
    want = ln.aten_block_fold(s)
    tally.check(np.array_equal(np.array(block, np.float32).view(np.uint32), want.view(np.uint32)) and got.size == 1,
                "aten_rms.fold_block_sum == lineage_numpy.aten_block_fold, bit for bit (64 rows)")
    lanes = s[:, :16]
    for dec in (True, False):
        g = np.asarray(aten_rms.fold_lanes.fn(T(lanes), 64, 16, dec)).reshape(-1)
        same = np.array_equal(g.view(np.uint32), ln.lane_fold(lanes, dec).view(np.uint32))
        other = int((g.view(np.uint32) != ln.lane_fold(lanes, not dec).view(np.uint32)).sum())
        tally.check(same and other > 0, f"aten_rms.fold_lanes(decreasing={dec}) == lineage_numpy.lane_fold, "
                    f"and differs from the other order in {other} of 64 rows")


def check_glm_kernels(tally):
    """The project's GLM kernels through the emulation: within rounding of
    float64 (their exactness against aten is export.py's, on the GPU)."""
    import ln_modulate
    import qk_layernorm
    rng = np.random.default_rng(3)
    b, n, w = 2, 3, 1000
    x = inputs(rng, (b, n, w), "normal")
    sc = ln.bf16(0.5 * rng.standard_normal((b, w)).astype(np.float32))
    sh = ln.bf16(0.5 * rng.standard_normal((b, w)).astype(np.float32))
    xf = ln.f32(x).astype(np.float64)
    norm = (xf - xf.mean(-1, keepdims=True)) / np.sqrt(xf.var(-1, keepdims=True) + 1e-5)
    ref = norm * (1 + ln.f32(sc).astype(np.float64)[:, None]) + ln.f32(sh).astype(np.float64)[:, None]
    for name in ("ln_modulate_welford_shfl", "ln_modulate_welford", "ln_modulate_naive"):
        out = np.zeros_like(x)
        ln_modulate.launch(ln_modulate.variants()[name], x, sc, sh, out, 1e-5)
        err = (np.abs(ln.f32(out) - ref) / (1 + np.abs(ref))).max()
        tally.check(err < 2.0**-6, f"{name} 2x3x1000: max |out - float64| / (1 + |float64|) {err:.3g}")
    q = inputs(rng, (1, 5, 3, 96), "normal")
    k = inputs(rng, (1, 5, 3, 96), "offset_1000", 1000.0)
    for name in ("qk_welford", "qk_naive"):
        qo, ko = np.zeros_like(q), np.zeros_like(k)
        qk_layernorm.launch(qk_layernorm.variants()[name], _Q(q), k, qo, ko, 1e-5)
        err = 0.0
        for src, dst in ((q, qo), (k, ko)):
            v = ln.f32(src).astype(np.float64)
            r = (v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + 1e-5)
            err = max(err, (np.abs(ln.f32(dst) - r) / (1 + np.abs(r))).max())
        tally.check(err < 2.0**-6, f"{name} 1x5x3x96: max |out - float64| / (1 + |float64|) {err:.3g}")


def check_python_arms(tally):
    """glm_sites.py's and lineage_sites.py's arms on torch CPU tensors: the
    Triton arms (emulated) against the eager arms (PyTorch CPU)."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("skip  the Python arms: no torch for this interpreter (Debian: apt-get install python3-torch)")
        return
    if not hasattr(F, "rms_norm"):  # torch < 2.4 (Debian's 1.13): the composite's arithmetic
        F.rms_norm = lambda x, shape, w, eps: (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
                                               * w.float()).to(x.dtype)
    import glm_sites
    import lineage_sites
    g = torch.Generator().manual_seed(5)
    rnd = lambda *s, m=0.0, sd=1.0: (m + sd * torch.randn(*s, generator=g)).to(torch.bfloat16)
    cases = [
        (glm_sites, "ln_modulate", dict(B=2, T=3, W=512), 1e-5, lambda a: dict(
            x=rnd(2, 3, 512), scale=rnd(2, 512, sd=0.5), shift=rnd(2, 512, sd=0.5), out=rnd(2, 3, 512)),
         ["ln_modulate_triton", "ln_modulate_triton_split"], "ln_modulate_eager"),
        (glm_sites, "qk_layernorm", dict(B=1, T=5, H=2, D=64), 1e-5, lambda a: dict(
            q=rnd(1, 5, 2, 64), k=rnd(1, 5, 2, 64), q_out=rnd(1, 5, 2, 64), k_out=rnd(1, 5, 2, 64)),
         ["qk_layernorm_triton"], "qk_layernorm_eager"),
        (lineage_sites, "modulate_scale_shift", dict(B=2, T=3, W=1024), 1e-5, lambda a: dict(
            x=rnd(2, 3, 1024), scale=rnd(2, 1024, sd=0.5), shift=rnd(2, 1024, sd=0.5), out=rnd(2, 3, 1024)),
         ["modulate_scale_shift_triton", "modulate_scale_shift_triton_f32"], "modulate_scale_shift_eager"),
        (lineage_sites, "rmsnorm_scale_shift", dict(B=1, T=3, W=1024), 1e-6, lambda a: dict(
            x=rnd(1, 3, 1024), weight=rnd(1024, m=1.0, sd=0.1), scale=rnd(1, 1024, sd=0.5),
            shift=rnd(1, 1024, sd=0.5), out=rnd(1, 3, 1024)),
         ["rmsnorm_scale_shift_triton", "rmsnorm_scale_shift_triton_naive"], "rmsnorm_scale_shift_eager"),
        (lineage_sites, "qk_rmsnorm", dict(B=1, T=4, H=3, D=128), 1e-5, lambda a: dict(
            q=rnd(1, 4, 3, 128), k=rnd(1, 4, 3, 128), q_weight=rnd(128, m=1.0, sd=0.1),
            k_weight=rnd(128, m=1.0, sd=0.1), q_out=rnd(1, 4, 3, 128), k_out=rnd(1, 4, 3, 128)),
         ["qk_rmsnorm_triton", "qk_rmsnorm_triton_up", "qk_rmsnorm_triton_f32"], "qk_rmsnorm_eager"),
    ]
    for module, site, axes, eps, make, fused, eager in cases:
        t = make(axes)
        d = dict(case=site, site=site, axes=axes, eps=eps, affine=False, backend="cuda")
        outs = [n for n in t if n.endswith("out")]
        ids = {n: id(t[n]) for n in t}
        getattr(module, eager)(t, d)
        ref = {n: t[n].clone() for n in outs}
        for name in fused:
            for n in outs:
                t[n].fill_(float("nan"))
            getattr(module, name)(t, d)
            err = max(float((t[n].float() - ref[n].float()).abs().max()) for n in outs)
            same = all(id(t[n]) == ids[n] for n in t)
            tally.check(err < 0.1 and same, f"{module.__name__}.{name}: within {err:.3g} of PyTorch CPU's "
                        f"{eager}, t's tensors kept")
    try:
        glm_sites.ln_modulate_triton({"x": np.zeros(4)}, dict(backend="cpu"))
        tally.check(False, "glm_sites refuses numpy arrays")
    except TypeError as e:
        tally.check("cuda backend" in str(e), f"glm_sites refuses numpy arrays: {e}")


def main():
    install()
    tally = Tally()
    check_folds(tally)
    check_lineage_kernels(tally)
    check_glm_kernels(tally)
    check_python_arms(tally)
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
