"""abk.py - abbench's fused CUDA kernels called from PyTorch, through the C
ABI of build/libabbench_kernels.so (kernels/capi/abbench_kernels.h).

    import abk
    k = abk.Kernels()                    # loads the library once
    k.ln_modulate(x, scale, shift, out, eps)
    k.qk_layernorm(q, k_, q_out, k_out, eps)
    k.gate_add(x, y, gate, out)

Each call checks the tensors (CUDA, bf16, contiguous, one device, the
shapes the site takes), passes their data_ptr() and PyTorch's current
stream on their device, and raises RuntimeError with the library's one-line
reason when it returns non-zero. Nothing is copied: a tensor that is not
contiguous is refused, and the caller decides whether a copy is worth it.

The library is $ABBENCH_KERNELS_LIB when set, else build/libabbench_kernels.so
at the root of the repository holding this file (`make` builds it when
nvcc is found).
"""
import ctypes
import os

ABI_VERSION = 1  # kernels/capi/abbench_kernels.h: ABK_ABI_VERSION

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LIB = None


def library_path():
    return os.environ.get("ABBENCH_KERNELS_LIB") or os.path.join(_REPO, "build", "libabbench_kernels.so")


def _load():
    """The library, loaded and its signatures declared once per process."""
    global _LIB
    if _LIB is not None:
        return _LIB
    path = library_path()
    if not os.path.exists(path):
        raise RuntimeError(f"abk: {path} does not exist: build it with `make` (nvcc needed), "
                           "or point ABBENCH_KERNELS_LIB at it")
    lib = ctypes.CDLL(path)
    vp, i64, f32, c_int = ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_int
    lib.abk_abi_version.restype = c_int
    lib.abk_last_error.restype = ctypes.c_char_p
    lib.abk_ln_modulate.argtypes = [vp, vp, vp, vp, i64, i64, i64, f32, vp]
    lib.abk_qk_layernorm.argtypes = [vp, vp, vp, vp, i64, i64, i64, i64, f32, vp]
    lib.abk_gate_add.argtypes = [vp, vp, vp, vp, i64, i64, i64, vp]
    for name in ("abk_ln_modulate", "abk_qk_layernorm", "abk_gate_add"):
        getattr(lib, name).restype = c_int
    got = lib.abk_abi_version()
    if got != ABI_VERSION:
        raise RuntimeError(f"abk: {path} has ABI version {got}, this module speaks {ABI_VERSION}: rebuild it")
    _LIB = lib
    return lib


class Kernels:
    """The three fused sites as PyTorch calls (bf16 CUDA tensors)."""

    def __init__(self):
        import torch
        self.torch = torch
        self.lib = _load()

    def _check(self, fn, tensors, shapes):
        """tensors: name -> tensor; shapes: name -> the shape it must have."""
        dev = None
        for name, t in tensors.items():
            if not t.is_cuda or t.dtype != self.torch.bfloat16:
                raise RuntimeError(f"{fn}: {name} must be a bf16 CUDA tensor, not {t.dtype} on {t.device}")
            if not t.is_contiguous():
                raise RuntimeError(f"{fn}: {name} is not contiguous (strides {tuple(t.stride())})")
            if tuple(t.shape) != tuple(shapes[name]):
                raise RuntimeError(f"{fn}: {name} is {tuple(t.shape)}, expected {tuple(shapes[name])}")
            if dev is not None and t.device != dev:
                raise RuntimeError(f"{fn}: {name} is on {t.device}, the others on {dev}")
            dev = t.device
        return self.torch.cuda.current_stream(dev).cuda_stream

    def _done(self, fn, rc):
        if rc != 0:
            raise RuntimeError((self.lib.abk_last_error() or f"{fn}: error {rc}".encode()).decode())

    def ln_modulate(self, x, scale, shift, out, eps):
        """out = bf16(bf16(bf16(LayerNorm(x)) * bf16(1 + scale)) + shift);
        x, out [B, T, W]; scale, shift [B, W]."""
        b, t, w = x.shape
        s = self._check("abk_ln_modulate", dict(x=x, scale=scale, shift=shift, out=out),
                        dict(x=(b, t, w), scale=(b, w), shift=(b, w), out=(b, t, w)))
        rc = self.lib.abk_ln_modulate(x.data_ptr(), scale.data_ptr(), shift.data_ptr(), out.data_ptr(), b, t, w,
                                      eps, s)
        self._done("abk_ln_modulate", rc)

    def qk_layernorm(self, q, k, q_out, k_out, eps):
        """q_out, k_out = LayerNorm(q), LayerNorm(k) over the last dim; each [B, T, H, D]."""
        shape = tuple(q.shape)
        s = self._check("abk_qk_layernorm", dict(q=q, k=k, q_out=q_out, k_out=k_out),
                        dict(q=shape, k=shape, q_out=shape, k_out=shape))
        rc = self.lib.abk_qk_layernorm(q.data_ptr(), k.data_ptr(), q_out.data_ptr(), k_out.data_ptr(), *shape, eps,
                                       s)
        self._done("abk_qk_layernorm", rc)

    def gate_add(self, x, y, gate, out):
        """out = bf16(x + bf16(y * gate)); x, y, out [B, T, W]; gate [B, W]."""
        b, t, w = x.shape
        s = self._check("abk_gate_add", dict(x=x, y=y, gate=gate, out=out),
                        dict(x=(b, t, w), y=(b, t, w), gate=(b, w), out=(b, t, w)))
        rc = self.lib.abk_gate_add(x.data_ptr(), y.data_ptr(), gate.data_ptr(), out.data_ptr(), b, t, w, s)
        self._done("abk_gate_add", rc)
