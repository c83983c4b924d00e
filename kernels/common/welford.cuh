/*
 * welford.cuh - PyTorch's LayerNorm Welford arithmetic, in two spellings.
 *
 * vectorized_layer_norm_kernel<BFloat16, float> (aten layer_norm_kernel.cu)
 * folds each value into a per-thread (mean, sigma2, count) state
 * (cuWelfordOnlineSum), then combines states down each warp with shuffles
 * and across the 4 warps through shared memory (cuWelfordCombine).
 *
 * 1. The transcription (ab_wf_online, ab_wf_combine, ab_ln_compute_stats):
 *    aten's expressions in aten's order, plain float arithmetic, so that
 *    nvcc makes the contraction choices it makes for PyTorch. The eager
 *    LayerNorm and the fused kernels' generic fallback use it.
 *
 * 2. The pinned spelling (ab_wf_online_pinned, ab_wf_combine_pinned): every
 *    rounding written out with __f*_rn intrinsics, which nvcc never fuses
 *    or splits, in exactly the form nvcc 13.0 gives the transcription for
 *    sm_90 (read from its PTX; docs/KERNELS.md quotes it):
 *      online:  delta = v - mean; n = count + 1; r = 1/n (IEEE);
 *               mean' = fma(r, delta, mean); sigma2' = fma(delta, v - mean', sigma2)
 *      combine(own = dataB, other = dataA):
 *               delta = own.mean - other.mean; n = other.count + own.count;
 *               c = 1/n; nA = other.count * c; nB = own.count * c;
 *               mean = fma(nA, other.mean, nB * own.mean)
 *               sigma2 = fma((delta * delta) * other.count, nB, other.sigma2 + own.sigma2)
 *    The fused kernels use it with counts that are compile-time constants,
 *    so the reciprocals fold to the same correctly rounded values at no
 *    cost, while no folding can change a rounding: constant folding is
 *    exact in IEEE arithmetic, and the intrinsics leave no mul/add pair for
 *    the compiler to contract differently.
 */
#ifndef AB_WELFORD_CUH
#define AB_WELFORD_CUH

#include <stdint.h>

#include "kernels/common/bf16_dev.cuh"

#define AB_WARP 32
#define AB_FULL_MASK 0xffffffffu

struct ab_wf {
	float mean;
	float sigma2; /* sum of squared deviations, divided by N only at the end */
	float count;
};

/* Four bf16 of an 8-byte load: aten's aligned_vector<BFloat16, 4>. */
struct alignas(8) ab_bf16_vec4 {
	uint16_t val[4];
};

/* ---- 1. transcription ---------------------------------------------- */

static __device__ __forceinline__ ab_wf ab_wf_online(const float val, const ab_wf &curr_sum)
{
	float delta = val - curr_sum.mean;
	float new_count = curr_sum.count + 1.f;
	float new_mean = curr_sum.mean + delta * (1.f / new_count);
	return { new_mean, curr_sum.sigma2 + delta * (val - new_mean), new_count };
}

/* aten's argument order: dataB is the caller's own state, dataA the other. */
static __device__ __forceinline__ ab_wf ab_wf_combine(const ab_wf dataB, const ab_wf dataA)
{
	float delta = dataB.mean - dataA.mean;
	float count = dataA.count + dataB.count;
	float mean, sigma2;
	if (count > 0.f) {
		float coef = 1.f / count;
		float nA = dataA.count * coef;
		float nB = dataB.count * coef;
		mean = nA * dataA.mean + nB * dataB.mean;
		sigma2 = dataA.sigma2 + dataB.sigma2 + delta * delta * dataA.count * nB;
	} else {
		mean = 0.f;
		sigma2 = 0.f;
	}
	return { mean, sigma2, count };
}

/*
 * aten's compute_stats for one row of N bf16 (N % 4 == 0), run by a block
 * of blockDim (32, blockDim.y): thread thrx folds the vectors thrx,
 * thrx + numx, ...; shuffle-down fold in each warp; then the shared-memory
 * fold of the warps (buf holds blockDim.y * 3 / 2 floats). Returns
 * {mean, sigma2 / float(N), 0} in every thread.
 */
static __device__ __forceinline__ ab_wf ab_ln_compute_stats(const uint16_t *__restrict__ X, const int N, float *buf)
{
	const ab_bf16_vec4 *X_vec = reinterpret_cast<const ab_bf16_vec4 *>(X);
	const int numx = blockDim.x * blockDim.y;
	const int thrx = threadIdx.x + threadIdx.y * blockDim.x;
	const int n_vec_to_read = N / 4;
	ab_wf wd = { 0.f, 0.f, 0.f };
	for (int i = thrx; i < n_vec_to_read; i += numx) {
		ab_bf16_vec4 data = X_vec[i];
#pragma unroll
		for (int ii = 0; ii < 4; ii++)
			wd = ab_wf_online(ab_bf16_to_float_aten(data.val[ii]), wd);
	}
	for (int offset = AB_WARP >> 1; offset > 0; offset >>= 1) {
		ab_wf wdB = { __shfl_down_sync(AB_FULL_MASK, wd.mean, offset, AB_WARP),
			      __shfl_down_sync(AB_FULL_MASK, wd.sigma2, offset, AB_WARP),
			      __shfl_down_sync(AB_FULL_MASK, wd.count, offset, AB_WARP) };
		wd = ab_wf_combine(wd, wdB);
	}
	if (blockDim.y > 1) {
		float *meansigmabuf = buf;
		float *countbuf = buf + blockDim.y;
		for (int offset = blockDim.y / 2; offset > 0; offset /= 2) {
			if (threadIdx.x == 0 && threadIdx.y >= offset && threadIdx.y < 2 * offset) {
				const int wrt_y = threadIdx.y - offset;
				meansigmabuf[2 * wrt_y] = wd.mean;
				meansigmabuf[2 * wrt_y + 1] = wd.sigma2;
				countbuf[wrt_y] = wd.count;
			}
			__syncthreads();
			if (threadIdx.x == 0 && threadIdx.y < offset) {
				ab_wf wdB = { meansigmabuf[2 * threadIdx.y], meansigmabuf[2 * threadIdx.y + 1],
					      countbuf[threadIdx.y] };
				wd = ab_wf_combine(wd, wdB);
			}
			__syncthreads();
		}
		if (threadIdx.x == 0 && threadIdx.y == 0) {
			meansigmabuf[0] = wd.mean;
			meansigmabuf[1] = wd.sigma2 / float(N);
		}
		__syncthreads();
		return { meansigmabuf[0], meansigmabuf[1], 0.f };
	}
	return { __shfl_sync(AB_FULL_MASK, wd.mean, 0, AB_WARP),
		 __shfl_sync(AB_FULL_MASK, wd.sigma2, 0, AB_WARP) / float(N), 0.f };
}

/* ---- 2. pinned ------------------------------------------------------ */

static __device__ __forceinline__ ab_wf ab_wf_online_pinned(const float v, const ab_wf w)
{
	const float delta = __fsub_rn(v, w.mean);
	const float count = w.count + 1.f;
	const float mean = __fmaf_rn(1.f / count, delta, w.mean);
	return { mean, __fmaf_rn(delta, __fsub_rn(v, mean), w.sigma2), count };
}

static __device__ __forceinline__ ab_wf ab_wf_combine_pinned(const ab_wf own, const ab_wf other)
{
	const float delta = __fsub_rn(own.mean, other.mean);
	const float count = other.count + own.count;
	ab_wf r = { 0.f, 0.f, count };
	if (count > 0.f) {
		const float coef = 1.f / count;
		const float n_other = other.count * coef;
		const float n_own = own.count * coef;
		r.mean = __fmaf_rn(n_other, other.mean, __fmul_rn(n_own, own.mean));
		r.sigma2 = __fmaf_rn(__fmul_rn(__fmul_rn(delta, delta), other.count), n_own,
				     __fadd_rn(other.sigma2, own.sigma2));
	}
	return r;
}

/* The state an all-empty warp of the eager block ends its fold with:
 * combine of (0, 0, 0) with itself takes the count == 0 branch. */
static __device__ __forceinline__ ab_wf ab_wf_empty()
{
	return { 0.f, 0.f, 0.f };
}

/*
 * Per-row tail shared by every LayerNorm: var = sigma2 / float(N), a
 * correctly rounded division, then rstd = rsqrtf(var + eps), the hardware
 * approximation aten's c10::cuda::compat::rsqrt calls. The division stays a
 * division even where N is a power of two and a product by 1/N would give
 * the same bits: its instruction sequence (with a slow-path branch) keeps
 * ptxas from hoisting the epilogue's loads above the statistics, which
 * measured (ptxas -v) 32 instead of 53 registers for the 4096-wide fused
 * LayerNorm and 32 instead of 40 for the qk kernel.
 */
static __device__ __forceinline__ float ab_ln_rstd_pinned(const float sigma2, const float n, const float eps)
{
	return rsqrtf(__fadd_rn(__fdiv_rn(sigma2, n), eps));
}

/* aten's normalisation of one value, non-affine: rstd * (x - mean), a
 * product of a difference (nothing to contract). */
static __device__ __forceinline__ float ab_ln_norm_pinned(const float x, const float mean, const float rstd)
{
	return __fmul_rn(rstd, __fsub_rn(x, mean));
}

/* Affine: gamma * (rstd * (x - mean)) + beta, contracted by nvcc into
 * fma(gamma, rstd * (x - mean), beta). */
static __device__ __forceinline__ float ab_ln_norm_affine_pinned(const float x, const float mean, const float rstd,
								 const float gamma, const float beta)
{
	return __fmaf_rn(gamma, __fmul_rn(rstd, __fsub_rn(x, mean)), beta);
}

#endif
