"""Triton kernels for the modulate_scale_shift site (sglang #34004):
out = x * (1 + scale) + shift, x [B, T, W] bf16, scale and shift [B, W]
broadcast over the T tokens of each batch (the model's [B, 1, W]).

PyTorch's eager chain is three launches, each rounding to bf16 (float math
inside): s1 = bf16(float(scale) + 1), z = bf16(float(x) * float(s1)),
out = bf16(float(z) + float(shift)). Nothing is reduced, so a kernel that
makes the same three roundings per element is byte-equal by construction.

User arguments, in order (PARAMS, the names a cubin arm's `params =` would use):
    x, scale, shift, out   bf16 pointers (16-byte aligned)
    M                      rows B * T (i32)
    T                      tokens per batch (i32): row r uses scale[r // T]
    W                      row length (i32), W % 8 == 0 (the site's rule)
M, T and W are not specialised: one compilation serves every shape.

modulate_scale_shift: the chain's three roundings, [ROWS, BLOCK_W] tiles,
    16-byte loads (the row base is a multiple of 8 elements and the mask is
    constant over 8 columns). Compiled with enable_fp_fusion=False, though
    the bf16 casts between the ops leave nothing to contract.
modulate_scale_shift_f32: x * (1 + scale) + shift in float with one final
    rounding (what a compiler that fuses the chain without its
    intermediate roundings computes): fast, NOT bit-exact; the contrast.
grid = (cdiv(M, ROWS), cdiv(W, BLOCK_W)).
"""
import triton
import triton.language as tl

PARAMS = ("x", "scale", "shift", "out", "M", "T", "W")


@triton.jit
def _tile(M, T, W, ROWS: tl.constexpr, BLOCK_W: tl.constexpr):
    """This program's element offsets, parameter offsets and mask."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    r64 = rows.to(tl.int64)
    base = tl.multiple_of(r64 * W, 8)
    pbase = tl.multiple_of((r64 // T) * W, 8)
    mask = (rows < M)[:, None] & (cols // 8 < W // 8)[None, :]  # == cols < W as W % 8 == 0
    return base[:, None] + cols[None, :], pbase[:, None] + cols[None, :], mask


@triton.jit(do_not_specialize=["M", "T", "W"])
def modulate_scale_shift(x, scale, shift, out, M, T, W, ROWS: tl.constexpr, BLOCK_W: tl.constexpr):
    offs, poffs, mask = _tile(M, T, W, ROWS, BLOCK_W)
    v = tl.load(x + offs, mask=mask, other=0.0).to(tl.float32)
    s1 = (tl.load(scale + poffs, mask=mask, other=0.0).to(tl.float32) + 1.0).to(tl.bfloat16)
    z = (v * s1.to(tl.float32)).to(tl.bfloat16)
    sh = tl.load(shift + poffs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out + offs, (z.to(tl.float32) + sh).to(tl.bfloat16), mask=mask)


@triton.jit(do_not_specialize=["M", "T", "W"])
def modulate_scale_shift_f32(x, scale, shift, out, M, T, W, ROWS: tl.constexpr, BLOCK_W: tl.constexpr):
    offs, poffs, mask = _tile(M, T, W, ROWS, BLOCK_W)
    v = tl.load(x + offs, mask=mask, other=0.0).to(tl.float32)
    s1 = tl.load(scale + poffs, mask=mask, other=0.0).to(tl.float32) + 1.0
    sh = tl.load(shift + poffs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out + offs, (v * s1 + sh).to(tl.bfloat16), mask=mask)


def variants():
    """name -> how to launch it. ROWS x BLOCK_W = 4096 elements a program,
    32 per thread at 4 warps: 4 16-byte loads of x in flight per thread
    (first guess, not yet tuned on the H200)."""
    cx = dict(ROWS=4, BLOCK_W=1024)
    return {
        "modulate_scale_shift": dict(kernel=modulate_scale_shift, constexprs=cx,
                                     options=dict(num_warps=4, enable_fp_fusion=False), exact=True),
        "modulate_scale_shift_f32": dict(kernel=modulate_scale_shift_f32, constexprs=cx, options=dict(num_warps=4),
                                         exact=False),
    }


def launch(spec, x, scale, shift, out):
    """Runs one variant on [B, T, W] x with [B, W] scale and shift."""
    b, t, w = x.shape
    assert w % 8 == 0, f"W={w}: the kernel needs W % 8 == 0 (16-byte rows)"
    cx = spec["constexprs"]
    grid = (triton.cdiv(b * t, cx["ROWS"]), triton.cdiv(w, cx["BLOCK_W"]))
    return spec["kernel"][grid](x, scale, shift, out, b * t, t, w, **cx, **spec["options"])


SITE = dict(site="modulate_scale_shift", params=PARAMS, grid="cdiv(M, {ROWS}), cdiv(W, {BLOCK_W})",
            grid_note="x: row blocks, y: column blocks")
