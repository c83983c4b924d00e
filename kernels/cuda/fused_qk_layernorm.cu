/*
 * fused_qk_layernorm.cu - the per-head LayerNorm of q and of k in one
 * launch, byte-equal to two eager LayerNorm launches.
 *
 * The eager kernel normalises a row of D <= 128 values with a 128-thread
 * block in which only warp 0 holds data: lane v owns vector v (4 values)
 * when v < D / 4. Its fold: shuffle-down offsets 16, 8, 4, 2, 1 in warp 0,
 * then two combines with the (0, 0, 0) states of the empty warps 2 and 1.
 *
 * Here 8 lanes normalise a row, 4 rows per warp: lane p of a row group
 * plays the eager lanes p, p + 8, p + 16, p + 24 (its "slots" 0..3). The
 * offset-16 and offset-8 levels of the tree combine slots in registers
 * (slot 0 with 2, slot 1 with 3, then slot 0 with 1: the pairs the eager
 * shuffles form for the lanes that matter), offsets 4, 2, 1 are shuffles
 * inside the 8-lane group, and the two empty-warp combines are computed,
 * not skipped (fma(0, 0, m) turns -0 into +0, as in the eager kernel). A
 * warp thus spends a fifth of the eager shuffle tree's instructions per
 * row. With D in {32, 64, 96, 128} every slot has the same count in every
 * lane, so all counts are compile-time constants; other D use the same
 * layout with counts computed (and shuffled) at run time.
 *
 * Launch descriptor: 256 threads (8 warps), each warp ROWSETS sets of 4
 * rows whose loads are all issued before the first is used (2 sets: 64
 * bytes in flight per lane); grid = ceil(2 * rows / (32 * ROWSETS)), q's
 * rows first, then k's. __launch_bounds__ minimum blocks: 8 (32 registers,
 * a full SM of 64 warps) without affine, 6 with (40 registers), 4 for the
 * run-time-count kernel; ptxas reports no spills at those caps. Statistics
 * are not written (eager AUX tensors).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_arms.h"
#include "fused_variants.cuh"
#include "launch_util.cuh"
#include "site_check.cuh"
#include "welford.cuh"

#define QKF_THREADS 256
#define QKF_LANES 8                       /* lanes per row */
#define QKF_SLOTS (AB_WARP / QKF_LANES)   /* eager lanes per lane: 4 */
#define QKF_GROUPS (AB_WARP / QKF_LANES)  /* rows per warp and row set: 4 */

struct qkf_ptrs {
	const uint2 *q, *k, *weight, *bias;
	uint2 *q_out, *k_out;
};

/* Slot j of lane p is eager lane p + 8 j: it has data when p + 8 j < nvec. */
template <int NVEC>
static __device__ __forceinline__ bool qkf_slot_has(int j, int p, int nvec)
{
	if constexpr (NVEC > 0 && NVEC % QKF_LANES == 0)
		return j < NVEC / QKF_LANES;
	else
		return p + QKF_LANES * j < nvec;
}

/* The eager lane 0's fold for one row, from this lane's 4 slots. */
template <int NVEC>
static __device__ __forceinline__ ab_wf qkf_fold(const uint2 d[QKF_SLOTS], int p, int nvec)
{
	constexpr bool UNIFORM = NVEC > 0 && NVEC % QKF_LANES == 0;
	ab_wf s[QKF_SLOTS];
#pragma unroll
	for (int j = 0; j < QKF_SLOTS; j++) {
		s[j] = ab_wf_empty();
		if (qkf_slot_has<NVEC>(j, p, nvec))
#pragma unroll
			for (int i = 0; i < 4; i++)
				s[j] = ab_wf_online_pinned(ab_bf16x4_get(d[j], i), s[j]);
	}
	s[0] = ab_wf_combine_pinned(s[0], s[2]); /* offset 16 */
	s[1] = ab_wf_combine_pinned(s[1], s[3]);
	ab_wf w = ab_wf_combine_pinned(s[0], s[1]); /* offset 8 */
#pragma unroll
	for (int o = QKF_LANES / 2; o > 0; o /= 2) {
		const ab_wf other = { __shfl_down_sync(AB_FULL_MASK, w.mean, o, QKF_LANES),
				      __shfl_down_sync(AB_FULL_MASK, w.sigma2, o, QKF_LANES),
				      UNIFORM ? w.count : __shfl_down_sync(AB_FULL_MASK, w.count, o, QKF_LANES) };
		w = ab_wf_combine_pinned(w, other);
	}
	w = ab_wf_combine_pinned(w, ab_wf_empty()); /* warp 0 takes warp 2's state */
	w = ab_wf_combine_pinned(w, ab_wf_empty()); /* then warp 1's (warps 1 and 3 empty) */
	return w;
}

template <int NVEC, int ROWSETS, bool AFFINE>
__global__ __launch_bounds__(QKF_THREADS, NVEC == 0 ? 4 : AFFINE ? 6 : 8) void ab_fused_qk_layernorm_kernel(qkf_ptrs P, int64_t rows, int nvec_rt,
									     float eps)
{
	const int nvec = NVEC > 0 ? NVEC : nvec_rt;
	const int lane = threadIdx.x & (AB_WARP - 1);
	const int p = lane % QKF_LANES;
	const int64_t warp = ((int64_t)blockIdx.x * QKF_THREADS + threadIdx.x) / AB_WARP;
	const float n = (float)(4 * nvec);

	int64_t row[ROWSETS];
	uint2 d[ROWSETS][QKF_SLOTS];
#pragma unroll
	for (int rs = 0; rs < ROWSETS; rs++) {
		row[rs] = (warp * ROWSETS + rs) * QKF_GROUPS + lane / QKF_LANES;
		const bool valid = row[rs] < 2 * rows;
		const uint2 *src = (row[rs] < rows) ? P.q + row[rs] * nvec : P.k + (row[rs] - rows) * nvec;
#pragma unroll
		for (int j = 0; j < QKF_SLOTS; j++)
			d[rs][j] = (valid && qkf_slot_has<NVEC>(j, p, nvec)) ? __ldcs(src + p + QKF_LANES * j)
									    : make_uint2(0u, 0u);
	}

#pragma unroll
	for (int rs = 0; rs < ROWSETS; rs++) {
		const ab_wf w = qkf_fold<NVEC>(d[rs], p, nvec);
		const float mean = __shfl_sync(AB_FULL_MASK, w.mean, 0, QKF_LANES);
		const float rstd = __shfl_sync(AB_FULL_MASK, ab_ln_rstd_pinned(w.sigma2, n, eps), 0, QKF_LANES);
		if (row[rs] >= 2 * rows)
			continue;
		uint2 *dst = (row[rs] < rows) ? P.q_out + row[rs] * nvec : P.k_out + (row[rs] - rows) * nvec;
#pragma unroll
		for (int j = 0; j < QKF_SLOTS; j++) {
			if (!qkf_slot_has<NVEC>(j, p, nvec))
				continue;
			const int v = p + QKF_LANES * j;
			const uint2 gv = AFFINE ? __ldg(P.weight + v) : make_uint2(0u, 0u);
			const uint2 bv = AFFINE ? __ldg(P.bias + v) : make_uint2(0u, 0u);
			float o[4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				const float x = ab_bf16x4_get(d[rs][j], i);
				o[i] = AFFINE ? ab_ln_norm_affine_pinned(x, mean, rstd, ab_bf16x4_get(gv, i),
									  ab_bf16x4_get(bv, i))
					      : ab_ln_norm_pinned(x, mean, rstd);
			}
			__stcs(dst + v, make_uint2(ab_pack_bf16x2(o[0], o[1]), ab_pack_bf16x2(o[2], o[3])));
		}
	}
}

/* ---- launch --------------------------------------------------------- */

template <int NVEC, int ROWSETS>
static void qkf_launch(const qkf_ptrs &p, int64_t rows, int nvec, bool affine, float eps, cudaStream_t s)
{
	const int64_t rows_per_block = (int64_t)(QKF_THREADS / AB_WARP) * ROWSETS * QKF_GROUPS;
	const unsigned grid = (unsigned)((2 * rows + rows_per_block - 1) / rows_per_block);
	if (affine)
		ab_fused_qk_layernorm_kernel<NVEC, ROWSETS, true><<<grid, QKF_THREADS, 0, s>>>(p, rows, nvec, eps);
	else
		ab_fused_qk_layernorm_kernel<NVEC, ROWSETS, false><<<grid, QKF_THREADS, 0, s>>>(p, rows, nvec, eps);
}

/* Compile-time counts for D in {32, 64, 96, 128}; run time otherwise. */
template <int ROWSETS>
static void qkf_dispatch(const qkf_ptrs &p, int64_t rows, int nvec, bool uniform, bool affine, float eps,
			 cudaStream_t s)
{
	if (!uniform) {
		qkf_launch<0, ROWSETS>(p, rows, nvec, affine, eps, s);
		return;
	}
	switch (nvec) {
	case 8:
		qkf_launch<8, ROWSETS>(p, rows, nvec, affine, eps, s);
		break;
	case 16:
		qkf_launch<16, ROWSETS>(p, rows, nvec, affine, eps, s);
		break;
	case 24:
		qkf_launch<24, ROWSETS>(p, rows, nvec, affine, eps, s);
		break;
	default:
		qkf_launch<32, ROWSETS>(p, rows, nvec, affine, eps, s);
		break;
	}
}

int ab_qk_layernorm_fused_variant(const struct site_args *a, void *stream, int variant)
{
	if (!ab_qk_site_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const qkf_ptrs p = { static_cast<const uint2 *>(a->t[QK_Q]),      static_cast<const uint2 *>(a->t[QK_K]),
			     static_cast<const uint2 *>(a->t[QK_WEIGHT]), static_cast<const uint2 *>(a->t[QK_BIAS]),
			     static_cast<uint2 *>(a->t[QK_Q_OUT]),        static_cast<uint2 *>(a->t[QK_K_OUT]) };
	if (!ab_aligned(p.q, 8) || !ab_aligned(p.k, 8) || !ab_aligned(p.q_out, 8) || !ab_aligned(p.k_out, 8))
		return ab_invalid();
	if (a->affine && (!ab_aligned(p.weight, 8) || !ab_aligned(p.bias, 8)))
		return ab_invalid();
	const int nvec = (int)(d.row_len / 4);
	const bool can_uniform = nvec % QKF_LANES == 0;
	if (variant == AB_VARIANT_AUTO)
		variant = can_uniform ? 2 : -2;
	if ((variant == 1 || variant == 2) && !can_uniform)
		return ab_invalid();
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	const int64_t rows_per_block = (int64_t)(QKF_THREADS / AB_WARP) * QKF_GROUPS;
	if ((2 * d.rows + rows_per_block - 1) / rows_per_block > INT32_MAX)
		return ab_invalid();
	switch (variant) {
	case 1:
	case -1:
		qkf_dispatch<1>(p, d.rows, nvec, variant > 0, a->affine, a->eps, s);
		break;
	case 2:
	case -2:
		qkf_dispatch<2>(p, d.rows, nvec, variant > 0, a->affine, a->eps, s);
		break;
	default:
		return ab_invalid();
	}
	return (int)cudaGetLastError();
}

extern "C" int cuda_qk_layernorm_fused(const struct site_args *a, void *stream)
{
	return ab_qk_layernorm_fused_variant(a, stream, AB_VARIANT_AUTO);
}
