"""Triton kernels for the ln_modulate site (adaLN-Zero norm1):
out = bf16(bf16(bf16(LN(x)) * bf16(1 + scale)) + shift), LayerNorm without
affine over rows of N, scale and shift [B, N] broadcast over the T tokens of
each batch. One program per row: grid = (M,), M = B * T.

User arguments, in order (the scenario's `params =`, docs/TRITON.md):
    x, scale, shift, out   bf16 pointers (16-byte aligned: Triton specialises
                           pointers on it)
    T                      tokens per batch (i32): row r uses scale[r // T]
    N                      row length (i32), N % 4 == 0, N <= the constexpr bound
    eps                    f32
T and N are not specialised (do_not_specialize): one cubin serves every
shape within its bound; the kernels tell the compiler N % 4 == 0 instead.

ln_modulate_naive: float32 statistics with tl.sum (two-pass mean and
    variance over the row held in registers), rsqrt, the three bf16
    roundings of the chain. Fast, not bit-exact: the sum order is not aten's.
ln_modulate_welford: aten's vectorized_layer_norm_kernel statistics: 128
    aten threads (a tensor axis of 128), thread t folding its vectors t,
    t + 128, ... element by element (Welford), the shuffle-down fold of each
    warp's 32 lanes, the fold of the 4 warps, rsqrt.approx; then the chain.
    Compiled with enable_fp_fusion=False (aten_welford.py says why). The
    tree is made of tl.split levels: exact whatever layout Triton picks,
    slow (Triton replicates the tree's tail in every thread: 179 registers).
ln_modulate_welford_shfl: the same, the lane levels done by warp shuffles
    (inline PTX): 56 registers, 2.2x faster; exact while Triton keeps aten's
    thread-to-lane mapping, which export.py's byte check proves per build.
Launch configurations: docs/PERF_NOTES.md, "Triton kernels".
"""
import triton
import triton.language as tl

from aten_welford import fold_block_shfl, fold_block_shfl_uniform, fold_half, fold_warp, online, split4, stats_tail

PARAMS = ("x", "scale", "shift", "out", "T", "N", "eps")

# aten's block for this kernel: (32, 4) threads, whatever N is.
ATEN_THREADS = 128


@triton.jit
def _modulate(ln, scale, shift, offs, mask):
    """The eager chain after the LayerNorm: each op rounds to bf16."""
    s1 = (tl.load(scale + offs, mask=mask, other=0.0).to(tl.float32) + 1.0).to(tl.bfloat16)
    z = (ln.to(tl.float32) * s1.to(tl.float32)).to(tl.bfloat16)
    sh = tl.load(shift + offs, mask=mask, other=0.0).to(tl.float32)
    return (z.to(tl.float32) + sh).to(tl.bfloat16)


@triton.jit(do_not_specialize=["T", "N"])
def ln_modulate_naive(x, scale, shift, out, T, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = tl.multiple_of(row * N, 4)
    pbase = tl.multiple_of((row // T) * N, 4)
    cols = tl.arange(0, BLOCK_N)
    mask = cols // 4 < N // 4  # == cols < N as N % 4 == 0, and constant over 4 columns: 8-byte loads
    v = tl.load(x + base + cols, mask=mask, other=0.0).to(tl.float32)
    n = N.to(tl.float32)
    mean = tl.sum(v, axis=0) / n
    d = tl.where(mask, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n
    rstd = tl.math.rsqrt(var + eps)
    ln = (rstd * d).to(tl.bfloat16)
    o = _modulate(ln, scale + pbase, shift + pbase, cols, mask)
    tl.store(out + base + cols, o, mask=mask)


@triton.jit
def _thread_welford(x, base, nvec, ITERS: tl.constexpr, TPB: tl.constexpr):
    """Pass 1: aten thread t folds vector j * 128 + t, its 4 values in order,
    for j < ITERS. An active thread's count before vector j is 4 j, so the
    reciprocals are constants: 1.0 / k is rounded to double, then to float,
    which for k < 2^28 is the correctly rounded float reciprocal aten
    computes. Returns the [128] (mean, sigma2, count) states."""
    t = tl.arange(0, TPB)
    e = tl.arange(0, 4)
    mean = tl.zeros((TPB, ), tl.float32)
    sigma2 = tl.zeros((TPB, ), tl.float32)
    count = tl.zeros((TPB, ), tl.float32)
    for j in tl.static_range(ITERS):
        vec = j * TPB + t
        act = vec < nvec
        v = tl.load(x + base + (vec * 4)[:, None] + e[None, :], mask=act[:, None], other=0.0).to(tl.float32)
        v0, v1, v2, v3 = split4(v)
        mean, sigma2 = online(v0, mean, sigma2, tl.full((TPB, ), 1.0 / (4 * j + 1), tl.float32), act)
        mean, sigma2 = online(v1, mean, sigma2, tl.full((TPB, ), 1.0 / (4 * j + 2), tl.float32), act)
        mean, sigma2 = online(v2, mean, sigma2, tl.full((TPB, ), 1.0 / (4 * j + 3), tl.float32), act)
        mean, sigma2 = online(v3, mean, sigma2, tl.full((TPB, ), 1.0 / (4 * j + 4), tl.float32), act)
        count = tl.where(act, 4.0 * j + 4.0, count)
    return mean, sigma2, count


@triton.jit
def _normalize_modulate(x, scale, shift, out, base, pbase, nvec, m, rstd, ITERS: tl.constexpr, TPB: tl.constexpr):
    """Pass 2: rstd * (x - mean), then the chain (the row comes back from L1/L2)."""
    t = tl.arange(0, TPB)
    e = tl.arange(0, 4)
    for j in tl.static_range(ITERS):
        vec = j * TPB + t
        act = (vec < nvec)[:, None]
        offs = (vec * 4)[:, None] + e[None, :]
        v = tl.load(x + base + offs, mask=act, other=0.0).to(tl.float32)
        ln = (rstd * (v - m)).to(tl.bfloat16)
        o = _modulate(ln, scale + pbase, shift + pbase, offs, act)
        tl.store(out + base + offs, o, mask=act)


@triton.jit(do_not_specialize=["T", "N"])
def ln_modulate_welford(x, scale, shift, out, T, N, eps, ITERS: tl.constexpr):
    """ITERS: vectors per aten thread at the largest N served (N <= 512 * ITERS).
    The fold by tl.split levels: exact whatever layout Triton picks."""
    TPB: tl.constexpr = 128
    row = tl.program_id(0).to(tl.int64)
    base = tl.multiple_of(row * N, 4)
    pbase = tl.multiple_of((row // T) * N, 4)
    nvec = N // 4
    mean, sigma2, count = _thread_welford(x, base, nvec, ITERS, TPB)
    # Each warp's shuffle-down fold, then warps 0,1 take 2,3 and warp 0 takes 1.
    m, s, c = fold_warp(tl.reshape(mean, (4, 32)), tl.reshape(sigma2, (4, 32)), tl.reshape(count, (4, 32)), 4)
    m, s, c = fold_half(tl.reshape(m, (1, 4)), tl.reshape(s, (1, 4)), tl.reshape(c, (1, 4)), 1, 4)
    m, s, c = fold_half(m, s, c, 1, 2)
    rstd = stats_tail(s, N.to(tl.float32), eps)  # [1, 1]
    _normalize_modulate(x, scale, shift, out, base, pbase, nvec, m, rstd, ITERS, TPB)


@triton.jit(do_not_specialize=["T", "N"])
def ln_modulate_welford_shfl(x, scale, shift, out, T, N, eps, ITERS: tl.constexpr):
    """ln_modulate_welford with the lane fold made of real shuffles
    (aten_welford.fold_block_shfl*): exact only while the states keep
    aten's thread-to-lane mapping, which export.py's byte check proves per
    build. When every aten thread has the same count (N % 512 == 0) the
    fold's reciprocals are scalars."""
    TPB: tl.constexpr = 128
    row = tl.program_id(0).to(tl.int64)
    base = tl.multiple_of(row * N, 4)
    pbase = tl.multiple_of((row // T) * N, 4)
    nvec = N // 4
    mean, sigma2, count = _thread_welford(x, base, nvec, ITERS, TPB)
    if nvec % TPB == 0:
        m, s = fold_block_shfl_uniform(mean, sigma2, (nvec // TPB * 4).to(tl.float32))
    else:
        m, s = fold_block_shfl(mean, sigma2, count)
    rstd = stats_tail(s, N.to(tl.float32), eps)  # [1, 1]
    _normalize_modulate(x, scale, shift, out, base, pbase, nvec, m, rstd, ITERS, TPB)


def variants(n_max=4096):
    """name -> how to launch it: kernel, constexprs, launch options, grid
    rule, and the largest N the cubin serves."""
    block_n = triton.next_power_of_2(n_max)
    iters = triton.cdiv(n_max, 4 * ATEN_THREADS)
    return {
        "ln_modulate_naive": dict(kernel=ln_modulate_naive, constexprs=dict(BLOCK_N=block_n),
                                  options=dict(num_warps=8), n_max=block_n, exact=False),
        "ln_modulate_welford": dict(kernel=ln_modulate_welford, constexprs=dict(ITERS=iters),
                                    options=dict(num_warps=4, enable_fp_fusion=False),
                                    n_max=iters * 4 * ATEN_THREADS, exact=True),
        "ln_modulate_welford_shfl": dict(kernel=ln_modulate_welford_shfl, constexprs=dict(ITERS=iters),
                                         options=dict(num_warps=4, enable_fp_fusion=False),
                                         n_max=iters * 4 * ATEN_THREADS, exact=True),
    }


def launch(spec, x, scale, shift, out, eps):
    """Runs one variant on [B, T, N] x with [B, N] scale and shift; returns
    Triton's compiled kernel."""
    b, t, n = x.shape
    assert n % 4 == 0 and n <= spec["n_max"], f"N={n} outside this cubin's range (N % 4 == 0, N <= {spec['n_max']})"
    return spec["kernel"][(b * t, )](x, scale, shift, out, t, n, eps, **spec["constexprs"], **spec["options"])


SITE = dict(site="ln_modulate", params=PARAMS, grid="M", grid_note="one program per row")
