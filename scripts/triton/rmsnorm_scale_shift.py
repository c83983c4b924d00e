"""Triton kernels for the rmsnorm_scale_shift site (ERNIE-Image, sglang
#33854): y = F.rms_norm(x, (W,), weight, eps), then out = y * (1 + scale)
+ shift; x [B, T, W] bf16, weight [W], scale and shift [B, W] broadcast
over T.

The eager arm is PyTorch's own F.rms_norm, which on CUDA for bf16 input and
bf16 weight runs aten::_fused_rms_norm -> RmsNormKernelImpl ->
vectorized_layer_norm_kernel<BFloat16, float, rms_norm=true> (when W % 4 ==
0 and the pointers are 8-byte aligned), docs/LINEAGE_SITES.md. Its
arithmetic, per row:

  block (32, 4): thread t = lane + 32 * warp takes the 8-byte vectors t,
      t + 128, ... of the row, their 4 values in order, and accumulates
      s = fma(v, v, s) (cuWelfordOnlineSum<rms_norm>: sigma2 + val * val,
      contracted by nvcc);
  fold: each warp's shuffle-down (offsets 16..1), then warps 0,1 take 2,3
      and warp 0 takes 1; every combine is one float add
      (cuWelfordCombine<rms_norm>: dataB.sigma2 + dataA.sigma2);
  tail: ms = s / float(W) (correctly rounded), rstd = rsqrtf(ms + eps)
      (rsqrt.approx.f32);
  output: y = bf16(weight * (rstd * x)): two float multiplies, one rounding.

Then the modulate chain's three bf16 roundings (ln_modulate._modulate).
SGLang's own eager for this site is sgl_kernel.rmsnorm (FlashInfer's
order); this kernel matches aten's, which is what this site's eager arm runs.

User arguments, in order (PARAMS):
    x, weight, scale, shift, out   bf16 pointers (16-byte aligned)
    T                              tokens per batch (i32)
    N                              row length W (i32), N % 4 == 0, N <= 512 * ITERS
    eps                            f32
One program per row: grid = (M,), M = B * T.

rmsnorm_scale_shift: aten's order, the tree from tl.split levels
    (aten_rms.fold_block_sum), exact whatever layout Triton picks;
    enable_fp_fusion=False, tl.fma where aten's binary has one.
rmsnorm_scale_shift_naive: tl.sum of the squares (Triton's tree), the
    same rounding points otherwise: fast, NOT bit-exact; the contrast.
"""
import triton
import triton.language as tl

from aten_rms import fold_block_sum
from aten_welford import split4, stats_tail
from ln_modulate import _modulate

PARAMS = ("x", "weight", "scale", "shift", "out", "T", "N", "eps")

# aten's block for vectorized_layer_norm_kernel: (32, 4) threads.
ATEN_THREADS = 128


@triton.jit
def _thread_sumsq(x, base, nvec, ITERS: tl.constexpr, TPB: tl.constexpr):
    """Pass 1: aten thread t accumulates the squares of vector j * 128 + t,
    its 4 values in order, for j < ITERS. An inactive thread's vector loads
    as zeros, and fma(0, 0, s) == s for every s aten can hold there (+0 or
    more, or NaN), so no mask is needed on the sum."""
    t = tl.arange(0, TPB)
    e = tl.arange(0, 4)
    s = tl.zeros((TPB, ), tl.float32)
    for j in tl.static_range(ITERS):
        vec = j * TPB + t
        v = tl.load(x + base + (vec * 4)[:, None] + e[None, :], mask=(vec < nvec)[:, None], other=0.0)
        v0, v1, v2, v3 = split4(v.to(tl.float32))
        s = tl.fma(v0, v0, s)
        s = tl.fma(v1, v1, s)
        s = tl.fma(v2, v2, s)
        s = tl.fma(v3, v3, s)
    return s


@triton.jit
def _normalize_modulate(x, weight, scale, shift, out, base, pbase, nvec, rstd, ITERS: tl.constexpr,
                        TPB: tl.constexpr):
    """Pass 2: bf16(weight * (rstd * x)), then the modulate chain (the row
    comes back from L1/L2)."""
    t = tl.arange(0, TPB)
    e = tl.arange(0, 4)
    for j in tl.static_range(ITERS):
        vec = j * TPB + t
        act = (vec < nvec)[:, None]
        offs = (vec * 4)[:, None] + e[None, :]
        v = tl.load(x + base + offs, mask=act, other=0.0).to(tl.float32)
        w = tl.load(weight + offs, mask=act, other=0.0).to(tl.float32)
        y = (w * (rstd * v)).to(tl.bfloat16)
        tl.store(out + base + offs, _modulate(y, scale + pbase, shift + pbase, offs, act), mask=act)


@triton.jit(do_not_specialize=["T", "N"])
def rmsnorm_scale_shift(x, weight, scale, shift, out, T, N, eps, ITERS: tl.constexpr):
    """ITERS: vectors per aten thread at the largest N served (N <= 512 * ITERS)."""
    TPB: tl.constexpr = 128
    row = tl.program_id(0).to(tl.int64)
    base = tl.multiple_of(row * N, 4)
    pbase = tl.multiple_of((row // T) * N, 4)
    nvec = N // 4
    s = fold_block_sum(_thread_sumsq(x, base, nvec, ITERS, TPB))  # [1, 1]
    rstd = stats_tail(s, N.to(tl.float32), eps)
    _normalize_modulate(x, weight, scale, shift, out, base, pbase, nvec, rstd, ITERS, TPB)


@triton.jit(do_not_specialize=["T", "N"])
def rmsnorm_scale_shift_naive(x, weight, scale, shift, out, T, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = tl.multiple_of(row * N, 4)
    pbase = tl.multiple_of((row // T) * N, 4)
    cols = tl.arange(0, BLOCK_N)
    mask = cols // 4 < N // 4
    v = tl.load(x + base + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.math.rsqrt(tl.sum(v * v, axis=0) / N.to(tl.float32) + eps)
    w = tl.load(weight + cols, mask=mask, other=0.0).to(tl.float32)
    y = (w * (rstd * v)).to(tl.bfloat16)
    tl.store(out + base + cols, _modulate(y, scale + pbase, shift + pbase, cols, mask), mask=mask)


def variants(n_max=4096):
    """name -> how to launch it, and the largest N its compilation serves."""
    iters = triton.cdiv(n_max, 4 * ATEN_THREADS)
    block_n = triton.next_power_of_2(n_max)
    return {
        "rmsnorm_scale_shift": dict(kernel=rmsnorm_scale_shift, constexprs=dict(ITERS=iters),
                                    options=dict(num_warps=4, enable_fp_fusion=False),
                                    n_max=iters * 4 * ATEN_THREADS, exact=True),
        "rmsnorm_scale_shift_naive": dict(kernel=rmsnorm_scale_shift_naive, constexprs=dict(BLOCK_N=block_n),
                                          options=dict(num_warps=8), n_max=block_n, exact=False),
    }


def launch(spec, x, weight, scale, shift, out, eps):
    """Runs one variant on [B, T, N] x, [N] weight, [B, N] scale and shift."""
    b, t, n = x.shape
    assert n % 4 == 0 and n <= spec["n_max"], f"N={n} outside this kernel's range (N % 4 == 0, N <= {spec['n_max']})"
    return spec["kernel"][(b * t, )](x, weight, scale, shift, out, t, n, eps, **spec["constexprs"], **spec["options"])


SITE = dict(site="rmsnorm_scale_shift", params=PARAMS, grid="M", grid_note="one program per row")
