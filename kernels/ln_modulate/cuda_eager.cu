/*
 * cuda_eager.cu - ln_modulate's eager arm on CUDA: PyTorch's four launches
 * (ATEN_CHAIN.md), each intermediate materialised in the site's scratch
 * tensors exactly as the framework materialises it:
 *   LayerNorm -> ln_out (+ mean, rstd); 1 + scale -> scale1;
 *   ln_out * scale1 -> mod_mul; mod_mul + shift -> out
 * in Python's evaluation order of the model's expression.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/eager_ops.cuh"
#include "kernels/common/launch_util.cuh"
#include "kernels/ln_modulate/ln_modulate.h"

extern "C" int ln_modulate_cuda_eager(const struct site_args *a, void *stream)
{
	if (!ln_modulate_args_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	int rc = ab_eager_layer_norm(ab_in_bf16(a, LNM_X), a->affine ? ab_in_bf16(a, LNM_WEIGHT) : nullptr,
				     a->affine ? ab_in_bf16(a, LNM_BIAS) : nullptr, ab_out_bf16(a, LNM_LN_OUT),
				     ab_out_f32(a, LNM_MEAN), ab_out_f32(a, LNM_RSTD), d.rows, d.row_len, a->eps, s);
	if (rc == 0)
		rc = ab_eager_add_one(ab_in_bf16(a, LNM_SCALE), ab_out_bf16(a, LNM_SCALE1), d.batch * d.width, s);
	if (rc == 0)
		rc = ab_eager_bcast_mul(ab_in_bf16(a, LNM_LN_OUT), ab_in_bf16(a, LNM_SCALE1),
					ab_out_bf16(a, LNM_MOD_MUL), d.batch, d.tokens, d.width, s);
	if (rc == 0)
		rc = ab_eager_bcast_add(ab_in_bf16(a, LNM_MOD_MUL), ab_in_bf16(a, LNM_SHIFT), ab_out_bf16(a, LNM_OUT),
					d.batch, d.tokens, d.width, s);
	return rc != 0 ? rc : (int)cudaGetLastError();
}
