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
 * Layout kernel (pf8; W = 3072, 4096, 5120): the same statistics with a
 * row held by TPR threads loading VB bytes at a time (built: 128 threads,
 * 8 bytes, each thread one eager thread; the mapping for 16-byte loads is
 * in its section below and in docs/KERNELS.md), the row's scale and shift
 * loaded right after its x (so that no parameter load waits behind the
 * statistics), the modulate roundings in bf16x2 arithmetic (add.rn /
 * mul.rn.bf16x2, bit-identical to float-then-round for these operands).
 *
 * Launch descriptor: register-resident kernel: block 128 threads, grid
 * (T, B); generic: grid B * T; layout kernel: block 128 threads, grid
 * (T, B); no dynamic shared memory. ptxas (nvcc 13.0, sm_90), W = 4096:
 * r1 32 registers (16 blocks per SM), pf8 64 (8 blocks); the layout
 * kernel's caps in lnv_max_regs; none spills. Measured (H200, CUPTI, L2
 * flushed, docs/PERF_NOTES.md "Issue 24 kernels"): pf8 18.18 us at
 * 1x4096x4096 and 3.30 at 1x264x4096, against 19.52 / 5.54 for the same
 * layout with the parameters loaded in the epilogue (r1h, the earlier
 * winner). `fused` is the chain at the end of this file: pf8, then r1,
 * then generic.
 * Statistics are not written: they are the eager arm's AUX tensors.
 */
#include <cuda_runtime.h>
#include <stdint.h>

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

/* ---- the layout kernel (pf8) -------------------------------------------
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
 *    8  128  1  1  p                               (pf8: r1's layout)
 *   16   64  2  1  2p, 2p+1                        (h1, pf16: measured, lost)
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
 * of a batch) use plain coherent loads (asm volatile), which stay where
 * the code issues them: pf8 issues them right after x, on purpose (a
 * row's worth of parameters live, 64 registers at W = 4096); a coherent
 * load cannot pass bar.sync / bar.warp.sync, nor a store that may alias
 * it, which is why the earlier epilogue loads (r1h) serialised. */
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

/* The parameters of a thread's NL vectors, loaded with the row. */
template <int NL, int NW, bool AFFINE>
struct lnv_par {
	uint32_t sc[NL][NW], sh[NL][NW];
	uint32_t g[AFFINE ? NL : 1][NW], bi[AFFINE ? NL : 1][NW];
};

/* Every parameter vector of batch b this thread needs, issued at once
 * right after the row's x: their latency then hides behind x's. Loaded in
 * the epilogue (r1h, session 3), each vector's loads had to follow the
 * previous vector's store (a coherent load cannot pass a store that may
 * alias it): up to NL dependent L2/DRAM round trips after the statistics. */
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

/* Epilogue of a whole row: one store per vector. */
template <int NL, int NW, int TPR, bool AFFINE>
static __device__ __forceinline__ void lnv_epilogue(const uint32_t (&d)[NL][NW], const lnv_par<NL, NW, AFFINE> &P,
						    const lnv_args &A, int row, int p, float mean, float rstd)
{
	constexpr int NVR = TPR * NL; /* vectors per row */
#pragma unroll
	for (int k = 0; k < NL; k++) {
		uint32_t o[NW];
#pragma unroll
		for (int w = 0; w < NW; w++)
			o[w] = lnv_mod2<AFFINE>(d[k][w], mean, rstd, P.sc[k][w], P.sh[k][w], AFFINE ? P.g[k][w] : 0u,
						AFFINE ? P.bi[k][w] : 0u);
		lnv_io<NW>::st_cs(A.out, (size_t)row * NVR + p + TPR * k, o);
	}
}

/* Registers per thread each instantiation is held to (__maxnreg__): the
 * data words it keeps, three times (x, scale, shift; five with affine:
 * weight, bias), plus what the rest needs, rounded up to 8; from ptxas -v,
 * so that none spills. Without a cap ptxas keeps more values live for
 * latency, which costs resident rows. */
template <int V, int VB, int TPR, bool AFFINE>
static constexpr int lnv_max_regs()
{
	constexpr int words = V * lnv_geo<VB, TPR>::S * lnv_geo<VB, TPR>::NW;
	constexpr int rest = (VB == 8 ? 16 : 24) + (AFFINE ? 8 : 0);
	return (words * (AFFINE ? 5 : 3) + rest + 7) / 8 * 8;
}

/* One block per row, grid (T, B): the row's x, then its parameters, all
 * loads issued before the statistics. */
template <int V, int VB, int TPR, bool AFFINE>
__global__ __launch_bounds__(TPR) __maxnreg__((lnv_max_regs<V, VB, TPR, AFFINE>())) void
ab_fused_ln_modulate_layout_kernel(const lnv_args A)
{
	typedef lnv_geo<VB, TPR> G;
	constexpr int NL = V * G::S, NW = G::NW;
	const int p = threadIdx.x % TPR;
	float mean, rstd;
	__shared__ float2 ws[4];
	const int tok = blockIdx.x;
	const bool valid = tok < A.tokens;
	const int b = blockIdx.y;
	const int row = b * A.tokens + (valid ? tok : 0);
	uint32_t d[NL][NW] = {};
	lnv_par<NL, NW, AFFINE> P;
	if (valid) {
		lnv_load<NL, NW, TPR>(d, A, row, p);
		lnv_load_params<NL, NW, TPR, AFFINE>(P, A, b, p);
	}
	lnv_stats<V, VB, TPR>(d, p, ws, A.eps, mean, rstd);
	if (valid)
		lnv_epilogue<NL, NW, TPR, AFFINE>(d, P, A, row, p, mean, rstd);
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

template <int V, int VB, int TPR>
static int lnv_launch_v(const lnv_args &A, bool affine, cudaStream_t s)
{
	void (*const kern)(const lnv_args) = affine ? ab_fused_ln_modulate_layout_kernel<V, VB, TPR, true>
						    : ab_fused_ln_modulate_layout_kernel<V, VB, TPR, false>;
	kern<<<dim3((unsigned)A.tokens, (unsigned)A.batch), TPR, 0, s>>>(A);
	return (int)cudaGetLastError();
}

/* The widths the layout kernel is built for: W = 512 V. */
static bool lnv_width_ok(int64_t W)
{
	return W == 3072 || W == 4096 || W == 5120;
}

template <int VB, int TPR>
static int lnv_launch(const struct site_args *a, cudaStream_t s)
{
	const struct site_dims &d = a->dims;
	if (!lnv_width_ok(d.width) || d.rows > INT32_MAX || d.batch > 65535)
		return ab_invalid();
	const void *const ptrs[] = { a->t[LNM_X], a->t[LNM_SCALE], a->t[LNM_SHIFT], a->t[LNM_OUT] };
	for (const void *ptr : ptrs)
		if (!ab_aligned(ptr, VB))
			return ab_invalid();
	if (a->affine && (!ab_aligned(a->t[LNM_WEIGHT], VB) || !ab_aligned(a->t[LNM_BIAS], VB)))
		return ab_invalid();
	const lnv_args A = { a->t[LNM_X],     a->t[LNM_SCALE],   a->t[LNM_SHIFT],   a->t[LNM_WEIGHT],
			     a->t[LNM_BIAS],  a->t[LNM_OUT],     (int)d.batch,      (int)d.tokens,
			     (int)d.rows,     a->eps };
	switch (d.width / 512) {
	case 6:
		return lnv_launch_v<6, VB, TPR>(A, a->affine, s);
	case 8:
		return lnv_launch_v<8, VB, TPR>(A, a->affine, s);
	default:
		return lnv_launch_v<10, VB, TPR>(A, a->affine, s);
	}
}

/* The shipped tunings (named in site.c as fused.<name>). */
enum lnf_tuning {
	LNF_PF8,     /* layout kernel, 8-byte loads, 128 threads a row, parameters loaded with x, bf16x2 epilogue */
	LNF_R1,      /* register-resident kernel, float epilogue (W % 512 == 0, W <= 8192) */
	LNF_GENERIC, /* any W % 4 == 0: eager statistics, then a second read of the row */
};

/* Launches one tuning; cudaErrorInvalidValue if it cannot take these dims
 * or pointers. */
static int lnf_launch_tuning(const struct site_args *a, const lnf_ptrs &p, enum lnf_tuning t, cudaStream_t s)
{
	const struct site_dims &d = a->dims;
	switch (t) {
	case LNF_PF8:
		return lnv_launch<8, 128>(a, s);
	case LNF_R1:
		return lnf_launch_resident(p, d, a->affine, a->eps, s);
	case LNF_GENERIC:
		return lnf_launch_generic(p, static_cast<const uint16_t *>(a->t[LNM_X]), d, a->affine, a->eps, s);
	}
	return ab_invalid();
}

/*
 * `fused`: the measured winner first; a shape or pointer it refuses falls
 * back to r1, then to the generic kernel. Issue 24 (H200, CUPTI kernel
 * time, L2 flushed, abbench A/B/A, 2000 samples a slot): at 1x4096x4096
 * pf8 18.18 us, pf16 18.40, r1h 19.52, bulk4 19.78, bulk2 20.64, r1
 * 23.07 (copy of the same bytes 17.95); at 1x264x4096 pf8 3.30, pf16
 * 3.46, bulk2 3.55, bulk4 3.58, r1h 5.54, r1 5.63 (copy 2.82). pf16,
 * bulk2, bulk4 and r1h left the build (session 3's h2, h1f, w1, w4, w1f,
 * h1p, r2, h1 and r1p before them); scenarios/tuning_glm/ln_*.ini
 * re-measure the rest with abbench.
 */
static const enum lnf_tuning LNF_CHAIN[] = { LNF_PF8, LNF_R1, LNF_GENERIC };

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

LNF_TUNING_ARM(ln_modulate_cuda_fused_pf8, LNF_PF8)
LNF_TUNING_ARM(ln_modulate_cuda_fused_r1, LNF_R1)
LNF_TUNING_ARM(ln_modulate_cuda_fused_generic, LNF_GENERIC)
