/*
 * eager_ops.cuh - the PyTorch launches the eager arms are built from.
 *
 * Each function queues the launch(es) PyTorch 2.11 makes for one aten op on
 * bf16 CUDA tensors, with the same kernel shape and arithmetic, and returns
 * cudaGetLastError() as an int (cudaErrorInvalidValue, launching nothing,
 * for sizes or pointers the kernel cannot take). All pointers are device
 * pointers to raw bf16 words (or float for LayerNorm statistics).
 *
 *   ab_eager_layer_norm   vectorized_layer_norm_kernel<BFloat16, float>
 *   ab_eager_add_one      `1 + s`   (vectorized_elementwise_kernel)
 *   ab_eager_bcast_mul    a[B,T,W] * v[B,1,W]   (elementwise_kernel<128, 4>)
 *   ab_eager_bcast_add    a[B,T,W] + v[B,1,W]   (elementwise_kernel<128, 4>)
 *   ab_eager_add          a + b, both contiguous (vectorized_elementwise_kernel)
 *
 * The broadcast ops collapse dimensions like TensorIterator does: when the
 * broadcast disappears (T == 1) the operands are contiguous and PyTorch,
 * hence this code, takes the vectorized kernel instead.
 */
#ifndef AB_EAGER_OPS_CUH
#define AB_EAGER_OPS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* Rows of n values (n % 4 == 0, 0 < n <= 2^24, rows < 2^31); gamma and
 * beta may be NULL (no affine), mean and rstd get one float per row. */
int ab_eager_layer_norm(const uint16_t *x, const uint16_t *gamma, const uint16_t *beta, uint16_t *y, float *mean,
			float *rstd, int64_t rows, int64_t n, float eps, cudaStream_t stream);

/* out[i] = bf16(float(s[i]) + 1) for n elements. */
int ab_eager_add_one(const uint16_t *s, uint16_t *out, int64_t n, cudaStream_t stream);

/* out[b,t,w] = bf16(float(a[b,t,w]) op float(v[b,w])); W <= 2^30. */
int ab_eager_bcast_mul(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t batch, int64_t tokens,
		       int64_t width, cudaStream_t stream);
int ab_eager_bcast_add(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t batch, int64_t tokens,
		       int64_t width, cudaStream_t stream);

/* out[i] = bf16(float(a[i]) + float(b[i])) for n elements. */
int ab_eager_add(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n, cudaStream_t stream);

#endif
