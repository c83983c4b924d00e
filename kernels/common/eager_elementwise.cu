/*
 * eager_elementwise.cu - PyTorch's two elementwise kernel shapes for bf16,
 * as the eager arms launch them (CUDALoops.cuh in aten, in our words).
 *
 * 1. ab_eager_vectorized_elementwise_kernel: contiguous operands (`1 + s`,
 *    `x + t`). 128 threads, each owning 8 elements of a 1024-element block
 *    (elems_per_thread for 4- or 6-byte io), loaded as vectors of VEC bf16
 *    (8 = 16 bytes when every pointer is 16-byte aligned, else 4, 2, 1);
 *    the last, partial block falls back to element-wise loads at
 *    threadIdx.x + k * 128. Grid = ceil(n / 1024).
 *
 * 2. ab_eager_elementwise_kernel<128, 4>: broadcast operands (`y * s1`,
 *    `z + shift`, `ff * gate`). 128 threads each doing the elements
 *    blockIdx.x * 512 + threadIdx.x + k * 128, k < 4; each element's byte
 *    offsets come from an offset calculator that divides the linear index
 *    by every collapsed dimension with a multiply-high "magic number"
 *    divider, as aten's OffsetCalculator/IntDivider do. 2-byte loads and
 *    stores, __launch_bounds__(128, 4). Grid = ceil(n / 512).
 *
 * Both keep aten's costs on purpose: the eager arm must be within 15% of
 * PyTorch's time (ANCHORS.md: 44.3 us for a 1x4096x4096 broadcast multiply
 * under L2 flush; a one-element-per-thread version took 144.8 us for the
 * chain against PyTorch's 123.4). Arithmetic: bf16(float(a) op float(b)),
 * no contraction possible (aten's alpha = 1 fma gives the same rounding).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/bf16_dev.cuh"
#include "kernels/common/eager_ops.cuh"
#include "kernels/common/launch_util.cuh"

#define AB_EW_THREADS 128 /* aten num_threads() */
#define AB_EW_EPT 8       /* aten elems_per_thread<io_size>() for io_size 4 and 6 */
#define AB_EW_LEGACY_VT 4 /* aten unroll for 2-byte outputs in launch_legacy_kernel */
#define AB_EW_MAX_DIMS 4
#define AB_EW_ARGS 3 /* out, a, b */
/* Elements per launch: 32-bit indexing as in aten, with room for a block's
 * overshoot; longer tensors are split into several launches. */
#define AB_EW_CHUNK ((int64_t)(INT32_MAX / 1024 - 1) * 1024)

struct ab_ew_mul {
	static constexpr int arity = 2;
	__device__ __forceinline__ float operator()(float a, float b) const { return a * b; }
};

struct ab_ew_add {
	static constexpr int arity = 2;
	__device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

/* aten's CUDAFunctorOnSelf_add(other = 1, alpha = 1): 1 + 1 * s, which nvcc
 * contracts into fma(1, s, 1): the correctly rounded s + 1, as here. */
struct ab_ew_add_one {
	static constexpr int arity = 1;
	__device__ __forceinline__ float operator()(float a, float) const { return a + 1.f; }
};

template <int VEC>
struct alignas(2 * VEC) ab_u16_vec {
	uint16_t v[VEC];
};

/* ---- 1. vectorized, contiguous --------------------------------------- */

template <int VEC, typename Op>
__global__ __launch_bounds__(AB_EW_THREADS) void ab_eager_vectorized_elementwise_kernel(int N, Op op, uint16_t *out,
											 const uint16_t *a,
											 const uint16_t *b)
{
	constexpr int BW = AB_EW_THREADS * AB_EW_EPT;
	const int remaining = N - BW * (int)blockIdx.x;
	const size_t base = (size_t)BW * blockIdx.x;
	uint16_t ra[AB_EW_EPT], rb[AB_EW_EPT], ro[AB_EW_EPT];

	if (remaining < BW) {
		/* aten's unroll policy for the last block */
#pragma unroll
		for (int k = 0; k < AB_EW_EPT; k++) {
			const int i = threadIdx.x + k * AB_EW_THREADS;
			if (i < remaining) {
				ra[k] = a[base + i];
				rb[k] = (Op::arity == 2) ? b[base + i] : 0;
			}
		}
#pragma unroll
		for (int k = 0; k < AB_EW_EPT; k++)
			if ((int)threadIdx.x + k * AB_EW_THREADS < remaining)
				ro[k] = ab_float_to_bf16(op(ab_bf16_to_float_aten(ra[k]), ab_bf16_to_float_aten(rb[k])));
#pragma unroll
		for (int k = 0; k < AB_EW_EPT; k++) {
			const int i = threadIdx.x + k * AB_EW_THREADS;
			if (i < remaining)
				out[base + i] = ro[k];
		}
		return;
	}
	using V = ab_u16_vec<VEC>;
	const V *av = reinterpret_cast<const V *>(a + base);
	const V *bv = reinterpret_cast<const V *>(b + base);
	V *ov = reinterpret_cast<V *>(out + base);
#pragma unroll
	for (int i = 0; i < AB_EW_EPT / VEC; i++) {
		const int idx = threadIdx.x + i * AB_EW_THREADS;
		const V x = av[idx];
		V y = {};
		if (Op::arity == 2)
			y = bv[idx];
#pragma unroll
		for (int j = 0; j < VEC; j++) {
			ra[VEC * i + j] = x.v[j];
			rb[VEC * i + j] = y.v[j];
		}
	}
#pragma unroll
	for (int k = 0; k < AB_EW_EPT; k++)
		ro[k] = ab_float_to_bf16(op(ab_bf16_to_float_aten(ra[k]), ab_bf16_to_float_aten(rb[k])));
#pragma unroll
	for (int i = 0; i < AB_EW_EPT / VEC; i++) {
		V o;
#pragma unroll
		for (int j = 0; j < VEC; j++)
			o.v[j] = ro[VEC * i + j];
		ov[threadIdx.x + i * AB_EW_THREADS] = o;
	}
}

/* aten's can_vectorize_up_to for 2-byte elements: 8 for 16-byte
 * alignment, then 4, 2, 1. */
static int vec_for(const void *p)
{
	const uintptr_t u = (uintptr_t)p;
	return (u % 16 == 0) ? 8 : (u % 8 == 0) ? 4 : (u % 4 == 0) ? 2 : 1;
}

static int min_int(int x, int y)
{
	return x < y ? x : y;
}

template <typename Op>
static void launch_vectorized_chunk(const uint16_t *a, const uint16_t *b, uint16_t *out, int n, cudaStream_t stream)
{
	int vec = min_int(vec_for(a), vec_for(out));
	if (Op::arity == 2)
		vec = min_int(vec, vec_for(b));
	const unsigned grid = (unsigned)((n + AB_EW_THREADS * AB_EW_EPT - 1) / (AB_EW_THREADS * AB_EW_EPT));
	switch (vec) {
	case 8:
		ab_eager_vectorized_elementwise_kernel<8, Op><<<grid, AB_EW_THREADS, 0, stream>>>(n, Op{}, out, a, b);
		break;
	case 4:
		ab_eager_vectorized_elementwise_kernel<4, Op><<<grid, AB_EW_THREADS, 0, stream>>>(n, Op{}, out, a, b);
		break;
	case 2:
		ab_eager_vectorized_elementwise_kernel<2, Op><<<grid, AB_EW_THREADS, 0, stream>>>(n, Op{}, out, a, b);
		break;
	default:
		ab_eager_vectorized_elementwise_kernel<1, Op><<<grid, AB_EW_THREADS, 0, stream>>>(n, Op{}, out, a, b);
		break;
	}
}

/* Contiguous op over n elements, in 32-bit-indexable launches. */
template <typename Op>
static int launch_vectorized(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n, cudaStream_t stream)
{
	if (n <= 0 || !ab_aligned(a, 2) || !ab_aligned(out, 2) || (Op::arity == 2 && !ab_aligned(b, 2)))
		return ab_invalid();
	for (int64_t off = 0; off < n; off += AB_EW_CHUNK) {
		const int cn = (int)((n - off) < AB_EW_CHUNK ? (n - off) : AB_EW_CHUNK);
		launch_vectorized_chunk<Op>(a + off, Op::arity == 2 ? b + off : nullptr, out + off, cn, stream);
		const int rc = (int)cudaGetLastError();
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* ---- 2. legacy, broadcast ------------------------------------------- */

/* n / divisor as (umulhi(n, m1) + n) >> shift, valid for n, divisor < 2^31. */
struct ab_intdiv {
	uint32_t divisor;
	uint32_t m1;
	uint32_t shift;
};

struct ab_offset_calc {
	int dims;
	ab_intdiv sizes[AB_EW_MAX_DIMS];
	uint32_t strides[AB_EW_MAX_DIMS][AB_EW_ARGS]; /* bytes */
};

struct ab_offsets {
	uint32_t v[AB_EW_ARGS];
};

static __device__ __forceinline__ ab_offsets ab_offset_get(const ab_offset_calc &oc, uint32_t linear)
{
	ab_offsets off;
#pragma unroll
	for (int arg = 0; arg < AB_EW_ARGS; arg++)
		off.v[arg] = 0;
#pragma unroll
	for (int dim = 0; dim < AB_EW_MAX_DIMS; ++dim) {
		if (dim == oc.dims)
			break;
		const ab_intdiv d = oc.sizes[dim];
		const uint32_t q = (__umulhi(linear, d.m1) + linear) >> d.shift;
		const uint32_t r = linear - q * d.divisor;
		linear = q;
#pragma unroll
		for (int arg = 0; arg < AB_EW_ARGS; arg++)
			off.v[arg] += r * oc.strides[dim][arg];
	}
	return off;
}

template <int NT, int VT, typename Op>
__global__ __launch_bounds__(NT, 4) void ab_eager_elementwise_kernel(int N, ab_offset_calc oc, Op op, char *out,
								     const char *a, const char *b)
{
	const int tid = threadIdx.x;
	const int nv = NT * VT;
	int idx = nv * blockIdx.x + tid;
#pragma unroll
	for (int i = 0; i < VT; i++) {
		if (idx < N) {
			const ab_offsets off = ab_offset_get(oc, (uint32_t)idx);
			const float x = ab_bf16_to_float_aten(*reinterpret_cast<const uint16_t *>(a + off.v[1]));
			const float y = ab_bf16_to_float_aten(*reinterpret_cast<const uint16_t *>(b + off.v[2]));
			*reinterpret_cast<uint16_t *>(out + off.v[0]) = ab_float_to_bf16(op(x, y));
			idx += NT;
		}
	}
}

/* Granlund-Montgomery divider: the smallest shift with 2^shift >= d, and
 * m1 = floor(2^32 * (2^shift - d) / d) + 1. */
static ab_intdiv intdiv_make(uint32_t d)
{
	uint32_t shift = 0;
	while (shift < 32 && (UINT64_C(1) << shift) < d)
		shift++;
	const uint64_t magic = ((UINT64_C(1) << 32) * ((UINT64_C(1) << shift) - d)) / d + 1;
	return { d, (uint32_t)magic, shift };
}

/* Dimensions of out[B,T,W] = a[B,T,W] op v[B,1,W], innermost first, with
 * byte strides per operand, collapsed like TensorIterator's
 * coalesce_dimensions: neighbours merge when either has size 1 or every
 * operand's strides chain. */
struct ab_bcast_geom {
	int nd;
	int64_t size[3];
	int64_t stride[3][AB_EW_ARGS];
};

static bool can_coalesce(const ab_bcast_geom &g, int d0, int d1)
{
	if (g.size[d0] == 1 || g.size[d1] == 1)
		return true;
	for (int arg = 0; arg < AB_EW_ARGS; arg++)
		if (g.size[d0] * g.stride[d0][arg] != g.stride[d1][arg])
			return false;
	return true;
}

static void copy_strides(ab_bcast_geom &g, int to, int from)
{
	for (int arg = 0; arg < AB_EW_ARGS; arg++)
		g.stride[to][arg] = g.stride[from][arg];
}

static ab_bcast_geom bcast_geom(int64_t B, int64_t T, int64_t W)
{
	const int64_t e = (int64_t)sizeof(uint16_t);
	ab_bcast_geom g = { 3, { W, T, B }, { { e, e, e }, { e * W, e * W, 0 }, { e * T * W, e * T * W, e * W } } };
	int prev = 0;
	for (int dim = 1; dim < g.nd; dim++) {
		if (can_coalesce(g, prev, dim)) {
			if (g.size[prev] == 1)
				copy_strides(g, prev, dim);
			g.size[prev] *= g.size[dim];
		} else {
			prev++;
			if (prev != dim) {
				copy_strides(g, prev, dim);
				g.size[prev] = g.size[dim];
			}
		}
	}
	g.nd = prev + 1;
	return g;
}

static bool geom_contiguous(const ab_bcast_geom &g)
{
	if (g.nd != 1)
		return false;
	for (int arg = 0; arg < AB_EW_ARGS; arg++)
		if (g.stride[0][arg] != (int64_t)sizeof(uint16_t))
			return false;
	return true;
}

/* One launch for B * T * W <= AB_EW_CHUNK elements. */
template <typename Op>
static int launch_bcast_one(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t B, int64_t T, int64_t W,
			    cudaStream_t stream)
{
	const ab_bcast_geom g = bcast_geom(B, T, W);
	const int64_t n = B * T * W;
	if (geom_contiguous(g))
		return launch_vectorized<Op>(a, v, out, n, stream);
	ab_offset_calc oc = {};
	oc.dims = g.nd;
	for (int d = 0; d < g.nd; d++) {
		oc.sizes[d] = intdiv_make((uint32_t)g.size[d]);
		for (int arg = 0; arg < AB_EW_ARGS; arg++)
			oc.strides[d][arg] = (uint32_t)g.stride[d][arg];
	}
	const int nv = AB_EW_THREADS * AB_EW_LEGACY_VT;
	const unsigned grid = (unsigned)((n + nv - 1) / nv);
	ab_eager_elementwise_kernel<AB_EW_THREADS, AB_EW_LEGACY_VT, Op><<<grid, AB_EW_THREADS, 0, stream>>>(
		(int)n, oc, Op{}, reinterpret_cast<char *>(out), reinterpret_cast<const char *>(a),
		reinterpret_cast<const char *>(v));
	return (int)cudaGetLastError();
}

/* Tensors past 32-bit indexing go batch by batch, in token chunks. */
template <typename Op>
static int launch_bcast(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t B, int64_t T, int64_t W,
			cudaStream_t stream)
{
	if (B <= 0 || T <= 0 || W <= 0 || W > (INT64_C(1) << 30))
		return ab_invalid();
	if (!ab_aligned(a, 2) || !ab_aligned(v, 2) || !ab_aligned(out, 2))
		return ab_invalid();
	if (B * T * W <= AB_EW_CHUNK)
		return launch_bcast_one<Op>(a, v, out, B, T, W, stream);
	const int64_t tchunk = AB_EW_CHUNK / W;
	for (int64_t b = 0; b < B; b++) {
		for (int64_t t0 = 0; t0 < T; t0 += tchunk) {
			const int64_t tc = (T - t0) < tchunk ? (T - t0) : tchunk;
			const int64_t off = (b * T + t0) * W;
			const int rc = launch_bcast_one<Op>(a + off, v + b * W, out + off, 1, tc, W, stream);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* ---- entry points (eager_ops.cuh) ------------------------------------ */

int ab_eager_add_one(const uint16_t *s, uint16_t *out, int64_t n, cudaStream_t stream)
{
	return launch_vectorized<ab_ew_add_one>(s, nullptr, out, n, stream);
}

int ab_eager_bcast_mul(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t batch, int64_t tokens,
		       int64_t width, cudaStream_t stream)
{
	return launch_bcast<ab_ew_mul>(a, v, out, batch, tokens, width, stream);
}

int ab_eager_bcast_add(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t batch, int64_t tokens,
		       int64_t width, cudaStream_t stream)
{
	return launch_bcast<ab_ew_add>(a, v, out, batch, tokens, width, stream);
}

int ab_eager_add(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n, cudaStream_t stream)
{
	return launch_vectorized<ab_ew_add>(a, b, out, n, stream);
}
