/*
 * cuda_fused.cu - residual_gate_add's fused arm on CUDA: out = x + ff *
 * gate in one launch, with the eager chain's two roundings:
 * t = bf16(ff * gate), out = bf16(x + t); the measured winner as `fused`
 * and each shipped tuning by name.
 *
 * Launch descriptor: 128 threads per block; thread (blockIdx.x, x) owns
 * one column vector of VEC bf16 (16 bytes when W % 8 == 0 and the pointers
 * are 16-byte aligned, else 8 bytes, else one element), loads its gate
 * vector once, then handles R rows (tokens) of one batch: all 2 R loads
 * (x and ff) are issued before the first is used. Grid (ceil(W / VEC /
 * 128), ceil(T / R) capped at 65535 with a grid-stride loop over token
 * chunks, B capped likewise). The one tuning, h1 (R = 1), computes with
 * bf16x2 math (mul.rn.bf16x2 then add.rn.bf16x2: each rounds once, equal
 * to the float product / sum rounded to bf16 for bf16 operands,
 * docs/KERNELS.md); VEC = 1 has no pair form and computes in float. The
 * template keeps R and the float path (BF16 = false) for the contenders
 * measured against it. `fused` is h1 (near the end of this file); at
 * 1x4096x4096 it runs at 1.005x a plain copy of the same bytes (26.75
 * against 26.62 us, CUPTI, docs/PERF_NOTES.md "Issue 24 kernels").
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/bf16_dev.cuh"
#include "kernels/common/launch_util.cuh"
#include "kernels/residual_gate_add/residual_gate_add.h"

#define RGF_THREADS 128
#define RGF_MAX_GRID_YZ 65535

/* VEC bf16 as the widest load that holds them. */
template <int VEC>
struct rgf_vec;
template <>
struct rgf_vec<8> {
	typedef uint4 type;
	static __device__ __forceinline__ uint32_t word(const uint4 &v, int i)
	{
		return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
	}
	static __device__ __forceinline__ uint4 make(const uint32_t w[4]) { return make_uint4(w[0], w[1], w[2], w[3]); }
};
template <>
struct rgf_vec<4> {
	typedef uint2 type;
	static __device__ __forceinline__ uint32_t word(const uint2 &v, int i) { return i == 0 ? v.x : v.y; }
	static __device__ __forceinline__ uint2 make(const uint32_t w[2]) { return make_uint2(w[0], w[1]); }
};

/* Element e of a vector; VEC == 1 holds one bf16 in an unsigned short. */
template <int VEC, typename T>
static __device__ __forceinline__ float rgf_get(const T &v, int e)
{
	if constexpr (VEC == 1) {
		(void)e;
		return ab_bf16_to_float(v);
	} else {
		const uint32_t w = rgf_vec<VEC>::word(v, e / 2);
		return (e & 1) ? ab_bf16_hi(w) : ab_bf16_lo(w);
	}
}

template <int VEC>
struct rgf_type {
	typedef typename rgf_vec<VEC>::type type;
};
template <>
struct rgf_type<1> {
	typedef unsigned short type;
};

/* bf16(x + bf16(ff * g)) for the VEC elements of one vector, in float with
 * two conversions. */
template <int VEC, typename T>
static __device__ __forceinline__ T rgf_compute(const T &xv, const T &fv, const float g[VEC])
{
	float t[VEC];
#pragma unroll
	for (int e = 0; e < VEC; e++)
		t[e] = __fmul_rn(rgf_get<VEC>(fv, e), g[e]);
	if constexpr (VEC == 1) {
		return ab_float_to_bf16(__fadd_rn(rgf_get<VEC>(xv, 0), ab_bf16_round(t[0])));
	} else {
		uint32_t w[VEC / 2];
#pragma unroll
		for (int i = 0; i < VEC / 2; i++) {
			ab_bf16_round2(t[2 * i], t[2 * i + 1]);
			w[i] = ab_pack_bf16x2(__fadd_rn(rgf_get<VEC>(xv, 2 * i), t[2 * i]),
					      __fadd_rn(rgf_get<VEC>(xv, 2 * i + 1), t[2 * i + 1]));
		}
		return rgf_vec<VEC>::make(w);
	}
}

/* The same in bf16x2 arithmetic (VEC = 4 or 8): mul.rn then add.rn, each
 * rounding once, which equals the float product / sum rounded to bf16
 * (docs/KERNELS.md, "bf16x2 arithmetic"). gw: the gate vector's words. */
template <int VEC, typename T>
static __device__ __forceinline__ T rgf_compute_bf16x2(const T &xv, const T &fv, const uint32_t gw[VEC / 2])
{
	uint32_t w[VEC / 2];
#pragma unroll
	for (int i = 0; i < VEC / 2; i++)
		w[i] = ab_bf16x2_add_rn(rgf_vec<VEC>::word(xv, i), ab_bf16x2_mul_rn(rgf_vec<VEC>::word(fv, i), gw[i]));
	return rgf_vec<VEC>::make(w);
}

template <int VEC, int R, bool BF16>
__global__ __launch_bounds__(RGF_THREADS) void ab_fused_residual_gate_add_kernel(
	const typename rgf_type<VEC>::type *__restrict__ x, const typename rgf_type<VEC>::type *__restrict__ ff,
	const typename rgf_type<VEC>::type *__restrict__ gate, typename rgf_type<VEC>::type *__restrict__ out,
	int batch, int tokens, int wv)
{
	typedef typename rgf_type<VEC>::type T;
	constexpr bool PAIRS = BF16 && VEC > 1; /* VEC == 1 has no bf16x2 form: float math */
	const int cv = blockIdx.x * RGF_THREADS + threadIdx.x;
	if (cv >= wv)
		return;
	for (int b = blockIdx.z; b < batch; b += gridDim.z) {
		const T gv = __ldg(gate + (size_t)b * wv + cv);
		float g[VEC];
		uint32_t gw[VEC > 1 ? VEC / 2 : 1];
		if constexpr (PAIRS) {
#pragma unroll
			for (int i = 0; i < VEC / 2; i++)
				gw[i] = rgf_vec<VEC>::word(gv, i);
		} else {
#pragma unroll
			for (int e = 0; e < VEC; e++)
				g[e] = rgf_get<VEC>(gv, e);
		}
		for (int tok0 = blockIdx.y * R; tok0 < tokens; tok0 += gridDim.y * R) {
			T xv[R], fv[R];
#pragma unroll
			for (int r = 0; r < R; r++) {
				if (tok0 + r < tokens) {
					const size_t i = ((size_t)b * tokens + tok0 + r) * wv + cv;
					xv[r] = __ldcs(x + i);
					fv[r] = __ldcs(ff + i);
				}
			}
#pragma unroll
			for (int r = 0; r < R; r++) {
				if (tok0 + r < tokens) {
					const size_t i = ((size_t)b * tokens + tok0 + r) * wv + cv;
					if constexpr (PAIRS)
						__stcs(out + i, rgf_compute_bf16x2<VEC>(xv[r], fv[r], gw));
					else
						__stcs(out + i, rgf_compute<VEC>(xv[r], fv[r], g));
				}
			}
		}
	}
}

/* ---- launch --------------------------------------------------------- */

/* Blocks along tokens: one per R tokens (capped at 65535, the kernel loops
 * over the rest). */
template <int VEC, int R, bool BF16>
static int rgf_launch(const struct site_args *a, cudaStream_t s)
{
	typedef typename rgf_type<VEC>::type T;
	const struct site_dims &d = a->dims;
	const int64_t wv = d.width / VEC;
	const int64_t gx = (wv + RGF_THREADS - 1) / RGF_THREADS;
	const int64_t gz = d.batch < RGF_MAX_GRID_YZ ? d.batch : RGF_MAX_GRID_YZ;
	const int64_t gy = (d.tokens + R - 1) / R;
	const dim3 grid((unsigned)gx, (unsigned)(gy < RGF_MAX_GRID_YZ ? gy : RGF_MAX_GRID_YZ), (unsigned)gz);
	ab_fused_residual_gate_add_kernel<VEC, R, BF16><<<grid, RGF_THREADS, 0, s>>>(
		static_cast<const T *>(a->t[RGA_X]), static_cast<const T *>(a->t[RGA_FF]),
		static_cast<const T *>(a->t[RGA_GATE]), static_cast<T *>(a->t[RGA_OUT]), (int)d.batch, (int)d.tokens,
		(int)wv);
	return (int)cudaGetLastError();
}

/* The shipped tunings (named in site.c as fused.<name>). */
enum rgf_tuning {
	RGF_H1, /* bf16x2 math, one row per thread */
};

template <int VEC>
static int rgf_launch_tuning(const struct site_args *a, enum rgf_tuning t, cudaStream_t s)
{
	switch (t) {
	case RGF_H1:
		return rgf_launch<VEC, 1, true>(a, s);
	}
	return ab_invalid();
}

/* Widest vector every pointer and W allow (W % 4 == 0 always). */
static int rgf_vec_width(const struct site_args *a)
{
	bool a16 = a->dims.width % 8 == 0, a8 = true;
	for (int i = 0; i < RGA_N_TENSORS; i++) {
		if (i == RGA_FF_GATED)
			continue;
		a16 = a16 && ab_aligned(a->t[i], 16);
		a8 = a8 && ab_aligned(a->t[i], 8);
	}
	return a16 ? 8 : a8 ? 4 : 1;
}

/*
 * `fused` is h1. GPU session 3 (H200, events, L2 flushed): at 1x4096x4096
 * h1 28.77 us, r1 29.06, h4 29.82, r2/h2 29.92, p4 30.00, r4 30.08, p2
 * 30.18, r8 30.19; at 1x264x4096 h1 5.94 (r1 6.22). Issue 24 (CUPTI
 * kernel time, 1x4096x4096 / 1x264x4096): h1 26.75 / 3.68, with default
 * caching (h1d) 26.75 / 3.68, 256-thread blocks 26.88 / 3.71, 512-thread
 * blocks 26.88 / 3.71, r1 27.07 / 3.97, h2 27.42 / 3.94. h1 (one row per
 * thread, bf16x2 math, 128-thread blocks) wins or ties everywhere; every
 * other tuning left the build. It takes every shape (VEC adapts to W and
 * the pointers), so there is no fallback.
 */
static const enum rgf_tuning RGF_WINNER = RGF_H1;

static int rgf_run(const struct site_args *a, void *stream, enum rgf_tuning t)
{
	if (!residual_gate_add_args_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	if (d.batch > INT32_MAX || d.tokens > INT32_MAX || d.width > INT32_MAX)
		return ab_invalid();
	for (int i = 0; i < RGA_N_TENSORS; i++)
		if (!ab_aligned(a->t[i], 2))
			return ab_invalid();
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	switch (rgf_vec_width(a)) {
	case 8:
		return rgf_launch_tuning<8>(a, t, s);
	case 4:
		return rgf_launch_tuning<4>(a, t, s);
	default:
		return rgf_launch_tuning<1>(a, t, s);
	}
}

extern "C" int residual_gate_add_cuda_fused(const struct site_args *a, void *stream)
{
	return rgf_run(a, stream, RGF_WINNER);
}

extern "C" int residual_gate_add_cuda_fused_h1(const struct site_args *a, void *stream)
{
	return rgf_run(a, stream, RGF_H1);
}

