/*
 * cuda_fused.cu - ln_modulate's fused arm on CUDA (and ln_continuous's):
 * LayerNorm + (1 + scale) + shift in one launch, byte-equal to the eager
 * chain; the measured winner as `fused` and each shipped tuning by name.
 *
 * Register-resident kernel (r1: W % 512 == 0, W <= 8192): a block of 128
 * threads per row. Thread t plays the eager LayerNorm's thread t: it loads
 * the 8-byte vectors t, t + 128, ... (V = W / 512 of them, kept in
 * registers, so x is read once), folds their values in order into its
 * Welford state, then the warp's shuffle-down tree and the 4-warp tree run
 * exactly as in aten's compute_stats. Every thread has V * 4 values, so
 * every count in the tree is a compile-time constant: the reciprocals fold
 * away. After one __syncthreads each thread reads the 4 warp states from
 * shared memory and repeats aten's inter-warp combines (warp 0 + 2, warp 1
 * + 3, then the two) itself, which saves the eager kernel's four other
 * barriers. Epilogue per value: y = bf16(rstd * (x - mean)) (affine:
 * bf16(fma(g, rstd * (x - mean), b))), s1 = bf16(scale + 1),
 * z = bf16(y * s1), out = bf16(z + shift).
 *
 * Generic kernel (any W % 4 == 0): aten's block layout with run-time
 * counts (the eager kernel's own compute_stats), then the same epilogue
 * over a second read of the row.
 *
 * Layout kernel (r1h, h1, r1p; W = 3072, 4096, 5120): the same statistics
 * with a row held by 128 or 64 threads loading 8 or 16 bytes at a time,
 * each playing 1 or 2 eager threads (the mapping is in its section below
 * and in docs/KERNELS.md), optionally persistent (one balanced wave of
 * blocks looping over rows, the next row's loads issued before this row's
 * math), with the modulate roundings in bf16x2 arithmetic (add.rn /
 * mul.rn.bf16x2, bit-identical to float-then-round for these operands).
 *
 * Launch descriptor: register-resident kernel: block 128 threads, grid
 * (T, B); generic: grid B * T; layout kernel: block 128 or 64 threads,
 * grid (T, B) or the persistent wave; no dynamic shared memory. ptxas
 * (nvcc 13.0, sm_90), W = 4096: r1 32 registers (16 blocks per SM); the
 * layout kernel's caps in lnv_max_regs; none spills (docs/PERF_NOTES.md).
 * `fused` is the chain at the end of this file: r1h, then r1, then generic.
 * Statistics are not written: they are the eager arm's AUX tensors.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/bulk_copy.cuh"
#include "kernels/common/launch_util.cuh"
#include "kernels/common/welford.cuh"
#include "kernels/ln_modulate/ln_modulate.h"

#define LNF_THREADS 128
#define LNF_WARPS (LNF_THREADS / AB_WARP)
#define LNF_MAX_V 16 /* register-resident up to W = 8192 */

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

/* R rows per block; only R = 1 ships (r1: R = 2 lost on the H200, 29.6
 * against 25.4 us, docs/PERF_NOTES.md). */
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

/* ---- the layout kernel (r1h, h1, r1p) ----------------------------------
 *
 * One row is held by TPR threads that load VB bytes at a time; together
 * they play the eager kernel's 128 threads. Thread p of a row loads the
 * row's VB-byte vectors q = p + TPR k (k = 0 .. NL - 1). Vector q holds the
 * eager 8-byte vectors H q + h (h < H = VB / 8), which belong to eager
 * thread (H q + h) mod 128 as its vector number (H q + h) div 128. With
 * H TPR S = 128, that is eager thread T(s, h) = H p + h + H TPR s for
 * s = k mod S, as its vector j = k div S: each thread plays S * H eager
 * threads, all with the same vector count V = W / 512, so every count in
 * the statistics is a compile-time constant, as in the r1/r2 kernel.
 *
 *   VB  TPR  H  S  eager threads of thread p
 *    8  128  1  1  p                               (r1h, r1p: r1's layout)
 *   16   64  2  1  2p, 2p+1                        (h1)
 *
 * The eager shuffle tree (offsets 16 .. 1 within each eager warp) maps to
 * shuffles by o / H within groups of 32 / H lanes for o >= H, and for
 * H = 2 the last level (offset 1: eager lanes 2m and 2m+1) is a combine of
 * the thread's own two states; docs/KERNELS.md shows why every value lane
 * 0 of an eager warp ends with is the eager one. The 4-warp fold goes
 * through shared memory (a row spans 4 or 2 physical warps), behind one
 * __syncthreads (a block holds one row).
 */

template <int VB, int TPR>
struct lnv_geo {
	static constexpr int H = VB / 8;          /* eager vectors per load */
	static constexpr int NW = VB / 4;         /* 32-bit words per load */
	static constexpr int S = 128 / (H * TPR); /* load slots per eager-thread pair */
	static constexpr int GW = AB_WARP / H;    /* lanes that hold one eager warp */
	static_assert((VB == 8 || VB == 16) && S >= 1 && H * TPR * S == 128, "layout must tile the 128 eager threads");
	static_assert(TPR > AB_WARP, "a row spans several warps: the 4-warp fold goes through shared memory");
};

/* VB-byte loads and stores as 32-bit words. x is loaded and out stored
 * with the streaming hint (.cs: evict first, read or written once). The
 * parameters (scale, shift, weight, bias: L1-resident, shared by every row
 * of a batch) use plain coherent loads, not ld.global.nc: ptxas moves
 * read-only .nc loads above the statistics' barrier and keeps a row's
 * worth of parameters live (ptxas -v: 96 instead of 32 registers for the
 * 8-byte layout, 255 for one warp per row); a coherent load cannot pass
 * bar.sync / bar.warp.sync, nor a store that may alias it. */
template <int NW>
struct lnv_io;
template <>
struct lnv_io<2> {
	static __device__ __forceinline__ void ld_cs(uint32_t (&w)[2], const void *base, size_t i)
	{
		const uint2 v = __ldcs(static_cast<const uint2 *>(base) + i);
		w[0] = v.x;
		w[1] = v.y;
	}
	static __device__ __forceinline__ void ld_param(uint32_t (&w)[2], const void *base, size_t i)
	{
		asm volatile("ld.global.v2.u32 {%0, %1}, [%2];"
			     : "=r"(w[0]), "=r"(w[1])
			     : "l"(static_cast<const uint2 *>(base) + i));
	}
	static __device__ __forceinline__ void st_cs(void *base, size_t i, const uint32_t (&w)[2])
	{
		__stcs(static_cast<uint2 *>(base) + i, make_uint2(w[0], w[1]));
	}
};
template <>
struct lnv_io<4> {
	static __device__ __forceinline__ void ld_cs(uint32_t (&w)[4], const void *base, size_t i)
	{
		const uint4 v = __ldcs(static_cast<const uint4 *>(base) + i);
		w[0] = v.x;
		w[1] = v.y;
		w[2] = v.z;
		w[3] = v.w;
	}
	static __device__ __forceinline__ void ld_param(uint32_t (&w)[4], const void *base, size_t i)
	{
		asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
			     : "l"(static_cast<const uint4 *>(base) + i));
	}
	static __device__ __forceinline__ void st_cs(void *base, size_t i, const uint32_t (&w)[4])
	{
		__stcs(static_cast<uint4 *>(base) + i, make_uint4(w[0], w[1], w[2], w[3]));
	}
};

struct lnv_args {
	const void *x, *scale, *shift, *weight, *bias;
	void *out;
	int batch, tokens, rows; /* rows = batch * tokens */
	float eps;
};

/* Mean and rstd of the row whose NL x NW words this thread holds (thread p
 * of the row; ws: the row's 4 shared-memory slots). */
template <int V, int VB, int TPR>
static __device__ __forceinline__ void lnv_stats(const uint32_t (&d)[V * lnv_geo<VB, TPR>::S][VB / 4], int p,
						 float2 *ws, float eps, float &mean, float &rstd)
{
	typedef lnv_geo<VB, TPR> G;
	constexpr int H = G::H, S = G::S, GW = G::GW;
	ab_wf st[S][H];
#pragma unroll
	for (int s = 0; s < S; s++)
#pragma unroll
		for (int h = 0; h < H; h++)
			st[s][h] = ab_wf_empty();
	/* Eager thread T(s, h) folds its vectors j = 0 .. V-1, values in order. */
#pragma unroll
	for (int j = 0; j < V; j++)
#pragma unroll
		for (int s = 0; s < S; s++)
#pragma unroll
			for (int h = 0; h < H; h++)
#pragma unroll
				for (int i = 0; i < 4; i++) {
					const uint32_t w = d[j * S + s][2 * h + i / 2];
					st[s][h] = ab_wf_online_pinned((i & 1) ? ab_bf16_hi(w) : ab_bf16_lo(w), st[s][h]);
				}
	/* Eager offsets 16 .. H: partner lane + o is thread p + o / H, same (s, h). */
#pragma unroll
	for (int o = AB_WARP / 2; o >= H; o /= 2)
#pragma unroll
		for (int s = 0; s < S; s++)
#pragma unroll
			for (int h = 0; h < H; h++) {
				const ab_wf other = { __shfl_down_sync(AB_FULL_MASK, st[s][h].mean, o / H, GW),
						      __shfl_down_sync(AB_FULL_MASK, st[s][h].sigma2, o / H, GW),
						      st[s][h].count };
				st[s][h] = ab_wf_combine_pinned(st[s][h], other);
			}
	if constexpr (H == 2) /* eager offset 1: lane 2m takes lane 2m + 1, this thread's h = 1 */
#pragma unroll
		for (int s = 0; s < S; s++)
			st[s][0] = ab_wf_combine_pinned(st[s][0], st[s][1]);

	const float wc = st[0][0].count; /* each eager warp's count, W / 4 */
	if (p % GW == 0)
#pragma unroll
		for (int s = 0; s < S; s++)
			ws[(H * p) / AB_WARP + (H * TPR / AB_WARP) * s] = make_float2(st[s][0].mean, st[s][0].sigma2);
	__syncthreads();
	ab_wf w4[4];
#pragma unroll
	for (int k = 0; k < 4; k++)
		w4[k] = { ws[k].x, ws[k].y, wc };
	w4[0] = ab_wf_combine_pinned(w4[0], w4[2]);
	w4[1] = ab_wf_combine_pinned(w4[1], w4[3]);
	const ab_wf f = ab_wf_combine_pinned(w4[0], w4[1]);
	mean = f.mean;
	rstd = ab_ln_rstd_pinned(f.sigma2, (float)(512 * V), eps);
}

/* bf16 halves of a word as floats, spelled with prmt so that the compiler
 * cannot reuse the statistics pass's unpacked values (shifts of the same
 * words) and keep a row's floats live instead of its packed words. */
static __device__ __forceinline__ float lnv_lo(uint32_t w)
{
	uint32_t r;
	asm("prmt.b32 %0, %1, 0, 0x1044;" : "=r"(r) : "r"(w));
	return __uint_as_float(r);
}

static __device__ __forceinline__ float lnv_hi(uint32_t w)
{
	uint32_t r;
	asm("prmt.b32 %0, %1, 0, 0x3244;" : "=r"(r) : "r"(w));
	return __uint_as_float(r);
}

/* The epilogue of two values (one 32-bit word): y = bf16(LN(x)), then
 * bf16(bf16(y * bf16(scale + 1)) + shift) in bf16x2 arithmetic (three
 * instructions for two elements; docs/KERNELS.md, "bf16x2 arithmetic"). */
template <bool AFFINE>
static __device__ __forceinline__ uint32_t lnv_mod2(uint32_t xw, float mean, float rstd, uint32_t scw, uint32_t shw,
						    uint32_t gw, uint32_t bw)
{
	float y0, y1;
	if constexpr (AFFINE) {
		y0 = ab_ln_norm_affine_pinned(lnv_lo(xw), mean, rstd, ab_bf16_lo(gw), ab_bf16_lo(bw));
		y1 = ab_ln_norm_affine_pinned(lnv_hi(xw), mean, rstd, ab_bf16_hi(gw), ab_bf16_hi(bw));
	} else {
		(void)gw;
		(void)bw;
		y0 = ab_ln_norm_pinned(lnv_lo(xw), mean, rstd);
		y1 = ab_ln_norm_pinned(lnv_hi(xw), mean, rstd);
	}
	const uint32_t yw = ab_pack_bf16x2(y0, y1);
	const uint32_t s1 = ab_bf16x2_add_rn(scw, AB_BF16X2_ONE);
	return ab_bf16x2_add_rn(ab_bf16x2_mul_rn(yw, s1), shw);
}

/* Loads row `row` (flattened over batch and tokens) into d. */
template <int NL, int NW, int TPR>
static __device__ __forceinline__ void lnv_load(uint32_t (&d)[NL][NW], const lnv_args &A, int row, int p)
{
	const size_t base = (size_t)row * (TPR * NL) + p;
#pragma unroll
	for (int k = 0; k < NL; k++)
		lnv_io<NW>::ld_cs(d[k], A.x, base + (size_t)TPR * k);
}

/* The parameters of a thread's NL vectors when they are loaded with the
 * row (PF, the prefetching tunings); NP = NL then, else 1 (unused). */
template <int NP, int NW, bool AFFINE>
struct lnv_par {
	uint32_t sc[NP][NW], sh[NP][NW];
	uint32_t g[AFFINE ? NP : 1][NW], bi[AFFINE ? NP : 1][NW];
};

/* Vector k's parameters: from P when prefetched, else loaded now (after
 * the statistics' barrier, which a coherent load cannot pass). */
template <int NP, int NW, int TPR, int NL, bool PF, bool AFFINE>
static __device__ __forceinline__ void lnv_params_of(const lnv_par<NP, NW, AFFINE> &P, const lnv_args &A, int b, int p,
						     int k, uint32_t (&sc)[NW], uint32_t (&sh)[NW], uint32_t (&g)[NW],
						     uint32_t (&bi)[NW])
{
	if constexpr (PF) {
#pragma unroll
		for (int w = 0; w < NW; w++) {
			sc[w] = P.sc[k][w];
			sh[w] = P.sh[k][w];
			if constexpr (AFFINE) {
				g[w] = P.g[k][w];
				bi[w] = P.bi[k][w];
			}
		}
	} else {
		constexpr int NVR = TPR * NL; /* vectors per row */
		const int q = p + TPR * k;
		lnv_io<NW>::ld_param(sc, A.scale, (size_t)b * NVR + q);
		lnv_io<NW>::ld_param(sh, A.shift, (size_t)b * NVR + q);
		if constexpr (AFFINE) {
			lnv_io<NW>::ld_param(g, A.weight, q);
			lnv_io<NW>::ld_param(bi, A.bias, q);
		}
	}
}

/* Every parameter vector of batch b this thread needs, issued at once. */
template <int NL, int NW, int TPR, bool AFFINE>
static __device__ __forceinline__ void lnv_load_params(lnv_par<NL, NW, AFFINE> &P, const lnv_args &A, int b, int p)
{
	constexpr int NVR = TPR * NL;
#pragma unroll
	for (int k = 0; k < NL; k++) {
		const int q = p + TPR * k;
		lnv_io<NW>::ld_param(P.sc[k], A.scale, (size_t)b * NVR + q);
		lnv_io<NW>::ld_param(P.sh[k], A.shift, (size_t)b * NVR + q);
		if constexpr (AFFINE) {
			lnv_io<NW>::ld_param(P.g[k], A.weight, q);
			lnv_io<NW>::ld_param(P.bi[k], A.bias, q);
		}
	}
}

/* Epilogue of a whole row: parameters of batch b, one store per vector. */
template <int NL, int NW, int TPR, bool PF, bool AFFINE, int NP>
static __device__ __forceinline__ void lnv_epilogue(const uint32_t (&d)[NL][NW], const lnv_par<NP, NW, AFFINE> &P,
						    const lnv_args &A, int row, int b, int p, float mean, float rstd)
{
	constexpr int NVR = TPR * NL; /* vectors per row */
#pragma unroll
	for (int k = 0; k < NL; k++) {
		const int q = p + TPR * k;
		uint32_t sc[NW], sh[NW], g[NW] = {}, bi[NW] = {}, o[NW];
		lnv_params_of<NP, NW, TPR, NL, PF, AFFINE>(P, A, b, p, k, sc, sh, g, bi);
#pragma unroll
		for (int w = 0; w < NW; w++)
			o[w] = lnv_mod2<AFFINE>(d[k][w], mean, rstd, sc[w], sh[w], g[w], bi[w]);
		lnv_io<NW>::st_cs(A.out, (size_t)row * NVR + q, o);
	}
}

/* Registers per thread each instantiation is held to (__maxnreg__): the
 * data words it keeps (three times for the prefetching layouts, five with
 * affine: x, scale, shift, weight, bias) plus what the rest needs, rounded
 * up to 8; from ptxas -v, so that none spills. Without a cap ptxas keeps
 * more values live for latency (54 instead of 32 registers for the 8-byte
 * layout at W = 4096), which costs resident rows. */
template <int V, int VB, int TPR, bool PF, bool AFFINE>
static constexpr int lnv_max_regs()
{
	constexpr int words = V * lnv_geo<VB, TPR>::S * lnv_geo<VB, TPR>::NW;
	constexpr int data = words * (PF ? (AFFINE ? 5 : 3) : 1);
	constexpr int rest = (VB == 8 ? 16 : 24) + (AFFINE ? 8 : 0);
	return (data + rest + 7) / 8 * 8;
}

/* One block per row (grid (T, B)); PF: the row's parameters are loaded
 * right after its x, so that their latency hides behind x's instead of
 * following the statistics (in the small 264-token case every block of an
 * SM reaches the epilogue at once, and the parameters, flushed from L2,
 * cost a DRAM round trip per vector when loaded there). */
template <int V, int VB, int TPR, bool PF, bool AFFINE>
__global__ __launch_bounds__(TPR) __maxnreg__((lnv_max_regs<V, VB, TPR, PF, AFFINE>())) void
ab_fused_ln_modulate_layout_kernel(const lnv_args A)
{
	typedef lnv_geo<VB, TPR> G;
	constexpr int NL = V * G::S, NW = G::NW;
	constexpr int NP = PF ? NL : 1;
	const int p = threadIdx.x % TPR;
	float mean, rstd;
	__shared__ float2 ws[4];
	const int tok = blockIdx.x;
	const bool valid = tok < A.tokens;
	const int b = blockIdx.y;
	const int row = b * A.tokens + (valid ? tok : 0);
	uint32_t d[NL][NW] = {};
	lnv_par<NP, NW, AFFINE> P;
	if (valid) {
		lnv_load<NL, NW, TPR>(d, A, row, p);
		if constexpr (PF)
			lnv_load_params<NL, NW, TPR, AFFINE>(P, A, b, p);
	}
	lnv_stats<V, VB, TPR>(d, p, ws, A.eps, mean, rstd);
	if (valid)
		lnv_epilogue<NL, NW, TPR, PF, AFFINE, NP>(d, P, A, row, b, p, mean, rstd);
}

/* ---- the bulk-copy ring (bulk2, bulk4) ----------------------------------
 *
 * Persistent blocks of 128 threads, r1h's thread layout (thread t plays
 * eager thread t, 8-byte vectors t + 128 j), fed by the bulk copy engine:
 * NS shared-memory slots of one row each, filled by thread 0 with one
 * cp.async.bulk per row (bulk_copy.cuh). Block i's rows are blockIdx.x + k
 * gridDim.x; slot k % NS holds its k-th row. After the statistics' barrier
 * (every thread has its row in registers by then) thread 0 refills the
 * slot with the row NS further on, so NS rows are in flight while the
 * block computes. The parameters of the current batch sit in shared
 * memory (reloaded behind two barriers when a row's batch differs), so the
 * epilogue reads them without a global round trip. The statistics are
 * lnv_stats's, with two warp-state slot sets alternating as in the
 * persistent layout of session 3 (a warp writing set i + 2 has passed row
 * i + 1's barrier, which every warp reaches only after reading set i).
 */
/* Registers of the bulk kernel (__maxnreg__): the row's 2 V words plus 32
 * (8 more with affine), rounded up to 8; ptxas -v: no spills. */
template <int V, bool AFFINE>
static constexpr int lnb_max_regs()
{
	return (2 * V + 32 + (AFFINE ? 8 : 0) + 7) / 8 * 8;
}

template <int V, int NS, bool AFFINE>
__global__ __launch_bounds__(LNF_THREADS) __maxnreg__((lnb_max_regs<V, AFFINE>())) void
ab_fused_ln_modulate_bulk_kernel(const lnv_args A)
{
	constexpr int NVR = LNF_THREADS * V;        /* 8-byte vectors per row */
	constexpr uint32_t ROWB = (uint32_t)NVR * 8; /* bytes per row */
	extern __shared__ __align__(128) uint2 lnb_smem[];
	uint2 *const slots = lnb_smem;            /* NS rows */
	uint2 *const par = lnb_smem + NS * NVR;   /* scale, shift (, weight, bias) */
	__shared__ uint64_t full[NS];
	__shared__ float2 ws[2][4];
	const int t = threadIdx.x;
	const int step = gridDim.x;
	const uint2 *const x = static_cast<const uint2 *>(A.x);
	if (t == 0) {
#pragma unroll
		for (int s = 0; s < NS; s++)
			ab_mbar_init(&full[s], 1);
		ab_mbar_init_fence();
	}
	__syncthreads();
	if (t == 0)
#pragma unroll
		for (int s = 0; s < NS; s++) {
			const int r = blockIdx.x + s * step;
			if (r < A.rows) {
				ab_mbar_expect_tx(&full[s], ROWB);
				ab_bulk_g2s(slots + s * NVR, x + (size_t)r * NVR, ROWB, &full[s]);
			}
		}
	if constexpr (AFFINE)
#pragma unroll
		for (int j = 0; j < V; j++) {
			const int q = t + LNF_THREADS * j;
			uint32_t g[2], bi[2];
			lnv_io<2>::ld_param(g, A.weight, q);
			lnv_io<2>::ld_param(bi, A.bias, q);
			par[2 * NVR + q] = make_uint2(g[0], g[1]);
			par[3 * NVR + q] = make_uint2(bi[0], bi[1]);
		}
	int cached_b = -1;
	int i = 0;
	for (int row = blockIdx.x; row < A.rows; row += step, i++) {
		const int b = A.batch == 1 ? 0 : row / A.tokens;
		if (b != cached_b) { /* uniform in the block */
			__syncthreads(); /* the previous row's epilogue has read par */
#pragma unroll
			for (int j = 0; j < V; j++) {
				const int q = t + LNF_THREADS * j;
				uint32_t sc[2], sh[2];
				lnv_io<2>::ld_param(sc, A.scale, (size_t)b * NVR + q);
				lnv_io<2>::ld_param(sh, A.shift, (size_t)b * NVR + q);
				par[q] = make_uint2(sc[0], sc[1]);
				par[NVR + q] = make_uint2(sh[0], sh[1]);
			}
			__syncthreads();
			cached_b = b;
		}
		const int s = i % NS;
		ab_mbar_wait(&full[s], (uint32_t)(i / NS) & 1u);
		uint32_t d[V][2];
#pragma unroll
		for (int j = 0; j < V; j++) {
			const uint2 v = slots[s * NVR + t + LNF_THREADS * j];
			d[j][0] = v.x;
			d[j][1] = v.y;
		}
		float mean, rstd;
		lnv_stats<V, 8, LNF_THREADS>(d, t, ws[i & 1], A.eps, mean, rstd);
		if (t == 0) { /* every thread read slot s before the barrier in lnv_stats */
			const int r = row + NS * step;
			if (r < A.rows) {
				ab_mbar_expect_tx(&full[s], ROWB);
				ab_bulk_g2s(slots + s * NVR, x + (size_t)r * NVR, ROWB, &full[s]);
			}
		}
#pragma unroll
		for (int j = 0; j < V; j++) {
			const int q = t + LNF_THREADS * j;
			const uint2 sc = par[q], sh = par[NVR + q];
			const uint2 g = AFFINE ? par[2 * NVR + q] : make_uint2(0u, 0u);
			const uint2 bi = AFFINE ? par[3 * NVR + q] : make_uint2(0u, 0u);
			const uint32_t o[2] = { lnv_mod2<AFFINE>(d[j][0], mean, rstd, sc.x, sh.x, g.x, bi.x),
						lnv_mod2<AFFINE>(d[j][1], mean, rstd, sc.y, sh.y, g.y, bi.y) };
			lnv_io<2>::st_cs(A.out, (size_t)row * NVR + q, o);
		}
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
	return lnf_table<R, AFFINE, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16>::fns[v - 1];
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

static int lnf_launch_resident(const lnf_ptrs &p, const struct site_dims &d, bool affine, float eps, cudaStream_t s)
{
	const int64_t v = d.width / 512;
	if (d.width % 512 != 0 || d.batch > 65535 || v > LNF_MAX_V)
		return ab_invalid();
	lnf_launch_fn fn = affine ? lnf_pick<1, true>((int)v) : lnf_pick<1, false>((int)v);
	fn(p, d, eps, s);
	return (int)cudaGetLastError();
}

template <int V, int VB, int TPR, bool PF>
static int lnv_launch_v(const lnv_args &A, bool affine, cudaStream_t s)
{
	void (*const kern)(const lnv_args) = affine ? ab_fused_ln_modulate_layout_kernel<V, VB, TPR, PF, true>
						    : ab_fused_ln_modulate_layout_kernel<V, VB, TPR, PF, false>;
	kern<<<dim3((unsigned)A.tokens, (unsigned)A.batch), TPR, 0, s>>>(A);
	return (int)cudaGetLastError();
}

/* The widths the layout and bulk kernels are built for: W = 512 V. */
static bool lnv_width_ok(int64_t W)
{
	return W == 3072 || W == 4096 || W == 5120;
}

/* The site's tensors as the layout and bulk kernels take them. */
static lnv_args lnv_args_of(const struct site_args *a)
{
	const struct site_dims &d = a->dims;
	return { a->t[LNM_X],    a->t[LNM_SCALE], a->t[LNM_SHIFT], a->t[LNM_WEIGHT], a->t[LNM_BIAS],
		 a->t[LNM_OUT],  (int)d.batch,    (int)d.tokens,   (int)d.rows,      a->eps };
}

/* Whether x, scale, shift, out (and weight, bias when affine) are all
 * aligned to `align` bytes. */
static bool lnv_ptrs_aligned(const struct site_args *a, uintptr_t align)
{
	const void *const ptrs[] = { a->t[LNM_X], a->t[LNM_SCALE], a->t[LNM_SHIFT], a->t[LNM_OUT] };
	for (const void *ptr : ptrs)
		if (!ab_aligned(ptr, align))
			return false;
	return !a->affine || (ab_aligned(a->t[LNM_WEIGHT], align) && ab_aligned(a->t[LNM_BIAS], align));
}

template <int VB, int TPR, bool PF>
static int lnv_launch(const struct site_args *a, cudaStream_t s)
{
	const struct site_dims &d = a->dims;
	if (!lnv_width_ok(d.width) || d.rows > INT32_MAX || d.batch > 65535 || !lnv_ptrs_aligned(a, VB))
		return ab_invalid();
	const lnv_args A = lnv_args_of(a);
	switch (d.width / 512) {
	case 6:
		return lnv_launch_v<6, VB, TPR, PF>(A, a->affine, s);
	case 8:
		return lnv_launch_v<8, VB, TPR, PF>(A, a->affine, s);
	default:
		return lnv_launch_v<10, VB, TPR, PF>(A, a->affine, s);
	}
}

/* Blocks of a persistent grid: at most `slots` (what fits on the device at
 * once), as few rounds over the rows as that allows, the rows spread evenly
 * over the rounds (4096 rows, 1056 slots: 4 rounds of 1024 blocks, not 3
 * full rounds and a 10% one). */
static unsigned lnv_balanced_grid(int64_t rows, int64_t slots)
{
	if (slots < 1)
		slots = 1;
	const int64_t rounds = (rows + slots - 1) / slots;
	return (unsigned)((rows + rounds - 1) / rounds);
}

/* The bulk ring's launch: dynamic shared memory for NS rows and the
 * parameters (2 or 4 rows' worth), the opt-in above 48 KB set once per
 * instantiation, a balanced persistent grid of what fits at once. */
template <int V, int NS, bool AFFINE>
static int lnb_launch_v(const lnv_args &A, cudaStream_t s)
{
	void (*const kern)(const lnv_args) = ab_fused_ln_modulate_bulk_kernel<V, NS, AFFINE>;
	const size_t smem = (size_t)(NS + (AFFINE ? 4 : 2)) * LNF_THREADS * V * 8;
	static int occ; /* resident blocks per SM of this instantiation */
	if (occ <= 0) {
		cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
		if (e == cudaSuccess)
			e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, LNF_THREADS, smem);
		if (e != cudaSuccess)
			return (int)e;
		if (occ <= 0)
			return ab_invalid();
	}
	const int sms = ab_sm_count() > 0 ? ab_sm_count() : 1;
	kern<<<lnv_balanced_grid(A.rows, (int64_t)occ * sms), LNF_THREADS, smem, s>>>(A);
	return (int)cudaGetLastError();
}

/* bulk<NS>: x 16-byte aligned (the bulk copy's rule; rows are 16-byte
 * multiples), the rest 8. */
template <int NS>
static int lnb_launch(const struct site_args *a, cudaStream_t s)
{
	const struct site_dims &d = a->dims;
	if (!lnv_width_ok(d.width) || d.rows > INT32_MAX || !ab_aligned(a->t[LNM_X], 16) || !lnv_ptrs_aligned(a, 8))
		return ab_invalid();
	const lnv_args A = lnv_args_of(a);
	switch (d.width / 512) {
	case 6:
		return a->affine ? lnb_launch_v<6, NS, true>(A, s) : lnb_launch_v<6, NS, false>(A, s);
	case 8:
		return a->affine ? lnb_launch_v<8, NS, true>(A, s) : lnb_launch_v<8, NS, false>(A, s);
	default:
		return a->affine ? lnb_launch_v<10, NS, true>(A, s) : lnb_launch_v<10, NS, false>(A, s);
	}
}

/* The shipped tunings (named in site.c as fused.<name>). */
enum lnf_tuning {
	LNF_R1H,     /* layout kernel, 8-byte loads, 128 threads a row, bf16x2 epilogue */
	LNF_PF8,     /* r1h with the row's parameters loaded with its x */
	LNF_PF16,    /* 16-byte loads, 64 threads a row, parameters loaded with x */
	LNF_BULK2,   /* persistent, bulk-copy ring of 2 rows, parameters in shared memory */
	LNF_BULK4,   /* the same with 4 rows */
	LNF_R1,      /* register-resident kernel, float epilogue (W % 512 == 0, W <= 8192) */
	LNF_GENERIC, /* any W % 4 == 0: eager statistics, then a second read of the row */
};

/* Launches one tuning; cudaErrorInvalidValue if it cannot take these dims
 * or pointers. */
static int lnf_launch_tuning(const struct site_args *a, const lnf_ptrs &p, enum lnf_tuning t, cudaStream_t s)
{
	const struct site_dims &d = a->dims;
	switch (t) {
	case LNF_R1H:
		return lnv_launch<8, 128, false>(a, s);
	case LNF_PF8:
		return lnv_launch<8, 128, true>(a, s);
	case LNF_PF16:
		return lnv_launch<16, 64, true>(a, s);
	case LNF_BULK2:
		return lnb_launch<2>(a, s);
	case LNF_BULK4:
		return lnb_launch<4>(a, s);
	case LNF_R1:
		return lnf_launch_resident(p, d, a->affine, a->eps, s);
	case LNF_GENERIC:
		return lnf_launch_generic(p, static_cast<const uint16_t *>(a->t[LNM_X]), d, a->affine, a->eps, s);
	}
	return ab_invalid();
}

/*
 * `fused`: the measured winner first; a shape or pointer it refuses falls
 * back to r1, then to the generic kernel. GPU session 3 (H200, events, L2
 * flushed, median of 50): at 1x4096x4096 r1h 21.95 us, h1 22.34, h2 22.29,
 * r1p 22.86, r1 25.44, w1 25.95, r2 25.06, generic 34.30; at 1x264x4096
 * r1h 8.26 (r1 8.40). The losers h2, h1f, w1, w4, w1f, h1p and r2 left the
 * build; scenarios/tuning_glm/ln_*.ini re-measure the rest with abbench.
 */
static const enum lnf_tuning LNF_CHAIN[] = { LNF_R1H, LNF_R1, LNF_GENERIC };

/* The site's pointer checks, then the tuning (chain: the fused arm). */
static int lnf_run(const struct site_args *a, void *stream, const enum lnf_tuning *tunings, int n)
{
	if (!ln_modulate_args_ok(a))
		return ab_invalid();
	const lnf_ptrs p = { static_cast<const uint2 *>(a->t[LNM_X]),      static_cast<const uint2 *>(a->t[LNM_SCALE]),
			     static_cast<const uint2 *>(a->t[LNM_SHIFT]),  static_cast<const uint2 *>(a->t[LNM_WEIGHT]),
			     static_cast<const uint2 *>(a->t[LNM_BIAS]),   static_cast<uint2 *>(a->t[LNM_OUT]) };
	if (!ab_aligned(p.x, 8) || !ab_aligned(p.scale, 8) || !ab_aligned(p.shift, 8) || !ab_aligned(p.out, 8))
		return ab_invalid();
	if (a->affine && (!ab_aligned(p.weight, 8) || !ab_aligned(p.bias, 8)))
		return ab_invalid();
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	int rc = ab_invalid();
	for (int i = 0; i < n; i++)
		if ((rc = lnf_launch_tuning(a, p, tunings[i], s)) != ab_invalid())
			return rc;
	return rc;
}

extern "C" int ln_modulate_cuda_fused(const struct site_args *a, void *stream)
{
	return lnf_run(a, stream, LNF_CHAIN, (int)(sizeof LNF_CHAIN / sizeof LNF_CHAIN[0]));
}

/* fused.<tuning>: one tuning forced, no fallback. */
#define LNF_TUNING_ARM(fn, tuning)                                 \
	extern "C" int fn(const struct site_args *a, void *stream) \
	{                                                          \
		static const enum lnf_tuning t = tuning;           \
		return lnf_run(a, stream, &t, 1);                  \
	}

LNF_TUNING_ARM(ln_modulate_cuda_fused_r1h, LNF_R1H)
LNF_TUNING_ARM(ln_modulate_cuda_fused_pf8, LNF_PF8)
LNF_TUNING_ARM(ln_modulate_cuda_fused_pf16, LNF_PF16)
LNF_TUNING_ARM(ln_modulate_cuda_fused_bulk2, LNF_BULK2)
LNF_TUNING_ARM(ln_modulate_cuda_fused_bulk4, LNF_BULK4)
LNF_TUNING_ARM(ln_modulate_cuda_fused_r1, LNF_R1)
LNF_TUNING_ARM(ln_modulate_cuda_fused_generic, LNF_GENERIC)
