/*
 * cuda_eager.cu - qk_layernorm's eager arm on CUDA: PyTorch's two
 * LayerNorm launches, q then k, each writing its mean and rstd.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/eager_ops.cuh"
#include "kernels/common/launch_util.cuh"
#include "kernels/qk_layernorm/qk_layernorm.h"

extern "C" int qk_layernorm_cuda_eager(const struct site_args *a, void *stream)
{
	if (!qk_layernorm_args_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	const uint16_t *w = a->affine ? ab_in_bf16(a, QK_WEIGHT) : nullptr;
	const uint16_t *b = a->affine ? ab_in_bf16(a, QK_BIAS) : nullptr;
	int rc = ab_eager_layer_norm(ab_in_bf16(a, QK_Q), w, b, ab_out_bf16(a, QK_Q_OUT), ab_out_f32(a, QK_Q_MEAN),
				     ab_out_f32(a, QK_Q_RSTD), d.rows, d.row_len, a->eps, s);
	if (rc == 0)
		rc = ab_eager_layer_norm(ab_in_bf16(a, QK_K), w, b, ab_out_bf16(a, QK_K_OUT), ab_out_f32(a, QK_K_MEAN),
					 ab_out_f32(a, QK_K_RSTD), d.rows, d.row_len, a->eps, s);
	return rc != 0 ? rc : (int)cudaGetLastError();
}
