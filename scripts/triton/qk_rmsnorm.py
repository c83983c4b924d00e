"""Triton kernels for the qk_rmsnorm site (Z-Image, sglang #33886): the
per-head RMSNorm of q and of k, [B, T, H, 128] bf16 each, written as the
model writes it, in native bf16 (no upcast):

    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps); out = y * weight

with its own weight [128] for q and for k, both tensors in one launch.
PyTorch runs six kernels per tensor (docs/LINEAGE_SITES.md); their
arithmetic, per row of 128:

  pow:   sq = bf16(x * x)                                  (base * base)
  mean:  reduce_kernel, MeanOps<BFloat16, float>, vt0 = 4 and
         input_vec_size = 8 for 16-bit types: the row of 128 is
         vectorised (dim0 >= 128), 16 lanes of threadIdx.x each load one
         16-byte vector and sum its 8 squares in order (8 accumulators
         0 + v_i, combined 0..7), then block_x_reduce folds the 16 lanes by
         shuffle-down; ms = bf16(sum * (1 / 128)) (project: a * factor,
         factor = outputs / inputs = 2^-7 exactly)
  add:   a = bf16(float(ms) + float(eps))
  rsqrt: r = bf16(rsqrtf(float(a)))                        (rsqrt.approx.f32)
  mul:   y1 = bf16(float(x) * float(r))
  mul:   out = bf16(float(y1) * float(weight))

The order of the 16-lane fold is version-dependent: Reduce.cuh on CUDA
uses decreasing offsets 8, 4, 2, 1 ("fix CUDA to have offset decreasing",
kept increasing on ROCm and fbcode); before that change it was 1, 2, 4, 8.
Both are compiled (the constexpr DECREASING), so a GPU check shows which one the
machine's PyTorch uses.

User arguments, in order (PARAMS):
    q, k, q_weight, k_weight, q_out, k_out   bf16 pointers (16-byte aligned)
    M                                        rows per tensor B*T*H (i32)
    eps                                      f32
The head_dim is fixed at 128 (the reduction config above holds for rows
of 128 only). grid = (cdiv(M, ROWS), 2), axis 1: 0 = q, 1 = k.

qk_rmsnorm: the eager chain's roundings and the decreasing lane fold
    (DECREASING = True); variant qk_rmsnorm_up compiles it with the
    increasing fold (older / ROCm PyTorch).
qk_rmsnorm_f32: the statistics in float (tl.sum, one rounding at the end):
    what an upcasting RMSNorm computes, NOT bit-exact; the contrast.
"""
import triton
import triton.language as tl

from aten_rms import fold_lanes, split8
from aten_welford import rsqrt_approx

PARAMS = ("q", "k", "q_weight", "k_weight", "q_out", "k_out", "M", "eps")
HEAD_DIM = 128


@triton.jit
def _native_rows(src, w_ptr, dst, pid, M, eps, ROWS: tl.constexpr, DECREASING: tl.constexpr):
    L: tl.constexpr = ROWS * 16
    rows = pid * ROWS + tl.arange(0, ROWS)
    lane = tl.arange(0, 16)
    e = tl.arange(0, 8)
    rbase = tl.multiple_of(rows.to(tl.int64) * 128, 128)
    col = (lane * 8)[:, None] + e[None, :]  # [16, 8]
    offs = rbase[:, None, None] + col[None, :, :]
    mask = (rows < M)[:, None, None]
    v = tl.load(src + offs, mask=mask, other=0.0).to(tl.float32)  # [ROWS, 16, 8]
    sq = (v * v).to(tl.bfloat16).to(tl.float32)
    e0, e1, e2, e3, e4, e5, e6, e7 = split8(tl.reshape(sq, (L, 8)))
    acc = e0  # value_list[i] = 0 + v_i, then combined in order; 0 + sq == sq (a square is +0 or more, or NaN)
    acc = acc + e1
    acc = acc + e2
    acc = acc + e3
    acc = acc + e4
    acc = acc + e5
    acc = acc + e6
    acc = acc + e7
    s = fold_lanes(tl.reshape(acc, (ROWS, 16)), ROWS, 16, DECREASING)  # [ROWS, 1]
    ms = (s * 0.0078125).to(tl.bfloat16)
    a = (ms.to(tl.float32) + eps).to(tl.bfloat16)
    r = rsqrt_approx(a.to(tl.float32)).to(tl.bfloat16).to(tl.float32)  # [ROWS, 1]
    y1 = (v * r[:, :, None]).to(tl.bfloat16).to(tl.float32)
    w = tl.load(w_ptr + col).to(tl.float32)  # [16, 8]
    tl.store(dst + offs, (y1 * w[None, :, :]).to(tl.bfloat16), mask=mask)


@triton.jit(do_not_specialize=["M"])
def qk_rmsnorm(q, k, q_weight, k_weight, q_out, k_out, M, eps, ROWS: tl.constexpr, DECREASING: tl.constexpr):
    pid = tl.program_id(0)
    if tl.program_id(1) == 0:
        _native_rows(q, q_weight, q_out, pid, M, eps, ROWS, DECREASING)
    else:
        _native_rows(k, k_weight, k_out, pid, M, eps, ROWS, DECREASING)


@triton.jit
def _f32_rows(src, w_ptr, dst, pid, M, eps, ROWS: tl.constexpr):
    rows = pid * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, 128)
    offs = tl.multiple_of(rows.to(tl.int64) * 128, 128)[:, None] + cols[None, :]
    mask = (rows < M)[:, None]
    v = tl.load(src + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.math.rsqrt(tl.sum(v * v, axis=1) / 128.0 + eps)
    w = tl.load(w_ptr + cols).to(tl.float32)
    tl.store(dst + offs, (v * rstd[:, None] * w[None, :]).to(tl.bfloat16), mask=mask)


@triton.jit(do_not_specialize=["M"])
def qk_rmsnorm_f32(q, k, q_weight, k_weight, q_out, k_out, M, eps, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    if tl.program_id(1) == 0:
        _f32_rows(q, q_weight, q_out, pid, M, eps, ROWS)
    else:
        _f32_rows(k, k_weight, k_out, pid, M, eps, ROWS)


def variants():
    """name -> how to launch it. 16 rows of 128 a program at 4 warps: two
    16-byte vectors per thread (first guess, not yet tuned on the H200;
    sglang #34507 reports 8 rows / 8 warps for its kernel on H200)."""
    native = dict(kernel=qk_rmsnorm, options=dict(num_warps=4, enable_fp_fusion=False))
    return {
        "qk_rmsnorm": dict(constexprs=dict(ROWS=16, DECREASING=True), exact=True, **native),
        "qk_rmsnorm_up": dict(constexprs=dict(ROWS=16, DECREASING=False), exact=False, **native),
        "qk_rmsnorm_f32": dict(kernel=qk_rmsnorm_f32, constexprs=dict(ROWS=16), options=dict(num_warps=4),
                               exact=False),
    }


def launch(spec, q, k, q_weight, k_weight, q_out, k_out, eps):
    """Runs one variant on [B, T, H, 128] q and k (contiguous)."""
    assert q.shape[-1] == HEAD_DIM and k.shape == q.shape, f"q {tuple(q.shape)}, k {tuple(k.shape)}: head_dim 128"
    m = q.numel() // HEAD_DIM
    grid = (triton.cdiv(m, spec["constexprs"]["ROWS"]), 2)
    return spec["kernel"][grid](q, k, q_weight, k_weight, q_out, k_out, m, eps, **spec["constexprs"],
                                **spec["options"])


SITE = dict(site="qk_rmsnorm", params=PARAMS, grid="cdiv(M, {ROWS}), 2", grid_note="axis 1: 0 = q, 1 = k")
