"""Python arms of abbench's four built-in GLM-Image sites (issue 21 item 4):
PyTorch's eager chains, as GLM-Image's transformer block calls them, and the
project's exact Triton kernels (scripts/triton/, imported, not copied).

Each function is an arm, fn(t, d) (docs/PYTHON_ARMS.md): t maps the site's
tensor names (kernels/<site>/site.c, `abbench sites`) to torch tensors on
abbench's own device buffers, with abbench's stream current; d carries the
case's axes, eps and affine. A function queues its work on the current
stream and writes the site's outputs into the tensors of t (through views
of them, never by rebinding them). The eager chains write their last op
straight into the output (`out=`), so they launch exactly PyTorch's kernels
and no extra copy; the qk chain is the exception: F.layer_norm has no
out= form, so its result is copied into q_out and k_out (one copy kernel
per tensor more than the built-in eager arm: compare times on the
ln_modulate and gate cases).

    site               eager                     Triton (exact)
    ln_modulate        ln_modulate_eager         ln_modulate_triton (ln_modulate_welford_shfl),
                                                 ln_modulate_triton_split (ln_modulate_welford)
    ln_continuous      the same functions (the same chain under another name)
    qk_layernorm       qk_layernorm_eager        qk_layernorm_triton (qk_welford)
    residual_gate_add  residual_gate_add_eager   none in scripts/triton/ (the built-in fused arm is CUDA C)

The Triton kernels take no affine LayerNorm and rows of at most 4096
(ln_modulate) or 128 (qk); a case outside that range is refused with a
one-line reason. They need torch built with CUDA and Triton; the eager
chains only torch. On the CPU backend t holds numpy arrays: these arms are
for the cuda backend (examples/python/lineage_numpy.py has numpy arms).
"""
import os
import sys

import torch
import torch.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRITON_DIR = os.path.join(REPO, "scripts", "triton")

_specs = {}


def _spec(module, name):
    """The launch spec of scripts/triton/MODULE.py's variant NAME, imported
    on first use (so that the eager arms work without Triton)."""
    key = (module, name)
    if key not in _specs:
        if TRITON_DIR not in sys.path:
            sys.path.insert(0, TRITON_DIR)
        mod = __import__(module)
        _specs[key] = (mod, mod.variants()[name])
    return _specs[key]


def _torch_only(t, d):
    if not all(v is None or isinstance(v, torch.Tensor) for v in t.values()):
        raise TypeError(f"glm_sites.py arms run on the cuda backend (backend here: {d.get('backend', '?')}); "
                        "on the cpu backend use numpy arms")


def _btw(t, d, name):
    """t[name] as a [B, T, W] view."""
    a = d["axes"]
    return t[name].view(a["B"], a["T"], a["W"])


def _bw(t, d, name):
    """A per-batch vector t[name] ([B, W]) as [B, 1, W], broadcast over tokens."""
    a = d["axes"]
    return t[name].view(a["B"], 1, a["W"])


def _bthd(t, d, name):
    a = d["axes"]
    return t[name].view(a["B"], a["T"], a["H"], a["D"])


def _no_affine(d, what):
    if d.get("affine"):
        raise ValueError(f"{what}: the Triton kernel has no affine LayerNorm (case '{d.get('case')}' has affine = true)")


# ---- ln_modulate, ln_continuous ------------------------------------------------


def ln_modulate_eager(t, d):
    """F.layer_norm, then * (1 + scale) + shift: PyTorch's four launches."""
    _torch_only(t, d)
    x = _btw(t, d, "x")
    y = F.layer_norm(x, (x.shape[-1], ), t.get("weight"), t.get("bias"), d["eps"])
    torch.add(y * (1 + _bw(t, d, "scale")), _bw(t, d, "shift"), out=_btw(t, d, "out"))


def _ln_modulate_triton(t, d, variant):
    _torch_only(t, d)
    _no_affine(d, variant)
    mod, spec = _spec("ln_modulate", variant)
    a = d["axes"]
    mod.launch(spec, _btw(t, d, "x"), t["scale"].view(a["B"], a["W"]), t["shift"].view(a["B"], a["W"]),
               _btw(t, d, "out"), d["eps"])


def ln_modulate_triton(t, d):
    """ln_modulate_welford_shfl: aten's Welford fold with warp shuffles, then the chain."""
    _ln_modulate_triton(t, d, "ln_modulate_welford_shfl")


def ln_modulate_triton_split(t, d):
    """ln_modulate_welford: the same fold from tl.split levels (slower, layout-proof)."""
    _ln_modulate_triton(t, d, "ln_modulate_welford")


# ---- qk_layernorm ----------------------------------------------------------------


def qk_layernorm_eager(t, d):
    """F.layer_norm over head_dim on q, then on k (two launches), each copied
    into its output."""
    _torch_only(t, d)
    for name in ("q", "k"):
        x = _bthd(t, d, name)
        _bthd(t, d, name + "_out").copy_(F.layer_norm(x, (x.shape[-1], ), t.get("weight"), t.get("bias"), d["eps"]))


def qk_layernorm_triton(t, d):
    """qk_welford: aten's Welford fold for rows of head_dim, q and k in one launch."""
    _torch_only(t, d)
    _no_affine(d, "qk_welford")
    mod, spec = _spec("qk_layernorm", "qk_welford")
    mod.launch(spec, _bthd(t, d, "q"), _bthd(t, d, "k"), _bthd(t, d, "q_out"), _bthd(t, d, "k_out"), d["eps"])


# ---- residual_gate_add -------------------------------------------------------------


def residual_gate_add_eager(t, d):
    """x + ff * gate: PyTorch's two launches."""
    _torch_only(t, d)
    torch.add(_btw(t, d, "x"), _btw(t, d, "ff") * _bw(t, d, "gate"), out=_btw(t, d, "out"))
