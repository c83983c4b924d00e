/*
 * fused_residual_gate_add.cu - out = x + ff * gate in one launch, with the
 * eager chain's two roundings: t = bf16(ff * gate), out = bf16(x + t).
 *
 * Launch descriptor: 128 threads per block; thread (blockIdx.x, x) owns
 * one column vector of VEC bf16 (16 bytes when W % 8 == 0 and the pointers
 * are 16-byte aligned, else 8 bytes, else one element), loads its gate
 * vector once, then handles R rows (tokens) of one batch: all 2 R loads
 * (x and ff) are issued before the first is used. Grid (ceil(W / VEC /
 * 128), ceil(T / R) capped at 65535 with a grid-stride loop over token
 * chunks, B capped likewise). R = 4 by default: 128 bytes in flight per
 * thread for 16-byte vectors, 2048 blocks for 1x4096x4096 (a wave and a
 * half at 12 blocks per SM); small row counts use R = 1 so that every SM
 * gets blocks. The self-test times R = 1, 2, 4, 8.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "bf16_dev.cuh"
#include "cuda_arms.h"
#include "fused_variants.cuh"
#include "launch_util.cuh"
#include "site_check.cuh"

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

/* bf16(x + bf16(ff * g)) for the VEC elements of one vector. */
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

template <int VEC, int R>
__global__ __launch_bounds__(RGF_THREADS) void ab_fused_residual_gate_add_kernel(
	const typename rgf_type<VEC>::type *__restrict__ x, const typename rgf_type<VEC>::type *__restrict__ ff,
	const typename rgf_type<VEC>::type *__restrict__ gate, typename rgf_type<VEC>::type *__restrict__ out,
	int batch, int tokens, int wv)
{
	typedef typename rgf_type<VEC>::type T;
	const int cv = blockIdx.x * RGF_THREADS + threadIdx.x;
	if (cv >= wv)
		return;
	for (int b = blockIdx.z; b < batch; b += gridDim.z) {
		const T gv = __ldg(gate + (size_t)b * wv + cv);
		float g[VEC];
#pragma unroll
		for (int e = 0; e < VEC; e++)
			g[e] = rgf_get<VEC>(gv, e);
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
					__stcs(out + i, rgf_compute<VEC>(xv[r], fv[r], g));
				}
			}
		}
	}
}

/* ---- launch --------------------------------------------------------- */

template <int VEC, int R>
static void rgf_launch(const struct site_args *a, cudaStream_t s)
{
	typedef typename rgf_type<VEC>::type T;
	const struct site_dims &d = a->dims;
	const int64_t wv = d.width / VEC;
	const int64_t gy = (d.tokens + R - 1) / R;
	const dim3 grid((unsigned)((wv + RGF_THREADS - 1) / RGF_THREADS),
			(unsigned)(gy < RGF_MAX_GRID_YZ ? gy : RGF_MAX_GRID_YZ),
			(unsigned)(d.batch < RGF_MAX_GRID_YZ ? d.batch : RGF_MAX_GRID_YZ));
	ab_fused_residual_gate_add_kernel<VEC, R><<<grid, RGF_THREADS, 0, s>>>(
		static_cast<const T *>(a->t[RGA_X]), static_cast<const T *>(a->t[RGA_FF]),
		static_cast<const T *>(a->t[RGA_GATE]), static_cast<T *>(a->t[RGA_OUT]), (int)d.batch, (int)d.tokens,
		(int)wv);
}

template <int VEC>
static int rgf_rows(const struct site_args *a, int rows_per_thread, cudaStream_t s)
{
	switch (rows_per_thread) {
	case 1:
		rgf_launch<VEC, 1>(a, s);
		break;
	case 2:
		rgf_launch<VEC, 2>(a, s);
		break;
	case 4:
		rgf_launch<VEC, 4>(a, s);
		break;
	case 8:
		rgf_launch<VEC, 8>(a, s);
		break;
	default:
		return ab_invalid();
	}
	return (int)cudaGetLastError();
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

int ab_residual_gate_add_fused_variant(const struct site_args *a, void *stream, int variant)
{
	if (!ab_gate_site_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	if (d.batch > INT32_MAX || d.tokens > INT32_MAX || d.width > INT32_MAX)
		return ab_invalid();
	for (int i = 0; i < RGA_N_TENSORS; i++)
		if (!ab_aligned(a->t[i], 2))
			return ab_invalid();
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	const int vec = rgf_vec_width(a);
	if (variant == AB_VARIANT_AUTO) {
		const int64_t sms = ab_sm_count() > 0 ? ab_sm_count() : 1;
		const int64_t xblocks = (d.width / vec + RGF_THREADS - 1) / RGF_THREADS;
		variant = (xblocks * d.rows / 4 >= 8 * sms) ? 4 : 1;
	}
	switch (vec) {
	case 8:
		return rgf_rows<8>(a, variant, s);
	case 4:
		return rgf_rows<4>(a, variant, s);
	default:
		return rgf_rows<1>(a, variant, s);
	}
}

extern "C" int cuda_residual_gate_add_fused(const struct site_args *a, void *stream)
{
	return ab_residual_gate_add_fused_variant(a, stream, AB_VARIANT_AUTO);
}
