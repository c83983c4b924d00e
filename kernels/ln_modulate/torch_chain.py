"""PyTorch's eager chain of ln_modulate and ln_continuous (ATEN_CHAIN.md),
as GLM-Image calls it: F.layer_norm, then * (1 + scale) + shift.

Read by scripts/site_chains.py for the oracle (scripts/torch_oracle.py) and
the timing script (scripts/torch_timing.py). Tensors are passed and
returned by the site's tensor names (kernels/ln_modulate/site.c);
weight and bias are None without affine.
"""
import torch
import torch.nn.functional as F

SITES = ("ln_modulate", "ln_continuous")


def chain(t, eps):
    """The model's expression: its output tensors by name."""
    x = t["x"]
    y = F.layer_norm(x, (x.shape[-1],), t.get("weight"), t.get("bias"), eps)
    return {"out": y * (1 + t["scale"]).unsqueeze(1) + t["shift"].unsqueeze(1)}


def stats(t, eps):
    """aten's per-row (mean, rstd) of each LayerNorm of the chain, keyed by
    the prefix of the eager arm's statistics tensors ("" -> mean, rstd)."""
    x = t["x"]
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, (x.shape[-1],), t.get("weight"), t.get("bias"), eps)
    return {"": (mean, rstd)}


def inputs(shape, rnd, affine):
    """Random inputs for timing: shape is [B, T, W]; rnd(*dims) draws a bf16
    tensor of N(0, 1) values on the GPU."""
    b, _, w = shape
    return {"x": rnd(*shape), "scale": 0.5 * rnd(b, w), "shift": 0.5 * rnd(b, w),
            "weight": (1 + 0.1 * rnd(w)) if affine else None, "bias": (0.1 * rnd(w)) if affine else None}
