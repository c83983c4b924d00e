"""PyTorch's eager chain of residual_gate_add (ATEN_CHAIN.md): x + ff * gate,
gate broadcast over tokens.

Read by scripts/site_chains.py for the oracle and the timing script;
tensors by the site's names (kernels/residual_gate_add/site.c).
"""

SITES = ("residual_gate_add",)


def chain(t, eps):
    """The model's expression: its output tensors by name (eps unused)."""
    del eps
    return {"out": t["x"] + t["ff"] * t["gate"].unsqueeze(1)}


def stats(t, eps):
    """No LayerNorm: no statistics."""
    del t, eps
    return {}


def inputs(shape, rnd, affine):
    """Random inputs for timing: shape is [B, T, W]."""
    del affine
    b, _, w = shape
    return {"x": rnd(*shape), "ff": rnd(*shape), "gate": 0.5 * rnd(b, w)}
