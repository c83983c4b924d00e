"""Sums of squares in the orders PyTorch's own CUDA kernels add them, spelled
in Triton for the RMSNorm kernels of the PR lineage (docs/LINEAGE_SITES.md).

Float addition is commutative, so an add tree is reproduced bit for bit when
every level pairs the same two partial sums; which operand comes first does
not matter (unlike aten_welford.combine, whose weights depend on it). Two
trees occur:

  halves (sum_half): level w pairs element l with element l + w/2, the
      survivors are the lower half. This is a shuffle-down fold with
      offsets w/2, w/4, ..., 1 (decreasing): aten's compute_stats for
      F.rms_norm (offsets 16..1 in each warp, then warps 0,1 take 2,3 and
      warp 0 takes 1), and Reduce.cuh's block_x_reduce on CUDA since it
      "fixed CUDA to have offset decreasing" (the mean of x.pow(2)).
  pairs (sum_pairs): level w pairs element 2i with element 2i + 1: the same
      fold with offsets 1, 2, 4, ... (increasing), Reduce.cuh's order on
      ROCm and before that change; kept so that a GPU check can tell the
      two orders apart on the machine's PyTorch.

Both are built from tl.split on permuted reshapes, a logical operation:
exact whatever layout Triton picks for the tensors.
"""
import triton
import triton.language as tl

from aten_welford import split4


@triton.jit
def sum_half(s, R: tl.constexpr, W: tl.constexpr):
    """[R, W] -> [R, W/2]: element l plus element l + W/2."""
    own, other = tl.split(tl.permute(tl.reshape(s, (R, 2, W // 2)), (0, 2, 1)))
    return own + other


@triton.jit
def sum_pairs(s, R: tl.constexpr, W: tl.constexpr):
    """[R, W] -> [R, W/2]: element 2i plus element 2i + 1."""
    even, odd = tl.split(tl.reshape(s, (R, W // 2, 2)))
    return even + odd


@triton.jit
def _fold_level(s, R: tl.constexpr, W: tl.constexpr, DECREASING: tl.constexpr):
    if DECREASING:
        s = sum_half(s, R, W)
    else:
        s = sum_pairs(s, R, W)
    return s


@triton.jit
def fold_lanes(s, R: tl.constexpr, W: tl.constexpr, DECREASING: tl.constexpr):
    """The shuffle fold of W lanes (W a power of two, 2 to 32) of each of
    R rows: lane 0's sum, shaped [R, 1]. DECREASING: offsets W/2 .. 1
    (sum_half levels), else 1 .. W/2 (sum_pairs levels)."""
    if W >= 32:
        s = _fold_level(s, R, 32, DECREASING)
    if W >= 16:
        s = _fold_level(s, R, 16, DECREASING)
    if W >= 8:
        s = _fold_level(s, R, 8, DECREASING)
    if W >= 4:
        s = _fold_level(s, R, 4, DECREASING)
    return _fold_level(s, R, 2, DECREASING)


@triton.jit
def fold_block_sum(s):
    """aten's compute_stats<T, rms_norm=true> fold of a (32, 4) block: s is
    the [128] per-thread sums, thread t = lane + 32 * warp. Each warp's
    shuffle-down fold (offsets 16..1), then warps 0 and 1 take 2 and 3 and
    warp 0 takes 1 (combine: dataB.sigma2 + dataA.sigma2). Returns [1, 1]."""
    w = fold_lanes(tl.reshape(s, (4, 32)), 4, 32, True)  # [4, 1]
    w = sum_half(tl.reshape(w, (1, 4)), 1, 4)  # [w0 + w2, w1 + w3]
    return sum_half(w, 1, 2)


@triton.jit
def split8(v):
    """The 8 values of a 16-byte vector of bf16: [L, 8] -> 8 tensors [L] in
    element order 0..7."""
    evens, odds = tl.split(tl.reshape(v, (v.shape[0], 4, 2)))  # elements 2p, 2p + 1
    e0, e2, e4, e6 = split4(evens)
    e1, e3, e5, e7 = split4(odds)
    return e0, e1, e2, e3, e4, e5, e6, e7

