"""Triton kernels for the qk_layernorm site: the per-head LayerNorm (no
affine) of q and of k, [B, T, H, D] bf16 each, rows of D = head_dim, in one
launch. grid = (cdiv(M, ROWS), 2): axis 1 picks q (0) or k (1); M = B*T*H
rows per tensor.

User arguments, in order (the scenario's `params =`, docs/TRITON.md):
    q, k, q_out, k_out     bf16 pointers (16-byte aligned)
    M                      rows per tensor (i32)
    N                      head_dim (i32), N % 4 == 0, N <= 128
    eps                    f32
M and N are not specialised: one cubin serves every shape with N <= 128.

qk_naive: float32 statistics with tl.sum over [ROWS, 128] tiles.
qk_welford: aten's kernel for rows of N <= 128: a 128-thread block in which
    only warp 0 holds data (lane l owns vector l when l < N / 4); each
    lane's Welford over its 4 values, the shuffle-down fold of the 32 lanes,
    then the two combines with the (0, 0, 0) states of the empty warps (2,
    then 1), computed, not skipped; rsqrt.approx. enable_fp_fusion=False.
"""
import triton
import triton.language as tl

from aten_welford import combine, combine_uniform, fold_warp, fold_warp_uniform, online, split4, stats_tail

PARAMS = ("q", "k", "q_out", "k_out", "M", "N", "eps")


@triton.jit
def _naive_rows(src, dst, pid, M, N, eps, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = pid * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_D)
    rbase = tl.multiple_of(rows.to(tl.int64) * N, 4)
    offs = rbase[:, None] + cols[None, :]
    mask = (rows < M)[:, None] & (cols // 4 < N // 4)[None, :]  # constant over 4 columns: 8-byte loads
    v = tl.load(src + offs, mask=mask, other=0.0).to(tl.float32)
    n = N.to(tl.float32)
    mean = tl.sum(v, axis=1) / n
    d = tl.where(mask, v - mean[:, None], 0.0)
    var = tl.sum(d * d, axis=1) / n
    rstd = tl.math.rsqrt(var + eps)
    tl.store(dst + offs, (d * rstd[:, None]).to(tl.bfloat16), mask=mask)


@triton.jit(do_not_specialize=["M", "N"])
def qk_naive(q, k, q_out, k_out, M, N, eps, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    if tl.program_id(1) == 0:
        _naive_rows(q, q_out, pid, M, N, eps, ROWS, BLOCK_D)
    else:
        _naive_rows(k, k_out, pid, M, N, eps, ROWS, BLOCK_D)


@triton.jit
def _welford_rows(src, dst, pid, M, N, eps, ROWS: tl.constexpr):
    L: tl.constexpr = ROWS * 32
    rows = pid * ROWS + tl.arange(0, ROWS)
    lane = tl.arange(0, 32)
    e = tl.arange(0, 4)
    nvec = N // 4
    rbase = tl.multiple_of(rows.to(tl.int64) * N, 4)
    offs = rbase[:, None, None] + (lane * 4)[None, :, None] + e[None, None, :]
    lact = lane < nvec
    mask = (rows < M)[:, None, None] & lact[None, :, None]
    v = tl.load(src + offs, mask=mask, other=0.0).to(tl.float32)  # [ROWS, 32, 4]
    v0, v1, v2, v3 = split4(tl.reshape(v, (L, 4)))
    act = tl.reshape(tl.broadcast_to(lact[None, :], (ROWS, 32)), (L, ))
    mean = tl.zeros((L, ), tl.float32)
    sigma2 = tl.zeros((L, ), tl.float32)
    # counts 1..4: reciprocals 1, 1/2, rn(1/3), 1/4 (constants; see ln_modulate.py)
    mean, sigma2 = online(v0, mean, sigma2, tl.full((L, ), 1.0, tl.float32), act)
    mean, sigma2 = online(v1, mean, sigma2, tl.full((L, ), 0.5, tl.float32), act)
    mean, sigma2 = online(v2, mean, sigma2, tl.full((L, ), 1.0 / 3.0, tl.float32), act)
    mean, sigma2 = online(v3, mean, sigma2, tl.full((L, ), 0.25, tl.float32), act)
    # Lane 0's shuffle-down fold; then the block fold: warp 0 takes the empty
    # warp 2, then warp 1 (itself warp 1 combined with the empty warp 3:
    # still (0, 0, 0)).
    z = tl.zeros((ROWS, 1), tl.float32)
    if nvec == 32:
        # Every lane holds 4 values: the counts are constants (4, 8, ... 128).
        m, s = fold_warp_uniform(tl.reshape(mean, (ROWS, 32)), tl.reshape(sigma2, (ROWS, 32)), 4.0, ROWS)
        m, s = combine_uniform(m, s, z, z, 128.0, 0.0)
        m, s = combine_uniform(m, s, z, z, 128.0, 0.0)
    else:
        count = tl.where(act, 4.0, 0.0)
        m, s, c = fold_warp(tl.reshape(mean, (ROWS, 32)), tl.reshape(sigma2, (ROWS, 32)),
                            tl.reshape(count, (ROWS, 32)), ROWS)
        m, s, c = combine(m, s, c, z, z, z)
        m, s, c = combine(m, s, c, z, z, z)
    rstd = stats_tail(s, N.to(tl.float32), eps)  # [ROWS, 1]
    y = rstd[:, :, None] * (v - m[:, :, None])
    tl.store(dst + offs, y.to(tl.bfloat16), mask=mask)


@triton.jit(do_not_specialize=["M", "N"])
def qk_welford(q, k, q_out, k_out, M, N, eps, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    if tl.program_id(1) == 0:
        _welford_rows(q, q_out, pid, M, N, eps, ROWS)
    else:
        _welford_rows(k, k_out, pid, M, N, eps, ROWS)


def variants(rows_naive=16, rows_welford=8):
    return {
        "qk_naive": dict(kernel=qk_naive, constexprs=dict(ROWS=rows_naive, BLOCK_D=128), options=dict(num_warps=4),
                         n_max=128, exact=False),
        "qk_welford": dict(kernel=qk_welford, constexprs=dict(ROWS=rows_welford),
                           options=dict(num_warps=1, enable_fp_fusion=False), n_max=128, exact=True),
    }


def launch(spec, q, k, q_out, k_out, eps):
    """Runs one variant on [B, T, H, D] q and k; returns Triton's compiled kernel."""
    n = q.shape[-1]
    m = q.numel() // n
    assert n % 4 == 0 and n <= spec["n_max"], f"D={n} outside this cubin's range (D % 4 == 0, D <= 128)"
    grid = (triton.cdiv(m, spec["constexprs"]["ROWS"]), 2)
    return spec["kernel"][grid](q, k, q_out, k_out, m, n, eps, **spec["constexprs"], **spec["options"])


SITE = dict(site="qk_layernorm", params=PARAMS, grid="cdiv(M, {ROWS}), 2", grid_note="axis 1: 0 = q, 1 = k")
