/*
 * cuda_eager.cu - residual_gate_add's eager arm on CUDA: PyTorch's two
 * launches, ff * gate -> ff_gated (broadcast kernel), then x + ff_gated
 * (vectorized kernel).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/eager_ops.cuh"
#include "kernels/common/launch_util.cuh"
#include "kernels/residual_gate_add/residual_gate_add.h"

extern "C" int residual_gate_add_cuda_eager(const struct site_args *a, void *stream)
{
	if (!residual_gate_add_args_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	int rc = ab_eager_bcast_mul(ab_in_bf16(a, RGA_FF), ab_in_bf16(a, RGA_GATE), ab_out_bf16(a, RGA_FF_GATED),
				    d.batch, d.tokens, d.width, s);
	if (rc == 0)
		rc = ab_eager_add(ab_in_bf16(a, RGA_X), ab_in_bf16(a, RGA_FF_GATED), ab_out_bf16(a, RGA_OUT),
				  d.batch * d.tokens * d.width, s);
	return rc != 0 ? rc : (int)cudaGetLastError();
}
