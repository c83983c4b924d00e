/*
 * abbench_kernels.h - abbench's fused GLM-Image kernels behind a plain C
 * ABI, for programs outside abbench: build/libabbench_kernels.so, built by
 * `make` when nvcc is found.
 *
 * The first user is PyTorch through ctypes (examples/python/abk.py): the
 * GLM-Image block of examples/python/glm_block.py swaps its four site
 * chains for these calls and must stay byte-equal to PyTorch's eager
 * chain (docs/BLOCK.md). Each function is the site's `fused` arm, exactly
 * what `abbench run` measures as arm b: the measured winner with its
 * fallbacks (docs/KERNELS.md), behind the site's own shape rule.
 *
 * Conventions for every function:
 *   - tensors are device pointers to contiguous bf16 (raw 16-bit) data in
 *     row-major order, at least 8-byte aligned (every cudaMalloc'd or
 *     PyTorch-allocated buffer is); outputs must not overlap inputs;
 *   - shapes are given dimension by dimension, each 1 to 2^31 - 1, and are
 *     checked with the site's shape rule (the same rule a scenario's
 *     `shape =` meets, `abbench sites`);
 *   - `stream` is a cudaStream_t (NULL: the legacy default stream). The
 *     kernels are queued there and the call returns without waiting. They
 *     run in the CUDA context current on the calling thread (PyTorch makes
 *     the primary context of its current device current); the stream must
 *     belong to that context;
 *   - the return value is a cudaError_t as int: 0 when the kernels were
 *     queued, 1 (cudaErrorInvalidValue) without launching anything for a
 *     shape the site's rule refuses or pointers the kernels cannot take,
 *     another CUDA error when the launch failed. abk_last_error() then
 *     says why in one line.
 *
 * The library links the CUDA runtime statically and exports only the abk_
 * symbols (kernels/capi/abbench_kernels.map), so that it loads beside
 * PyTorch's own runtime without either seeing the other's symbols.
 */
#ifndef AB_ABBENCH_KERNELS_H
#define AB_ABBENCH_KERNELS_H

#include <stdint.h>

/* Bumped when a function's parameters or meaning change. */
#define ABK_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* ABK_ABI_VERSION of the library: a caller checks it before any call. */
int abk_abi_version(void);

/* The reason for the last call on this thread that did not return 0, one
 * line naming the function ("" after a call that succeeded). The string
 * belongs to the library and stays valid until the thread's next call. */
const char *abk_last_error(void);

/* adaLN LayerNorm + modulate (site ln_modulate; also GLM-Image's final
 * norm_out, which is the same chain):
 *   out = bf16(bf16(bf16(LayerNorm(x)) * bf16(1 + scale)) + shift)
 * LayerNorm over rows of `width` (no affine, eps as PyTorch's float eps),
 * x and out [batch, tokens, width], scale and shift [batch, width]
 * broadcast over the tokens. Rule: width % 4 == 0, width <= 65536. */
int abk_ln_modulate(const void *x, const void *scale, const void *shift, void *out, int64_t batch, int64_t tokens,
		    int64_t width, float eps, void *stream);

/* Per-head LayerNorm of q and of k in one launch (site qk_layernorm):
 *   q_out = bf16(LayerNorm(q)), k_out = bf16(LayerNorm(k))
 * over rows of head_dim (no affine), each tensor [batch, tokens, heads,
 * head_dim]. Rule: head_dim % 4 == 0, head_dim <= 128. */
int abk_qk_layernorm(const void *q, const void *k, void *q_out, void *k_out, int64_t batch, int64_t tokens,
		     int64_t heads, int64_t head_dim, float eps, void *stream);

/* Gate residual (site residual_gate_add):
 *   out = bf16(x + bf16(y * gate))
 * x, y and out [batch, tokens, width], gate [batch, width] broadcast over
 * the tokens. Rule: width % 4 == 0. */
int abk_gate_add(const void *x, const void *y, const void *gate, void *out, int64_t batch, int64_t tokens,
		 int64_t width, void *stream);

#ifdef __cplusplus
}
#endif

#endif
