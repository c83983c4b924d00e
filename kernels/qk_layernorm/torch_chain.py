"""PyTorch's eager chain of qk_layernorm (ATEN_CHAIN.md): one LayerNorm over
head_dim on q, one on k, with the same weight and bias.

Read by scripts/site_chains.py for the oracle and the timing script;
tensors by the site's names (kernels/qk_layernorm/site.c).
"""
import torch
import torch.nn.functional as F

SITES = ("qk_layernorm",)


def chain(t, eps):
    """The model's expression: its output tensors by name."""
    w, b = t.get("weight"), t.get("bias")
    return {name + "_out": F.layer_norm(t[name], (t[name].shape[-1],), w, b, eps) for name in ("q", "k")}


def stats(t, eps):
    """aten's per-row (mean, rstd) of each LayerNorm, keyed by the prefix of
    the eager arm's statistics tensors (q_mean, q_rstd, k_mean, k_rstd)."""
    out = {}
    for name in ("q", "k"):
        v = t[name]
        _, mean, rstd = torch.ops.aten.native_layer_norm(v, (v.shape[-1],), t.get("weight"), t.get("bias"), eps)
        out[name + "_"] = (mean, rstd)
    return out


def inputs(shape, rnd, affine):
    """Random inputs for timing: shape is [B, T, H, D]."""
    d = shape[-1]
    return {"q": rnd(*shape), "k": rnd(*shape),
            "weight": (1 + 0.1 * rnd(d)) if affine else None, "bias": (0.1 * rnd(d)) if affine else None}
