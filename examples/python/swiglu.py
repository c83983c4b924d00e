"""Python arms of the silu_mul site (scenarios/sites/silu_mul.ini, SwiGLU's
gate): PyTorch's eager chain as a model writes it and the Triton kernels of
scripts/triton/silu_mul.py, as fn(t, d) over abbench's device buffers
(docs/PYTHON_ARMS.md). CUDA backend only (torch tensors).

    silu_mul_eager        F.silu(a), then torch.mul(..., out=out): aten's two kernels
    silu_mul_triton       one Triton kernel, the chain's roundings (exact)
    silu_mul_triton_f32   one Triton kernel, silu kept in float (not exact)
"""
import torch
import torch.nn.functional as F

from glm_sites import _spec, _torch_only


def silu_mul_eager(t, d):
    _torch_only(t, d)
    torch.mul(F.silu(t["a"]), t["b"], out=t["out"])


def _triton(t, d, variant):
    _torch_only(t, d)
    mod, spec = _spec("silu_mul", variant)
    mod.launch(spec, t["a"], t["b"], t["out"])


def silu_mul_triton(t, d):
    _triton(t, d, "silu_mul")


def silu_mul_triton_f32(t, d):
    _triton(t, d, "silu_mul_f32")
