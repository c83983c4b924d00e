"""numpy arms of the PR lineage's declared sites (scenarios/sites/*.ini), for
abbench's CPU backend (docs/PYTHON_ARMS.md: t holds numpy arrays over
abbench's buffers, bf16 as uint16 bits, inputs read-only; d the case's axes
and eps). Per site:

    NAME_eager     the eager chain op by op, each op a whole array rounded
                   to bf16 as PyTorch's CUDA kernels round it, the
                   reductions in aten's order (docs/LINEAGE_SITES.md)
    NAME_fused     one pass over blocks of rows with the same per-value
                   arithmetic: byte-equal to NAME_eager
    NAME_inexact   a plausible fused variant that is not byte-equal (float
                   intermediates, or another summation order)

What the CPU cannot copy from the GPU: rsqrtf is the approximate
rsqrt.approx.f32 there; here every rsqrt is the correctly rounded float32
1 / sqrt(v). So these arms agree with each other bit for bit, not with the
GPU's outputs (as the built-in CPU arms, which use 1/sqrtf too). An FMA is
computed in float64 and rounded once to float32, which is exact for the
products of two bf16 values these sites form. NaN results are written as
0x7FFF, abbench's bf16 rule (kernels/common/bf16.h) and the GPU's.

Checked by tests/tools/lineage_numpy_check.py (/usr/bin/python3 with
python3-numpy).
"""
import functools

import numpy as np

ROW_BLOCK = 64  # rows a NAME_fused pass takes at a time


def _arm(fn):
    """An arm: NaN and Inf inputs overflow and poison on purpose, quietly."""

    @functools.wraps(fn)
    def call(t, d):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            fn(t, d)

    return call


def f32(h):
    """bf16 bits (uint16) -> float32 values."""
    return (np.asarray(h, np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16(f):
    """float32 -> bf16 bits, round to nearest even, every NaN 0x7FFF."""
    bits = np.ascontiguousarray(f, np.float32).view(np.uint32)
    r = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    return np.where((bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000), np.uint16(0x7FFF), r)


def rbf(f):
    """f rounded to bf16, as float32 (what the next op reads back)."""
    return f32(bf16(f))


def fma32(a, b, c):
    """float32 fma(a, b, c) for products exact in float64 (bf16 x bf16)."""
    return (a.astype(np.float64) * b + c).astype(np.float32)


def rsqrt32(v):
    """The CPU's rsqrt: 1 / sqrt(v) in float32, each op correctly rounded."""
    return np.float32(1.0) / np.sqrt(v.astype(np.float32))


def _write(t, name, bits):
    np.copyto(t[name], bits.reshape(t[name].shape))


def _rows(d, *names):
    """(B, T, W) of a [B, T, W] site."""
    a = d["axes"]
    return tuple(a[n] for n in names)


# ---- modulate_scale_shift ----------------------------------------------------------


def _modulate(y, scale, shift):
    """The eager modulate after y ([B, T, W] float32 read from bf16):
    bf16(bf16(y * bf16(1 + scale)) + shift), scale and shift [B, W] bits."""
    s1 = rbf(f32(scale) + np.float32(1.0))[:, None, :]
    return bf16(rbf(y * s1) + f32(shift)[:, None, :])


@_arm
def modulate_scale_shift_eager(t, d):
    _write(t, "out", _modulate(f32(t["x"]), t["scale"], t["shift"]))


@_arm
def modulate_scale_shift_fused(t, d):
    b, n, _ = _rows(d, "B", "T", "W")
    for bi in range(b):
        for r in range(0, n, ROW_BLOCK):
            x = f32(t["x"][bi:bi + 1, r:r + ROW_BLOCK])
            t["out"][bi:bi + 1, r:r + ROW_BLOCK] = _modulate(x, t["scale"][bi:bi + 1], t["shift"][bi:bi + 1])


@_arm
def modulate_scale_shift_inexact(t, d):
    """x * (1 + scale) + shift in float32, one rounding at the end."""
    s1 = f32(t["scale"])[:, None, :] + np.float32(1.0)
    _write(t, "out", bf16(f32(t["x"]) * s1 + f32(t["shift"])[:, None, :]))


# ---- rmsnorm_scale_shift: aten's vectorized_layer_norm_kernel<.., rms_norm=true> ---


def aten_rms_sumsq(x):
    """Per-row sums of squares of x ([M, W] float32, W % 4 == 0) in aten's
    order: 128 threads, thread t accumulating fma(v, v, s) over its 8-byte
    vectors t, t + 128, ... (4 values each, in order), each warp's
    shuffle-down fold (offsets 16..1), then warps 0,1 take 2,3 and warp 0
    takes 1. Returns [M] float32."""
    m, w = x.shape
    per = -(-w // 512)  # vectors per thread; the missing ones are zeros: fma(0, 0, s) == s
    v = np.zeros((m, per * 512), np.float32)
    v[:, :w] = x
    v = v.reshape(m, per, 128, 4)
    s = np.zeros((m, 128), np.float32)
    for j in range(per):
        for e in range(4):
            s = fma32(v[:, j, :, e], v[:, j, :, e], s)
    return aten_block_fold(s)


def aten_block_fold(s):
    """compute_stats' fold of the [M, 128] per-thread sums (thread t = lane +
    32 * warp): each warp's shuffle-down (lane l takes l + 16, 8, 4, 2, 1),
    then warps 0,1 take 2,3 and warp 0 takes 1. Returns [M]."""
    w = lane_fold(s.reshape(-1, 32), True).reshape(-1, 4)  # warp sums
    w = w[:, :2] + w[:, 2:]
    return w[:, 0] + w[:, 1]


def lane_fold(s, decreasing):
    """A shuffle fold of [M, W] lane values (W a power of two) to lane 0's
    [M]: offsets W/2 .. 1 (decreasing: lane l takes l + W/2 first) or
    1 .. W/2 (lane 2i takes 2i + 1 first)."""
    while s.shape[1] > 1:
        h = s.shape[1] // 2
        s = s[:, :h] + s[:, h:] if decreasing else s[:, 0::2] + s[:, 1::2]
    return s[:, 0]


def _rmsnorm_modulate(x, weight, scale, shift, eps, sumsq):
    """[B, T, W] x bits -> out bits: y = bf16(w * (rstd * x)), then the modulate."""
    b, n, w = x.shape
    xf = f32(x).reshape(b * n, w)
    ms = sumsq(xf) / np.float32(w)
    rstd = rsqrt32(ms + np.float32(eps))[:, None]
    y = rbf(f32(weight)[None, :] * (rstd * xf))
    return _modulate(y.reshape(b, n, w), scale, shift)


@_arm
def rmsnorm_scale_shift_eager(t, d):
    _write(t, "out", _rmsnorm_modulate(t["x"], t["weight"], t["scale"], t["shift"], d["eps"], aten_rms_sumsq))


@_arm
def rmsnorm_scale_shift_fused(t, d):
    b, n, _ = _rows(d, "B", "T", "W")
    for bi in range(b):
        for r in range(0, n, ROW_BLOCK):
            rs = slice(r, r + ROW_BLOCK)
            t["out"][bi:bi + 1, rs] = _rmsnorm_modulate(t["x"][bi:bi + 1, rs], t["weight"], t["scale"][bi:bi + 1],
                                                        t["shift"][bi:bi + 1], d["eps"], aten_rms_sumsq)


@_arm
def rmsnorm_scale_shift_inexact(t, d):
    """The same rounding points, the squares summed by numpy (pairwise)."""
    pairwise = lambda xf: np.sum(xf * xf, axis=1, dtype=np.float32)
    _write(t, "out", _rmsnorm_modulate(t["x"], t["weight"], t["scale"], t["shift"], d["eps"], pairwise))


# ---- qk_rmsnorm: Z-Image's native-bf16 chain, Reduce.cuh's mean for rows of 128 ------


def aten_mean128(sq):
    """Reduce.cuh's sum of a row of 128 bf16 values (sq: [M, 128] float32):
    16 lanes, each summing its 8 contiguous values in order, then the
    shuffle-down fold with decreasing offsets 8, 4, 2, 1. Returns [M]."""
    s = sq.reshape(-1, 16, 8)
    acc = s[:, :, 0].copy()
    for i in range(1, 8):
        acc = acc + s[:, :, i]
    return lane_fold(acc, True)


def _qk_native(x, weight, eps, rowsum):
    """[..., 128] bits -> out bits, every op of the chain rounded to bf16."""
    xf = f32(x).reshape(-1, 128)
    sq = rbf(xf * xf)
    ms = rbf(rowsum(sq) * np.float32(1.0 / 128.0))
    r = rbf(rsqrt32(rbf(ms + np.float32(eps))))[:, None]
    return bf16(rbf(xf * r) * f32(weight)[None, :])


@_arm
def qk_rmsnorm_eager(t, d):
    for name in ("q", "k"):
        _write(t, name + "_out", _qk_native(t[name], t[name + "_weight"], d["eps"], aten_mean128))


@_arm
def qk_rmsnorm_fused(t, d):
    for name in ("q", "k"):
        src, dst = t[name].reshape(-1, 128), t[name + "_out"].reshape(-1, 128)
        for r in range(0, src.shape[0], ROW_BLOCK * 16):
            rs = slice(r, r + ROW_BLOCK * 16)
            dst[rs] = _qk_native(src[rs], t[name + "_weight"], d["eps"], aten_mean128)


@_arm
def qk_rmsnorm_inexact(t, d):
    """An upcasting RMSNorm: float32 statistics and one rounding at the end."""
    for name in ("q", "k"):
        xf = f32(t[name]).reshape(-1, 128)
        rstd = rsqrt32(np.mean(xf * xf, axis=1, dtype=np.float32) + np.float32(d["eps"]))[:, None]
        _write(t, name + "_out", bf16(xf * rstd * f32(t[name + "_weight"])[None, :]))
