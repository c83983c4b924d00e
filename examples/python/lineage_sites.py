"""Python arms of the PR lineage's declared sites (issue 21 item 5;
scenarios/sites/*.ini, docs/LINEAGE_SITES.md): for each, PyTorch's eager
chain as the model writes it and the Triton kernel written for it
(scripts/triton/), as fn(t, d) over abbench's device buffers
(docs/PYTHON_ARMS.md). Tensor names are the declared sites'.

    site                   eager                        Triton
    modulate_scale_shift   modulate_scale_shift_eager   modulate_scale_shift_triton (exact),
                                                        modulate_scale_shift_triton_f32 (not exact)
    rmsnorm_scale_shift    rmsnorm_scale_shift_eager    rmsnorm_scale_shift_triton (exact),
                                                        rmsnorm_scale_shift_triton_naive (not exact)
    qk_rmsnorm             qk_rmsnorm_eager             qk_rmsnorm_triton (exact),
                                                        qk_rmsnorm_triton_up (the older lane-fold order),
                                                        qk_rmsnorm_triton_f32 (not exact)

The eager chains end with an out= op into the site's output, so they launch
PyTorch's kernels and nothing more. CUDA backend only (torch tensors).
"""
import torch
import torch.nn.functional as F

from glm_sites import _btw, _bthd, _bw, _spec, _torch_only


def _bw2(t, d, name):
    """A per-batch vector as the [B, W] tensor the kernels take."""
    a = d["axes"]
    return t[name].view(a["B"], a["W"])


# ---- modulate_scale_shift (sglang #34004) ------------------------------------------


def modulate_scale_shift_eager(t, d):
    """x * (1 + scale) + shift: 1 + scale, the broadcast multiply, the broadcast add."""
    _torch_only(t, d)
    torch.add(_btw(t, d, "x") * (1 + _bw(t, d, "scale")), _bw(t, d, "shift"), out=_btw(t, d, "out"))


def _modulate_triton(t, d, variant):
    _torch_only(t, d)
    mod, spec = _spec("modulate_scale_shift", variant)
    mod.launch(spec, _btw(t, d, "x"), _bw2(t, d, "scale"), _bw2(t, d, "shift"), _btw(t, d, "out"))


def modulate_scale_shift_triton(t, d):
    _modulate_triton(t, d, "modulate_scale_shift")


def modulate_scale_shift_triton_f32(t, d):
    _modulate_triton(t, d, "modulate_scale_shift_f32")


# ---- rmsnorm_scale_shift (ERNIE-Image, sglang #33854) -------------------------------


def rmsnorm_scale_shift_eager(t, d):
    """F.rms_norm(x, (W,), weight, eps), then * (1 + scale) + shift."""
    _torch_only(t, d)
    x = _btw(t, d, "x")
    y = F.rms_norm(x, (x.shape[-1], ), t["weight"], d["eps"])
    torch.add(y * (1 + _bw(t, d, "scale")), _bw(t, d, "shift"), out=_btw(t, d, "out"))


def _rmsnorm_triton(t, d, variant):
    _torch_only(t, d)
    mod, spec = _spec("rmsnorm_scale_shift", variant)
    mod.launch(spec, _btw(t, d, "x"), t["weight"], _bw2(t, d, "scale"), _bw2(t, d, "shift"), _btw(t, d, "out"),
               d["eps"])


def rmsnorm_scale_shift_triton(t, d):
    _rmsnorm_triton(t, d, "rmsnorm_scale_shift")


def rmsnorm_scale_shift_triton_naive(t, d):
    _rmsnorm_triton(t, d, "rmsnorm_scale_shift_naive")


# ---- qk_rmsnorm (Z-Image, sglang #33886) --------------------------------------------


def qk_rmsnorm_eager(t, d):
    """Z-Image's native-bf16 RMSNorm on q, then on k: pow, mean, + eps,
    rsqrt, * rstd, * weight (six launches a tensor)."""
    _torch_only(t, d)
    for name in ("q", "k"):
        x = _bthd(t, d, name)
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + d["eps"])
        torch.mul(y, t[name + "_weight"], out=_bthd(t, d, name + "_out"))


def _qk_triton(t, d, variant):
    _torch_only(t, d)
    mod, spec = _spec("qk_rmsnorm", variant)
    mod.launch(spec, _bthd(t, d, "q"), _bthd(t, d, "k"), t["q_weight"], t["k_weight"], _bthd(t, d, "q_out"),
               _bthd(t, d, "k_out"), d["eps"])


def qk_rmsnorm_triton(t, d):
    _qk_triton(t, d, "qk_rmsnorm")


def qk_rmsnorm_triton_up(t, d):
    _qk_triton(t, d, "qk_rmsnorm_up")


def qk_rmsnorm_triton_f32(t, d):
    _qk_triton(t, d, "qk_rmsnorm_f32")
