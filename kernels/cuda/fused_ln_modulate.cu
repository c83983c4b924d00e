/*
 * fused_ln_modulate.cu - LayerNorm + (1 + scale) + shift in one launch,
 * byte-equal to the eager chain (ln_modulate and ln_continuous).
 *
 * Register-resident kernel (W % 512 == 0, W <= 8192): a block of 128
 * threads per R rows (R = 1 or 2, rows of one batch). Thread t plays the
 * eager LayerNorm's thread t of every row it holds: it loads the 8-byte
 * vectors t, t + 128, ... (V = W / 512 of them per row, kept in registers,
 * so x is read once), folds their values in order into its Welford state,
 * then the warp's shuffle-down tree and the 4-warp tree run exactly as in
 * aten's compute_stats. Every thread has V * 4 values, so every count in
 * the tree is a compile-time constant: the reciprocals fold away. After one
 * __syncthreads each thread reads the 4 warp states from shared memory and
 * repeats aten's inter-warp combines (warp 0 + 2, warp 1 + 3, then the two)
 * itself, which saves the eager kernel's four other barriers. Epilogue per
 * value: y = bf16(rstd * (x - mean)) (affine: bf16(fma(g, rstd * (x - mean),
 * b))), s1 = bf16(scale + 1), z = bf16(y * s1), out = bf16(z + shift).
 *
 * Generic kernel (any W % 4 == 0): aten's block layout with run-time
 * counts (the eager kernel's own compute_stats), then the same epilogue
 * over a second read of the row.
 *
 * Launch descriptor: block 128 threads; register-resident grid
 * (ceil(T / R), B), generic grid B * T, no dynamic shared memory. R = 2
 * when W <= 4096 and there are at least 16 rows per SM, else 1. ptxas
 * (nvcc 13.0, sm_90) for W = 4096: 32 registers with R = 1 (16 blocks, 128
 * KB of x in flight per SM), 55 with R = 2 (9 blocks, 144 KB), no spills.
 * R = 2 is the predicted winner (two independent Welford chains per
 * thread, scale1/shift unpacked once for two rows); not measured yet: the
 * self-test times both (docs/PERF_NOTES.md). Statistics are not written:
 * they are the eager arm's AUX tensors.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_arms.h"
#include "fused_variants.cuh"
#include "launch_util.cuh"
#include "site_check.cuh"
#include "welford.cuh"

#define LNF_THREADS 128
#define LNF_WARPS (LNF_THREADS / AB_WARP)
#define LNF_MAX_V 16   /* register-resident up to W = 8192 */
#define LNF_MAX_V_R2 8 /* two rows per block up to W = 4096 */

/* The modulate epilogue of one 4-value vector: three bf16 roundings. */
template <bool AFFINE>
static __device__ __forceinline__ uint2 lnf_modulate4(uint2 xv, float mean, float rstd, const float s1[4],
						      const float sh[4], uint2 gv, uint2 bv)
{
	float y[4];
#pragma unroll
	for (int i = 0; i < 4; i++) {
		const float x = ab_bf16x4_get(xv, i);
		y[i] = AFFINE ? ab_ln_norm_affine_pinned(x, mean, rstd, ab_bf16x4_get(gv, i), ab_bf16x4_get(bv, i))
			      : ab_ln_norm_pinned(x, mean, rstd);
	}
	ab_bf16_round2(y[0], y[1]);
	ab_bf16_round2(y[2], y[3]);
#pragma unroll
	for (int i = 0; i < 4; i++)
		y[i] = __fmul_rn(y[i], s1[i]);
	ab_bf16_round2(y[0], y[1]);
	ab_bf16_round2(y[2], y[3]);
#pragma unroll
	for (int i = 0; i < 4; i++)
		y[i] = __fadd_rn(y[i], sh[i]);
	return make_uint2(ab_pack_bf16x2(y[0], y[1]), ab_pack_bf16x2(y[2], y[3]));
}

/* scale1 = bf16(scale + 1) and shift of one 4-value vector, as floats. */
static __device__ __forceinline__ void lnf_params4(uint2 sc, uint2 sh, float s1[4], float shv[4])
{
#pragma unroll
	for (int i = 0; i < 4; i++) {
		s1[i] = __fadd_rn(ab_bf16x4_get(sc, i), 1.f);
		shv[i] = ab_bf16x4_get(sh, i);
	}
	ab_bf16_round2(s1[0], s1[1]);
	ab_bf16_round2(s1[2], s1[3]);
}

template <int V, int R, bool AFFINE>
__global__ __launch_bounds__(LNF_THREADS) void ab_fused_ln_modulate_kernel(
	const uint2 *__restrict__ x, const uint2 *__restrict__ scale, const uint2 *__restrict__ shift,
	const uint2 *__restrict__ weight, const uint2 *__restrict__ bias, uint2 *__restrict__ out, int tokens,
	float eps)
{
	constexpr int NV = LNF_THREADS * V; /* vectors per row */
	const int t = threadIdx.x;
	const int lane = t & (AB_WARP - 1);
	const int warp = t / AB_WARP;
	const int b = blockIdx.y;
	const int tok0 = blockIdx.x * R;

	uint2 d[R][V];
#pragma unroll
	for (int r = 0; r < R; r++) {
		const uint2 *row = x + ((size_t)b * tokens + tok0 + r) * NV + t;
#pragma unroll
		for (int j = 0; j < V; j++)
			d[r][j] = (tok0 + r < tokens) ? __ldcs(row + LNF_THREADS * j) : make_uint2(0u, 0u);
	}

	ab_wf w[R];
#pragma unroll
	for (int r = 0; r < R; r++) {
		w[r] = ab_wf_empty();
#pragma unroll
		for (int j = 0; j < V; j++)
#pragma unroll
			for (int i = 0; i < 4; i++)
				w[r] = ab_wf_online_pinned(ab_bf16x4_get(d[r][j], i), w[r]);
	}

	/* Shuffle-down tree; every lane holds the same count. */
#pragma unroll
	for (int o = AB_WARP / 2; o > 0; o /= 2)
#pragma unroll
		for (int r = 0; r < R; r++) {
			const ab_wf other = { __shfl_down_sync(AB_FULL_MASK, w[r].mean, o, AB_WARP),
					      __shfl_down_sync(AB_FULL_MASK, w[r].sigma2, o, AB_WARP), w[r].count };
			w[r] = ab_wf_combine_pinned(w[r], other);
		}

	__shared__ float2 warp_state[R][LNF_WARPS];
	if (lane == 0)
#pragma unroll
		for (int r = 0; r < R; r++)
			warp_state[r][warp] = make_float2(w[r].mean, w[r].sigma2);
	__syncthreads();

	float mean[R], rstd[R];
#pragma unroll
	for (int r = 0; r < R; r++) {
		const float c = w[r].count; /* each warp's count: W / 4 */
		ab_wf ws[LNF_WARPS];
#pragma unroll
		for (int k = 0; k < LNF_WARPS; k++)
			ws[k] = { warp_state[r][k].x, warp_state[r][k].y, c };
		ws[0] = ab_wf_combine_pinned(ws[0], ws[2]);
		ws[1] = ab_wf_combine_pinned(ws[1], ws[3]);
		ws[0] = ab_wf_combine_pinned(ws[0], ws[1]);
		mean[r] = ws[0].mean;
		rstd[r] = ab_ln_rstd_pinned(ws[0].sigma2, (float)(4 * NV), eps);
	}

#pragma unroll
	for (int j = 0; j < V; j++) {
		const int vi = t + LNF_THREADS * j;
		float s1[4], sh[4];
		lnf_params4(__ldg(scale + (size_t)b * NV + vi), __ldg(shift + (size_t)b * NV + vi), s1, sh);
		const uint2 gv = AFFINE ? __ldg(weight + vi) : make_uint2(0u, 0u);
		const uint2 bv = AFFINE ? __ldg(bias + vi) : make_uint2(0u, 0u);
#pragma unroll
		for (int r = 0; r < R; r++)
			if (tok0 + r < tokens)
				__stcs(out + ((size_t)b * tokens + tok0 + r) * NV + vi,
				       lnf_modulate4<AFFINE>(d[r][j], mean[r], rstd[r], s1, sh, gv, bv));
	}
}

/* Any W % 4 == 0: the eager kernel's statistics, then the epilogue. */
template <bool AFFINE>
__global__ __launch_bounds__(LNF_THREADS) void ab_fused_ln_modulate_generic_kernel(
	const uint16_t *__restrict__ x, const uint2 *__restrict__ scale, const uint2 *__restrict__ shift,
	const uint2 *__restrict__ weight, const uint2 *__restrict__ bias, uint2 *__restrict__ out, int N,
	int tokens, float eps)
{
	__shared__ float s_data[LNF_WARPS * 3 / 2];
	const size_t row = blockIdx.x;
	const size_t b = row / (unsigned)tokens;
	const ab_wf st = ab_ln_compute_stats(x + row * N, N, s_data);
	const float rstd = rsqrtf(__fadd_rn(st.sigma2, eps));
	const int nv = N / 4;
	const uint2 *xv = reinterpret_cast<const uint2 *>(x + row * N);
	for (int i = threadIdx.x + threadIdx.y * blockDim.x; i < nv; i += LNF_THREADS) {
		float s1[4], sh[4];
		lnf_params4(__ldg(scale + b * nv + i), __ldg(shift + b * nv + i), s1, sh);
		const uint2 gv = AFFINE ? __ldg(weight + i) : make_uint2(0u, 0u);
		const uint2 bv = AFFINE ? __ldg(bias + i) : make_uint2(0u, 0u);
		__stcs(out + row * nv + i, lnf_modulate4<AFFINE>(__ldcs(xv + i), st.mean, rstd, s1, sh, gv, bv));
	}
}

/* ---- launch --------------------------------------------------------- */

struct lnf_ptrs {
	const uint2 *x, *scale, *shift, *weight, *bias;
	uint2 *out;
};

template <int V, int R, bool AFFINE>
static void lnf_launch_rr(const lnf_ptrs &p, const struct site_dims &d, float eps, cudaStream_t s)
{
	const dim3 grid((unsigned)((d.tokens + R - 1) / R), (unsigned)d.batch);
	ab_fused_ln_modulate_kernel<V, R, AFFINE>
		<<<grid, LNF_THREADS, 0, s>>>(p.x, p.scale, p.shift, p.weight, p.bias, p.out, (int)d.tokens, eps);
}

/* Table of register-resident instantiations, indexed by V - 1. */
typedef void (*lnf_launch_fn)(const lnf_ptrs &, const struct site_dims &, float, cudaStream_t);

template <int R, bool AFFINE, int... Vs>
struct lnf_table {
	static constexpr lnf_launch_fn fns[sizeof...(Vs)] = { &lnf_launch_rr<Vs, R, AFFINE>... };
};

template <int R, bool AFFINE>
static lnf_launch_fn lnf_pick(int v)
{
	if constexpr (R == 1)
		return lnf_table<R, AFFINE, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16>::fns[v - 1];
	else
		return lnf_table<R, AFFINE, 1, 2, 3, 4, 5, 6, 7, 8>::fns[v - 1];
}

static int lnf_launch_generic(const lnf_ptrs &p, const uint16_t *x, const struct site_dims &d, bool affine,
			      float eps, cudaStream_t s)
{
	if (d.rows > INT32_MAX)
		return ab_invalid();
	const dim3 block(AB_WARP, LNF_WARPS);
	const unsigned grid = (unsigned)d.rows;
	if (affine)
		ab_fused_ln_modulate_generic_kernel<true><<<grid, block, 0, s>>>(
			x, p.scale, p.shift, p.weight, p.bias, p.out, (int)d.width, (int)d.tokens, eps);
	else
		ab_fused_ln_modulate_generic_kernel<false><<<grid, block, 0, s>>>(
			x, p.scale, p.shift, p.weight, p.bias, p.out, (int)d.width, (int)d.tokens, eps);
	return (int)cudaGetLastError();
}

/* The variant AB_VARIANT_AUTO resolves to for these dims. */
static int lnf_auto_variant(const struct site_dims &d)
{
	const int64_t W = d.width;
	if (W % 512 != 0 || W / 512 > LNF_MAX_V || d.batch > 65535)
		return -1;
	const int64_t sms = ab_sm_count() > 0 ? ab_sm_count() : 1;
	return (W / 512 <= LNF_MAX_V_R2 && d.rows >= 16 * sms) ? 2 : 1;
}

int ab_ln_modulate_fused_variant(const struct site_args *a, void *stream, int variant)
{
	if (!ab_ln_site_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const lnf_ptrs p = { static_cast<const uint2 *>(a->t[LNM_X]),      static_cast<const uint2 *>(a->t[LNM_SCALE]),
			     static_cast<const uint2 *>(a->t[LNM_SHIFT]),  static_cast<const uint2 *>(a->t[LNM_WEIGHT]),
			     static_cast<const uint2 *>(a->t[LNM_BIAS]),   static_cast<uint2 *>(a->t[LNM_OUT]) };
	if (!ab_aligned(p.x, 8) || !ab_aligned(p.scale, 8) || !ab_aligned(p.shift, 8) || !ab_aligned(p.out, 8))
		return ab_invalid();
	if (a->affine && (!ab_aligned(p.weight, 8) || !ab_aligned(p.bias, 8)))
		return ab_invalid();
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	if (variant == AB_VARIANT_AUTO)
		variant = lnf_auto_variant(d);
	if (variant == -1)
		return lnf_launch_generic(p, static_cast<const uint16_t *>(a->t[LNM_X]), d, a->affine, a->eps, s);
	const int64_t v = d.width / 512;
	if (d.width % 512 != 0 || d.batch > 65535 || (variant != 1 && variant != 2))
		return ab_invalid();
	if (v > (variant == 1 ? LNF_MAX_V : LNF_MAX_V_R2))
		return ab_invalid();
	lnf_launch_fn fn = (variant == 1) ? (a->affine ? lnf_pick<1, true>((int)v) : lnf_pick<1, false>((int)v))
					  : (a->affine ? lnf_pick<2, true>((int)v) : lnf_pick<2, false>((int)v));
	fn(p, d, a->eps, s);
	return (int)cudaGetLastError();
}

extern "C" int cuda_ln_modulate_fused(const struct site_args *a, void *stream)
{
	return ab_ln_modulate_fused_variant(a, stream, AB_VARIANT_AUTO);
}
