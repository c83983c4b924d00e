"""glm_block_triton.py - the GLM-Image block's three fused site kinds as
Triton kernels, byte-equal to PyTorch's eager chain: the second fused path
of glm_block.py (the first is abbench's CUDA kernels through abk.py).

  ln_modulate   scripts/triton/ln_modulate.py's ln_modulate_welford_shfl
                (aten's Welford fold, warp shuffles; docs/TRITON.md)
  qk_layernorm  scripts/triton/qk_layernorm.py's qk_welford (q and k in
                one launch)
  gate_add      gate_add_exact below: out = bf16(x + bf16(y * gate)), the
                product rounded to bf16 before the add as PyTorch's two
                launches round it, compiled with enable_fp_fusion=False so
                that no FMA contracts the two

The exactness of the two Welford kernels is a property of each Triton
build (docs/TRITON.md), which scripts/gpu/block_check.py checks on the
block's own tensors. Kernels are compiled at their first call (the
warm-up of an abbench arm), one per row-length bound.
"""
import os
import sys

import triton
import triton.language as tl

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(_HERE)), "scripts", "triton"))

import ln_modulate as _ln  # noqa: E402  (scripts/triton/)
import qk_layernorm as _qk  # noqa: E402

GATE_BLOCK = 1024  # elements per program along W; 4 warps, 8 per thread


@triton.jit(do_not_specialize=["T", "W"])
def gate_add_exact(x, y, gate, out, T, W, BLOCK: tl.constexpr):
    """Row r = b * T + t of [B*T, W]: out = bf16(x + bf16(y * gate[b]))."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < W
    base = row * W
    xv = tl.load(x + base + cols, mask=mask, other=0.0).to(tl.float32)
    yv = tl.load(y + base + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(gate + (row // T) * W + cols, mask=mask, other=0.0).to(tl.float32)
    prod = (yv * g).to(tl.bfloat16).to(tl.float32)
    tl.store(out + base + cols, (xv + prod).to(tl.bfloat16), mask=mask)


class Kernels:
    """Same calls as abk.Kernels, on Triton."""

    def __init__(self):
        self.ln_specs = {}
        self.qk_spec = _qk.variants()["qk_welford"]

    def _ln_spec(self, w):
        """The exact LN+modulate variant whose row bound covers w."""
        bound = max(512, triton.next_power_of_2(w))
        if bound not in self.ln_specs:
            self.ln_specs[bound] = _ln.variants(n_max=bound)["ln_modulate_welford_shfl"]
        return self.ln_specs[bound]

    def ln_modulate(self, x, scale, shift, out, eps):
        _ln.launch(self._ln_spec(x.shape[-1]), x, scale, shift, out, eps)

    def qk_layernorm(self, q, k, q_out, k_out, eps):
        _qk.launch(self.qk_spec, q, k, q_out, k_out, eps)

    def gate_add(self, x, y, gate, out):
        b, t, w = x.shape
        grid = (b * t, triton.cdiv(w, GATE_BLOCK))
        gate_add_exact[grid](x, y, gate, out, t, w, BLOCK=GATE_BLOCK, num_warps=4, enable_fp_fusion=False)
