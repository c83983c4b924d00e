"""Triton kernels for the silu_mul site (SwiGLU's gate: out = silu(a) * b),
a and b [M, N] bf16, the site's tensors laid out row-major.

PyTorch's eager chain is two launches, each rounding to bf16 (float math
inside): s = bf16(float(a) / (1 + expf(-float(a)))) (aten's silu_kernel:
opmath x / (1 + exp(-x)), expf and an IEEE division), then
out = bf16(float(s) * float(b)).

silu_mul: the chain's two roundings, expf from libdevice (the CUDA math
    library's expf, as aten's kernel calls it) and a round-to-nearest
    division; no contraction (enable_fp_fusion=False). Expected byte-equal
    to the eager chain.
silu_mul_f32: silu kept in float (no bf16 rounding of s), tl.exp's
    approximate exponential: what a compiler fusing the chain computes.
    Fast, NOT bit-exact; the contrast.

Flattened over M * N elements: BLOCK elements a program, 16-byte loads
(N % 8 == 0, the site's rule). E is specialised (not do_not_specialize): Triton
needs E's divisibility by 16 to prove the mask constant over 8 elements and
issue 16-byte loads; without it every load was 2 bytes wide (182 us instead
of ~115 at 4096x13696 on an H100). grid = cdiv(M * N, BLOCK).
"""
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice

PARAMS = ("a", "b", "out", "E")


@triton.jit
def silu_mul(a, b, out, E, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < E
    x = tl.load(a + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.math.div_rn(x, 1.0 + libdevice.exp(-x)).to(tl.bfloat16)
    y = tl.load(b + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out + offs, (s.to(tl.float32) * y).to(tl.bfloat16), mask=mask)


@triton.jit
def silu_mul_f32(a, b, out, E, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < E
    x = tl.load(a + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(b + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out + offs, (x / (1.0 + tl.exp(-x)) * y).to(tl.bfloat16), mask=mask)


def variants():
    """name -> how to launch it: 4096 elements a program at 8 warps, 16
    elements (two 16-byte loads of each input) per thread; a first guess."""
    cx = dict(BLOCK=4096)
    return {
        "silu_mul": dict(kernel=silu_mul, constexprs=cx, options=dict(num_warps=8, enable_fp_fusion=False),
                         exact=True),
        "silu_mul_f32": dict(kernel=silu_mul_f32, constexprs=cx, options=dict(num_warps=8), exact=False),
    }


def launch(spec, a, b, out):
    """Runs one variant over contiguous tensors of equal shape."""
    e = a.numel()
    cx = spec["constexprs"]
    return spec["kernel"][(triton.cdiv(e, cx["BLOCK"]),)](a, b, out, e, **cx, **spec["options"])


SITE = dict(site="silu_mul", params=PARAMS, grid="cdiv(M * N, {BLOCK})", grid_note="x: blocks of the flattened tensor")
