/*
 * cuda_fused.cu - qk_layernorm's fused arm on CUDA: the per-head LayerNorm
 * of q and of k in one launch, byte-equal to two eager LayerNorm launches;
 * the measured winner as `fused` and each shipped tuning by name.
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
 * Launch descriptor (s2, rt2): 256 threads (8 warps), each warp ROWSETS = 2
 * sets of 4 rows whose loads are all issued before the first is used (64
 * bytes in flight per lane); grid = ceil(2 * rows / 64), q's rows first,
 * then k's. __launch_bounds__ minimum blocks: 8 (32 registers, a full SM
 * of 64 warps) without affine, 6 with (40 registers), 4 for the
 * run-time-count kernel; ptxas reports no spills at those caps. Statistics
 * are not written (eager AUX tensors).
 *
 * The 16-byte layout (x8s2d: 8 lanes per row, 2 eager lanes' vectors per
 * 16-byte load, 2 row sets, the default cache policy) is the same tree
 * with more of its levels inside a lane; see its section below. `fused`
 * is the chain near the end of this file: x8s2d, then s2, then rt2.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/launch_util.cuh"
#include "kernels/common/welford.cuh"
#include "kernels/qk_layernorm/qk_layernorm.h"

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

/* ---- the 16-byte layout (x8s2d) ----------------------------------------
 *
 * L lanes per row (built: L = 8, RS = 2 row sets; the code takes L = 4
 * or 2 and other RS, measured in session 3 and issue 24, lost), 32 / L
 * rows per warp and row set. Lane
 * p of a row loads the row's 16-byte vectors p + L k; vector q holds the
 * eager 8-byte vectors 2q and 2q + 1, which eager lanes 2q and 2q + 1 own.
 * So lane p plays eager lanes 2p + e + 2L k, slot (k, e). Lane 0's eager
 * tree at offset o combines lanes v < o with v + o:
 *   o >= 2L:   slot (k, e) with (k + o / 2L, e), in registers;
 *   2 <= o < 2L: slot (0, e) of lane p with that of lane p + o / 2, a
 *              shuffle-down by o / 2 within the L-lane group (lanes past
 *              the group get their own value back, as in the eager shuffle;
 *              they never feed lane 0);
 *   o = 1:     slot (0, 0) with (0, 1), in registers;
 * then the two combines with the empty warps' states, as in qkf_fold. With
 * nvec % 2L == 0, slot k holds data exactly when k < nvec / 2L in every
 * lane, so all counts are compile-time constants (NVEC template).
 */

/* Registers each instantiation is held to (__maxnreg__): its data words,
 * the Welford states of its 32 / L eager lanes (2 floats each) and 16-32
 * for the rest, rounded up to the next count that changes how many
 * 256-thread blocks fit on an SM (32: 8 blocks, 40: 6, 48: 5, 64: 4, 80: 3,
 * 128: 2); from ptxas -v, so that none spills. */
template <int L, int NVEC, int RS, bool AFFINE>
static constexpr int qkx_max_regs()
{
	constexpr int rest = (L == 4 ? 8 + 8 * RS : 16) + (AFFINE ? 8 : 0);
	constexpr int need = RS * (NVEC / (2 * L)) * 4 + 64 / L + rest;
	return need <= 32 ? 32 : need <= 40 ? 40 : need <= 48 ? 48 : need <= 64 ? 64 : need <= 80 ? 80 : 128;
}

/* The eager tree's levels o = O, O / 2, ... >= 2L, all within a lane's
 * slots; a template recursion so that every index is a compile-time
 * constant (a loop over o left the L = 2 states in local memory). */
template <int O, int L>
static __device__ __forceinline__ void qkx_fold_regs(ab_wf (&st)[16 / L][2])
{
	if constexpr (O >= 2 * L) {
#pragma unroll
		for (int k = 0; k < O / (2 * L); k++)
#pragma unroll
			for (int e = 0; e < 2; e++)
				st[k][e] = ab_wf_combine_pinned(st[k][e], st[k + O / (2 * L)][e]);
		qkx_fold_regs<O / 2, L>(st);
	}
}

template <int L, int NVEC>
static __device__ __forceinline__ ab_wf qkx_fold(const uint4 (&d)[NVEC / (2 * L)])
{
	constexpr int KA = 16 / L;           /* slot rows covering the 32 eager lanes */
	constexpr int KD = NVEC / (2 * L);   /* slot rows holding data */
	ab_wf st[KA][2];
#pragma unroll
	for (int k = 0; k < KA; k++)
#pragma unroll
		for (int e = 0; e < 2; e++) {
			st[k][e] = ab_wf_empty();
			if (k < KD) {
				const uint32_t w0 = e ? d[k < KD ? k : 0].z : d[k < KD ? k : 0].x;
				const uint32_t w1 = e ? d[k < KD ? k : 0].w : d[k < KD ? k : 0].y;
				st[k][e] = ab_wf_online_pinned(ab_bf16_lo(w0), st[k][e]);
				st[k][e] = ab_wf_online_pinned(ab_bf16_hi(w0), st[k][e]);
				st[k][e] = ab_wf_online_pinned(ab_bf16_lo(w1), st[k][e]);
				st[k][e] = ab_wf_online_pinned(ab_bf16_hi(w1), st[k][e]);
			}
		}
	qkx_fold_regs<AB_WARP / 2, L>(st);
#pragma unroll
	for (int sh = L / 2; sh >= 1; sh /= 2)
#pragma unroll
		for (int e = 0; e < 2; e++) {
			const ab_wf other = { __shfl_down_sync(AB_FULL_MASK, st[0][e].mean, sh, L),
					      __shfl_down_sync(AB_FULL_MASK, st[0][e].sigma2, sh, L), st[0][e].count };
			st[0][e] = ab_wf_combine_pinned(st[0][e], other);
		}
	ab_wf w = ab_wf_combine_pinned(st[0][0], st[0][1]); /* offset 1 */
	w = ab_wf_combine_pinned(w, ab_wf_empty());          /* warp 0 takes warp 2's state */
	return ab_wf_combine_pinned(w, ab_wf_empty());       /* then warp 1's */
}

/* LayerNorm of 4 + 4 values (one 16-byte vector), rounded to bf16. */
template <bool AFFINE>
static __device__ __forceinline__ uint4 qkx_norm8(const uint4 x, float mean, float rstd, const uint4 g, const uint4 b)
{
	const uint32_t xw[4] = { x.x, x.y, x.z, x.w }, gw[4] = { g.x, g.y, g.z, g.w }, bw[4] = { b.x, b.y, b.z, b.w };
	uint32_t o[4];
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float lo, hi;
		if constexpr (AFFINE) {
			lo = ab_ln_norm_affine_pinned(ab_bf16_lo(xw[i]), mean, rstd, ab_bf16_lo(gw[i]), ab_bf16_lo(bw[i]));
			hi = ab_ln_norm_affine_pinned(ab_bf16_hi(xw[i]), mean, rstd, ab_bf16_hi(gw[i]), ab_bf16_hi(bw[i]));
		} else {
			lo = ab_ln_norm_pinned(ab_bf16_lo(xw[i]), mean, rstd);
			hi = ab_ln_norm_pinned(ab_bf16_hi(xw[i]), mean, rstd);
		}
		o[i] = ab_pack_bf16x2(lo, hi);
	}
	return make_uint4(o[0], o[1], o[2], o[3]);
}

/* q and k loaded, q_out and k_out stored with the default cache policy
 * (plain ld.global, write-back st.global.wb). Issue 24 (H200, CUPTI, L2
 * flushed): a plain copy of qk's bytes ran 3% faster with it than with the
 * streaming hint .cs (evict first: 35.30 against 36.38 us), and so did
 * this kernel: x8s2d 36.93 us against x8s2's 38.21 with .cs loads and
 * stores, 37.12 with plain loads and .cs stores. They are spelled in PTX
 * exactly as CUDA's __ldcs and __stcs are (an asm volatile load, an asm
 * store with a memory clobber), so that only the policy differs from the
 * .cs kernel, not NVVM's scheduling: a plain `*p = v` store cost an
 * 8-byte spill (ptxas -v). */
static __device__ __forceinline__ uint4 qkx_ld(const uint4 *p)
{
	uint4 r;
	asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
	return r;
}

static __device__ __forceinline__ void qkx_st(uint4 *p, const uint4 &v)
{
	asm("st.global.wb.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

template <int L, int NVEC, int RS, bool AFFINE>
__global__ __launch_bounds__(QKF_THREADS) __maxnreg__((qkx_max_regs<L, NVEC, RS, AFFINE>())) void
ab_fused_qk_layernorm_x16_kernel(qkf_ptrs P, int64_t rows, float eps)
{
	constexpr int KD = NVEC / (2 * L);
	constexpr int RPW = AB_WARP / L; /* rows per warp and row set */
	constexpr int NV16 = NVEC / 2;   /* 16-byte vectors per row */
	const int lane = threadIdx.x & (AB_WARP - 1);
	const int p = lane % L;
	const int64_t warp = ((int64_t)blockIdx.x * QKF_THREADS + threadIdx.x) / AB_WARP;
	const uint4 *q = reinterpret_cast<const uint4 *>(P.q), *k = reinterpret_cast<const uint4 *>(P.k);

	int64_t row[RS];
	uint4 d[RS][KD];
#pragma unroll
	for (int rs = 0; rs < RS; rs++) {
		row[rs] = (warp * RS + rs) * RPW + lane / L;
		const bool valid = row[rs] < 2 * rows;
		const uint4 *src = (row[rs] < rows) ? q + row[rs] * NV16 : k + (row[rs] - rows) * NV16;
#pragma unroll
		for (int j = 0; j < KD; j++)
			d[rs][j] = valid ? qkx_ld(src + p + L * j) : make_uint4(0u, 0u, 0u, 0u);
	}

#pragma unroll
	for (int rs = 0; rs < RS; rs++) {
		const ab_wf w = qkx_fold<L, NVEC>(d[rs]);
		const float mean = __shfl_sync(AB_FULL_MASK, w.mean, 0, L);
		const float rstd = __shfl_sync(AB_FULL_MASK, ab_ln_rstd_pinned(w.sigma2, (float)(4 * NVEC), eps), 0, L);
		if (row[rs] >= 2 * rows)
			continue;
		uint4 *dst = reinterpret_cast<uint4 *>(row[rs] < rows ? P.q_out + row[rs] * (2 * NV16)
								       : P.k_out + (row[rs] - rows) * (2 * NV16));
#pragma unroll
		for (int j = 0; j < KD; j++) {
			const int v = p + L * j;
			const uint4 z = make_uint4(0u, 0u, 0u, 0u);
			const uint4 gv = AFFINE ? __ldg(reinterpret_cast<const uint4 *>(P.weight) + v) : z;
			const uint4 bv = AFFINE ? __ldg(reinterpret_cast<const uint4 *>(P.bias) + v) : z;
			qkx_st(dst + v, qkx_norm8<AFFINE>(d[rs][j], mean, rstd, gv, bv));
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
static int qkf_dispatch(const qkf_ptrs &p, int64_t rows, int nvec, bool uniform, bool affine, float eps,
			 cudaStream_t s)
{
	if (!uniform) {
		qkf_launch<0, ROWSETS>(p, rows, nvec, affine, eps, s);
		return (int)cudaGetLastError();
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
	return (int)cudaGetLastError();
}

template <int L, int NVEC, int RS>
static void qkx_launch(const qkf_ptrs &p, int64_t rows, bool affine, float eps, cudaStream_t s)
{
	const int64_t rows_per_block = (int64_t)(QKF_THREADS / AB_WARP) * RS * (AB_WARP / L);
	const unsigned grid = (unsigned)((2 * rows + rows_per_block - 1) / rows_per_block);
	if (affine)
		ab_fused_qk_layernorm_x16_kernel<L, NVEC, RS, true><<<grid, QKF_THREADS, 0, s>>>(p, rows, eps);
	else
		ab_fused_qk_layernorm_x16_kernel<L, NVEC, RS, false><<<grid, QKF_THREADS, 0, s>>>(p, rows, eps);
}

/* The 16-byte layouts: nvec in {8, 16, 24, 32} with nvec % 2L == 0. */
template <int L, int RS>
static int qkx_dispatch(const struct site_args *a, const qkf_ptrs &p, int nvec, cudaStream_t s)
{
	if (nvec % (2 * L) != 0 || nvec % 8 != 0)
		return ab_invalid();
	const void *const ptrs[] = { p.q, p.k, p.q_out, p.k_out };
	for (const void *ptr : ptrs)
		if (!ab_aligned(ptr, 16))
			return ab_invalid();
	if (a->affine && (!ab_aligned(p.weight, 16) || !ab_aligned(p.bias, 16)))
		return ab_invalid();
	const int64_t rows = a->dims.rows;
	const int64_t rows_per_block = (int64_t)(QKF_THREADS / AB_WARP) * RS * (AB_WARP / L);
	if ((2 * rows + rows_per_block - 1) / rows_per_block > INT32_MAX)
		return ab_invalid();
	switch (nvec) {
	case 8:
		if constexpr (8 % (2 * L) == 0)
			qkx_launch<L, 8, RS>(p, rows, a->affine, a->eps, s);
		else
			return ab_invalid();
		break;
	case 16:
		qkx_launch<L, 16, RS>(p, rows, a->affine, a->eps, s);
		break;
	case 24:
		if constexpr (24 % (2 * L) == 0)
			qkx_launch<L, 24, RS>(p, rows, a->affine, a->eps, s);
		else
			return ab_invalid();
		break;
	default:
		qkx_launch<L, 32, RS>(p, rows, a->affine, a->eps, s);
		break;
	}
	return (int)cudaGetLastError();
}

/* The shipped tunings (named in site.c as fused.<name>). */
enum qkf_tuning {
	QKF_X8S2D, /* 16-byte loads, 8 lanes a row, 2 row sets per warp, default cache policy; D in {64, 128} */
	QKF_S2,   /* 8-byte loads, 8 lanes a row, 2 row sets per warp; D in {32, 64, 96, 128} */
	QKF_RT2,  /* s2's layout with run-time counts: any D % 4 == 0, D <= 128 */
};

/* Launches one tuning; cudaErrorInvalidValue if it cannot take these dims
 * or pointers. */
static int qkf_launch_tuning(const struct site_args *a, const qkf_ptrs &p, enum qkf_tuning t, cudaStream_t s)
{
	const struct site_dims &d = a->dims;
	const int nvec = (int)(d.row_len / 4);
	const bool can_uniform = nvec % QKF_LANES == 0;
	const int64_t rows_per_block = (int64_t)(QKF_THREADS / AB_WARP) * QKF_GROUPS;
	if ((2 * d.rows + rows_per_block - 1) / rows_per_block > INT32_MAX)
		return ab_invalid();
	switch (t) {
	case QKF_S2:
		return can_uniform ? qkf_dispatch<2>(p, d.rows, nvec, true, a->affine, a->eps, s) : ab_invalid();
	case QKF_RT2:
		return qkf_dispatch<2>(p, d.rows, nvec, false, a->affine, a->eps, s);
	case QKF_X8S2D:
		return qkx_dispatch<8, 2>(a, p, nvec, s);
	}
	return ab_invalid();
}

/*
 * `fused`: the measured winner first; a shape or pointer it refuses falls
 * back to s2, then to rt2 (any D % 4 == 0). GPU session 3 (H200, events,
 * L2 flushed, 1x4360x32x128, q + k): x8s2 40.51 us, x8s4 40.99, s1 42.40,
 * s2 42.53, x4s1 43.36, x4s2 44.40, rt1 46.00, x2s1 54.48; with affine
 * x8s2 41.41 against s1 42.22. Issue 24 (CUPTI kernel time, same shape):
 * x8s2d 36.93 us, x8s2l 37.12, x8s4d 38.08, x8s2 (.cs) 38.21, x8s4 38.85,
 * x4s1 39.68, s2 39.81, the bulk-copy rings 40.54 and 40.72; a copy of the
 * same bytes 35.30. Every loser but the fallbacks left the build;
 * scenarios/tuning_glm/qk_*.ini re-measure the rest.
 */
static const enum qkf_tuning QKF_CHAIN[] = { QKF_X8S2D, QKF_S2, QKF_RT2 };

/* The site's pointer checks, then the first tuning that takes the case. */
static int qkf_run(const struct site_args *a, void *stream, const enum qkf_tuning *tunings, int n)
{
	if (!qk_layernorm_args_ok(a))
		return ab_invalid();
	const qkf_ptrs p = { static_cast<const uint2 *>(a->t[QK_Q]),      static_cast<const uint2 *>(a->t[QK_K]),
			     static_cast<const uint2 *>(a->t[QK_WEIGHT]), static_cast<const uint2 *>(a->t[QK_BIAS]),
			     static_cast<uint2 *>(a->t[QK_Q_OUT]),        static_cast<uint2 *>(a->t[QK_K_OUT]) };
	if (!ab_aligned(p.q, 8) || !ab_aligned(p.k, 8) || !ab_aligned(p.q_out, 8) || !ab_aligned(p.k_out, 8))
		return ab_invalid();
	if (a->affine && (!ab_aligned(p.weight, 8) || !ab_aligned(p.bias, 8)))
		return ab_invalid();
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	int rc = ab_invalid();
	for (int i = 0; i < n; i++)
		if ((rc = qkf_launch_tuning(a, p, tunings[i], s)) != ab_invalid())
			return rc;
	return rc;
}

extern "C" int qk_layernorm_cuda_fused(const struct site_args *a, void *stream)
{
	return qkf_run(a, stream, QKF_CHAIN, (int)(sizeof QKF_CHAIN / sizeof QKF_CHAIN[0]));
}

/* fused.<tuning>: one tuning forced, no fallback. */
#define QKF_TUNING_ARM(fn, tuning)                                 \
	extern "C" int fn(const struct site_args *a, void *stream) \
	{                                                          \
		static const enum qkf_tuning t = tuning;           \
		return qkf_run(a, stream, &t, 1);                  \
	}

QKF_TUNING_ARM(qk_layernorm_cuda_fused_x8s2d, QKF_X8S2D)
QKF_TUNING_ARM(qk_layernorm_cuda_fused_s2, QKF_S2)
QKF_TUNING_ARM(qk_layernorm_cuda_fused_rt2, QKF_RT2)
