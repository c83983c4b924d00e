"""aten's LayerNorm statistics, spelled in Triton so that every rounding is
the one PyTorch's vectorized_layer_norm_kernel<BFloat16, float> makes.

The arithmetic (docs/TRITON.md and /work/shared/ATEN_CHAIN.md; the CUDA
spelling is kernels/common/welford.cuh, "pinned"):

  online(v):   delta = v - mean; r = 1/count' (IEEE reciprocal);
               mean' = fma(r, delta, mean); sigma2' = fma(delta, v - mean', sigma2)
  combine(own, other):
               delta = own.mean - other.mean; count = other.count + own.count;
               c = 1/count; n_other = other.count * c; n_own = own.count * c;
               mean = fma(n_other, other.mean, n_own * own.mean)
               sigma2 = fma((delta * delta) * other.count, n_own, other.sigma2 + own.sigma2)
               count == 0: mean = sigma2 = 0
  tail:        var = sigma2 / N (correctly rounded); rstd = rsqrt.approx(var + eps)

Triton's own operators do not make those roundings by themselves: its
float32 `/` is div.full.f32 (approximate, 2 ulp) and, with fp fusion on,
LLVM and ptxas contract any mul/add pair they like. So these helpers use
tl.math.div_rn for every division, tl.fma exactly where aten's binary has an
FMA, and the kernels that call them are compiled with enable_fp_fusion=False
(no other contraction, ptxas --fmad=false). rsqrt is inline PTX,
rsqrt.approx.f32, the instruction nvcc emits for aten's rsqrtf (no ftz).

The aten block is (32, 4): 128 "threads"; thread t = lane + 32 * warp. A
state tensor here has one element per aten thread, so a fold over lanes is a
fold over a tensor axis. Each fold level combines the lower half of the axis
(own) with the upper half (other): the lanes a shuffle-down tree reads for
the lanes whose results survive (l < offset reads l + offset). tl.split on a
permuted reshape takes the halves apart; it is a logical operation, exact
whatever layout the compiler picks.
"""
import triton
import triton.language as tl


@triton.jit
def recip_rn(c):
    """1 / c, correctly rounded (aten's 1.f / count: rcp.rn.f32)."""
    return tl.math.div_rn(tl.full(c.shape, 1.0, tl.float32), c)


@triton.jit
def rsqrt_approx(x):
    """aten's rsqrtf: the hardware approximation, not 1 / sqrt."""
    return tl.inline_asm_elementwise("rsqrt.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True,
                                     pack=1)


@triton.jit
def online(v, mean, sigma2, r, active):
    """Folds v into (mean, sigma2) where active; r is 1/(count + 1), shaped like v."""
    delta = v - mean
    m = tl.fma(r, delta, mean)
    s = tl.fma(delta, v - m, sigma2)
    return tl.where(active, m, mean), tl.where(active, s, sigma2)


@triton.jit
def combine(m_own, s_own, c_own, m_oth, s_oth, c_oth):
    """cuWelfordCombine(dataB = own, dataA = other), count 0 taken as aten takes it."""
    delta = m_own - m_oth
    count = c_oth + c_own
    coef = recip_rn(count)
    n_oth = c_oth * coef
    n_own = c_own * coef
    mean = tl.fma(n_oth, m_oth, n_own * m_own)
    sigma2 = tl.fma((delta * delta) * c_oth, n_own, s_oth + s_own)
    nonzero = count > 0.0
    return tl.where(nonzero, mean, 0.0), tl.where(nonzero, sigma2, 0.0), count


@triton.jit
def fold_half(m, s, c, R: tl.constexpr, W: tl.constexpr):
    """One shuffle-down level along axis 1 of [R, W] states: element l < W/2
    combines itself (own) with element l + W/2 (other). Returns [R, W/2]."""
    m_own, m_oth = tl.split(tl.permute(tl.reshape(m, (R, 2, W // 2)), (0, 2, 1)))
    s_own, s_oth = tl.split(tl.permute(tl.reshape(s, (R, 2, W // 2)), (0, 2, 1)))
    c_own, c_oth = tl.split(tl.permute(tl.reshape(c, (R, 2, W // 2)), (0, 2, 1)))
    return combine(m_own, s_own, c_own, m_oth, s_oth, c_oth)


@triton.jit
def combine_uniform(m_own, s_own, m_oth, s_oth, c_own, c_oth):
    """combine() where every element has the same counts, given as scalars
    (run-time or constant; their sum > 0): the reciprocal and the weights are
    computed once, not per element. The same roundings as combine()."""
    delta = m_own - m_oth
    count = c_oth + c_own
    coef = tl.math.div_rn(1.0, count)
    n_oth = c_oth * coef
    n_own = c_own * coef
    zero = tl.zeros(m_own.shape, tl.float32)  # zero + w == w for the weights w >= +0
    mean = tl.fma(zero + n_oth, m_oth, (zero + n_own) * m_own)
    sigma2 = tl.fma((delta * delta) * c_oth, zero + n_own, s_oth + s_own)
    return mean, sigma2


@triton.jit
def fold_half_uniform(m, s, c, R: tl.constexpr, W: tl.constexpr):
    """fold_half() when every element's count is the scalar c: returns the
    [R, W/2] states, whose count is 2 c."""
    m_own, m_oth = tl.split(tl.permute(tl.reshape(m, (R, 2, W // 2)), (0, 2, 1)))
    s_own, s_oth = tl.split(tl.permute(tl.reshape(s, (R, 2, W // 2)), (0, 2, 1)))
    return combine_uniform(m_own, s_own, m_oth, s_oth, c, c)


@triton.jit
def fold_warp_uniform(m, s, c, R: tl.constexpr):
    """fold_warp() when every lane's count is the scalar c (lane 0 ends with 32 c)."""
    m, s = fold_half_uniform(m, s, c, R, 32)
    m, s = fold_half_uniform(m, s, 2.0 * c, R, 16)
    m, s = fold_half_uniform(m, s, 4.0 * c, R, 8)
    m, s = fold_half_uniform(m, s, 8.0 * c, R, 4)
    m, s = fold_half_uniform(m, s, 16.0 * c, R, 2)
    return m, s


@triton.jit
def fold_warp(m, s, c, R: tl.constexpr):
    """The shuffle-down fold of 32 lanes (offsets 16, 8, 4, 2, 1) of each of
    R rows of states [R, 32]: lane 0's result, shaped [R, 1]."""
    m, s, c = fold_half(m, s, c, R, 32)
    m, s, c = fold_half(m, s, c, R, 16)
    m, s, c = fold_half(m, s, c, R, 8)
    m, s, c = fold_half(m, s, c, R, 4)
    m, s, c = fold_half(m, s, c, R, 2)
    return m, s, c


@triton.jit
def split4(v):
    """The 4 values of aten's 8-byte vectors: [R, 4] -> 4 tensors [R] in
    element order 0, 1, 2, 3."""
    q0, q1 = tl.split(tl.reshape(v, (v.shape[0], 2, 2)))  # element 2p + q: q0 holds p = 0, 1 of q = 0
    e0, e2 = tl.split(q0)
    e1, e3 = tl.split(q1)
    return e0, e1, e2, e3


@triton.jit
def stats_tail(sigma2, n, eps):
    """rstd from the folded sigma2: rsqrt.approx(sigma2 / N + eps), N a float."""
    var = tl.math.div_rn(sigma2, tl.full(sigma2.shape, 0.0, tl.float32) + n)
    return rsqrt_approx(var + eps)


# ---- real warp shuffles ------------------------------------------------------
#
# The split-based folds above are exact whatever layout Triton picks, but
# Triton tends to pick replicated layouts for a tree's tail (every thread
# holding every remaining state), which costs registers. The folds below use
# the shuffles aten uses, as inline PTX on a [128] state tensor whose
# element t must live in lane t % 32 (of warp t // 32, or in a register
# holding the same lane): the layout Triton gives the slices of the [128, 4]
# load tile. That is a property of the compiled kernel, not of the language,
# so export.py's byte check against PyTorch is what proves each build.


@triton.jit
def shfl_down(x, OFFSET: tl.constexpr):
    """__shfl_down_sync(0xffffffff, x, OFFSET, 32) on each element of a float tensor."""
    off = tl.full(x.shape, OFFSET, tl.int32)
    y = tl.inline_asm_elementwise("shfl.sync.down.b32 $0, $1, $2, 31, 0xffffffff;", "=r,r,r",
                                  [x.to(tl.int32, bitcast=True), off], dtype=tl.int32, is_pure=True, pack=1)
    return y.to(tl.float32, bitcast=True)


@triton.jit
def shfl_lane0(x):
    """__shfl_sync(0xffffffff, x, 0, 32): lane 0's value in every lane."""
    y = tl.inline_asm_elementwise("shfl.sync.idx.b32 $0, $1, 0, 31, 0xffffffff;", "=r,r",
                                  [x.to(tl.int32, bitcast=True)], dtype=tl.int32, is_pure=True, pack=1)
    return y.to(tl.float32, bitcast=True)


@triton.jit
def warp_results(x):
    """[128] with lane 0 of each warp holding its warp's result -> [4]: lane
    0's value broadcast in its warp, then the max of 32 equal values (exact,
    -0 and NaN included: every operand is the same bits)."""
    return tl.max(tl.reshape(shfl_lane0(x), (4, 32)), axis=1)


@triton.jit
def _shfl_level_uniform(m, s, c, OFFSET: tl.constexpr):
    """One shuffle-down level: each lane combines its state with lane + OFFSET's."""
    return combine_uniform(m, s, shfl_down(m, OFFSET), shfl_down(s, OFFSET), c, c)


@triton.jit
def _shfl_level(m, s, c, OFFSET: tl.constexpr):
    return combine(m, s, c, shfl_down(m, OFFSET), shfl_down(s, OFFSET), shfl_down(c, OFFSET))


@triton.jit
def fold_block_shfl_uniform(m, s, c):
    """aten's compute_stats fold of a (32, 4) block, every thread's count the
    scalar c: shuffle-down levels 16..1 in each warp, then warps 0,1 take
    2,3 and warp 0 takes 1. m, s: [128]. Returns [1, 1] mean and sigma2."""
    m, s = _shfl_level_uniform(m, s, c, 16)
    m, s = _shfl_level_uniform(m, s, 2.0 * c, 8)
    m, s = _shfl_level_uniform(m, s, 4.0 * c, 4)
    m, s = _shfl_level_uniform(m, s, 8.0 * c, 2)
    m, s = _shfl_level_uniform(m, s, 16.0 * c, 1)
    m = tl.reshape(warp_results(m), (1, 4))
    s = tl.reshape(warp_results(s), (1, 4))
    m, s = fold_half_uniform(m, s, 32.0 * c, 1, 4)
    return fold_half_uniform(m, s, 64.0 * c, 1, 2)


@triton.jit
def fold_block_shfl(m, s, c):
    """fold_block_shfl_uniform() with a count per thread (c: [128])."""
    m, s, c = _shfl_level(m, s, c, 16)
    m, s, c = _shfl_level(m, s, c, 8)
    m, s, c = _shfl_level(m, s, c, 4)
    m, s, c = _shfl_level(m, s, c, 2)
    m, s, c = _shfl_level(m, s, c, 1)
    m = tl.reshape(warp_results(m), (1, 4))
    s = tl.reshape(warp_results(s), (1, 4))
    c = tl.reshape(warp_results(c), (1, 4))
    m, s, c = fold_half(m, s, c, 1, 4)
    m, s, c = fold_half(m, s, c, 1, 2)
    return m, s
