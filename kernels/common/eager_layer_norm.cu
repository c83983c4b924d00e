/*
 * eager_layer_norm.cu - PyTorch's vectorized LayerNorm forward for bf16,
 * transcribed: the eager arm's LayerNorm launch (ATEN_CHAIN.md).
 *
 * Launch descriptor (aten's launch_vectorized_layer_norm_kernel): grid =
 * one block per row, block (32, 4), 24 bytes of dynamic shared memory
 * (blockDim.y * 3 / 2 floats for the inter-warp fold), any sm_90 device.
 * Nothing here is tuned: the point is PyTorch's time and bytes. Pass 1
 * (ab_ln_compute_stats in welford.cuh) reads the row for the statistics,
 * pass 2 reads it again and writes rstd * (x - mean), or
 * gamma * (rstd * (x - mean)) + beta with weight and bias, as bf16.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/eager_ops.cuh"
#include "kernels/common/launch_util.cuh"
#include "kernels/common/welford.cuh"

__global__ void ab_eager_vectorized_layer_norm_kernel(const int N, float eps, const uint16_t *__restrict__ X,
						      const uint16_t *gamma, const uint16_t *beta, float *mean,
						      float *rstd, uint16_t *Y)
{
	extern __shared__ float s_data[];
	const auto i1 = blockIdx.x;
	const uint16_t *block_row = X + (size_t)i1 * N;
	ab_wf wd = ab_ln_compute_stats(block_row, N, s_data);

	const ab_bf16_vec4 *X_vec = reinterpret_cast<const ab_bf16_vec4 *>(block_row);
	const ab_bf16_vec4 *gamma_vec = (gamma != nullptr) ? reinterpret_cast<const ab_bf16_vec4 *>(gamma) : nullptr;
	const ab_bf16_vec4 *beta_vec = (beta != nullptr) ? reinterpret_cast<const ab_bf16_vec4 *>(beta) : nullptr;
	ab_bf16_vec4 *Y_vec = reinterpret_cast<ab_bf16_vec4 *>(Y + (size_t)i1 * N);

	const int numx = blockDim.x * blockDim.y;
	const int thrx = threadIdx.x + threadIdx.y * blockDim.x;
	const int n_vec_to_read = N / 4;

	float rstd_val = rsqrtf(wd.sigma2 + eps);

	for (int i = thrx; i < n_vec_to_read; i += numx) {
		ab_bf16_vec4 data = X_vec[i];
		ab_bf16_vec4 out;
		if (gamma_vec != nullptr && beta_vec != nullptr) {
#pragma unroll
			for (int ii = 0; ii < 4; ii++)
				out.val[ii] = ab_float_to_bf16(
					ab_bf16_to_float_aten(gamma_vec[i].val[ii]) *
						(rstd_val * (ab_bf16_to_float_aten(data.val[ii]) - wd.mean)) +
					ab_bf16_to_float_aten(beta_vec[i].val[ii]));
		} else if (gamma_vec != nullptr) {
#pragma unroll
			for (int ii = 0; ii < 4; ii++)
				out.val[ii] = ab_float_to_bf16(
					ab_bf16_to_float_aten(gamma_vec[i].val[ii]) *
					(rstd_val * (ab_bf16_to_float_aten(data.val[ii]) - wd.mean)));
		} else if (beta_vec != nullptr) {
#pragma unroll
			for (int ii = 0; ii < 4; ii++)
				out.val[ii] = ab_float_to_bf16(
					(rstd_val * (ab_bf16_to_float_aten(data.val[ii]) - wd.mean)) +
					ab_bf16_to_float_aten(beta_vec[i].val[ii]));
		} else {
#pragma unroll
			for (int ii = 0; ii < 4; ii++)
				out.val[ii] =
					ab_float_to_bf16(rstd_val * (ab_bf16_to_float_aten(data.val[ii]) - wd.mean));
		}
		Y_vec[i] = out;
	}
	if (thrx == 0) {
		mean[i1] = wd.mean;
		rstd[i1] = rstd_val;
	}
}

int ab_eager_layer_norm(const uint16_t *x, const uint16_t *gamma, const uint16_t *beta, uint16_t *y, float *mean,
			float *rstd, int64_t rows, int64_t n, float eps, cudaStream_t stream)
{
	/* aten takes this kernel only for N % 4 == 0, N <= 2^24 and 8-byte
	 * aligned tensors; anything else would be a different aten kernel. */
	if (rows <= 0 || rows > INT32_MAX || n <= 0 || n % 4 != 0 || n > (int64_t(1) << 24))
		return ab_invalid();
	if (!ab_aligned(x, 8) || !ab_aligned(y, 8) || !mean || !rstd)
		return ab_invalid();
	if ((gamma && !ab_aligned(gamma, 8)) || (beta && !ab_aligned(beta, 8)))
		return ab_invalid();
	const dim3 threads(AB_WARP, 4, 1);
	const dim3 blocks((unsigned)rows);
	const int nshared = threads.y * 3 / 2 * (int)sizeof(float);
	ab_eager_vectorized_layer_norm_kernel<<<blocks, threads, nshared, stream>>>((int)n, eps, x, gamma, beta, mean,
										     rstd, y);
	return (int)cudaGetLastError();
}
