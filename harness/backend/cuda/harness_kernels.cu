/*
 * harness_kernels.cu - the spin-wait, clock-probe and tiny kernels of the
 * CUDA backend (see harness_kernels.h).
 *
 * Launch descriptors: one block of one thread for the spin and the probe
 * (they must take one SM slot and nothing else while arms run), one warp
 * for the tiny kernel (the smallest launch the hardware schedules). No
 * measurement tunes them: their cost is outside every timed span. The
 * copy floor's kernels: 256-thread blocks, one 16-byte vector a thread, as
 * scripts/gpu/copy_floor.cu whose copies measured 17.95-36.38 us on the
 * H200's glm_1024 shapes (PERF_NOTES, "Issue 24 kernels"); the grid-stride
 * variant 8 blocks an SM, 4 vectors a thread in flight.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "backend/cuda/harness_kernels.h"

/* Nanoseconds since an arbitrary epoch, common to all SMs. Its resolution
 * is coarse on some GPUs (about 1 us without a profiler attached). */
static __device__ __forceinline__ unsigned long long hk_globaltimer()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __device__ __forceinline__ unsigned hk_smid()
{
	unsigned id;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}

__global__ void harness_spin_wait_kernel(const volatile unsigned *release, unsigned target,
					 unsigned long long timeout_ns, unsigned *timeouts)
{
	const unsigned long long t0 = hk_globaltimer();
	while ((int)(*release - target) < 0) {
		if (hk_globaltimer() - t0 > timeout_ns) {
			/* Host-mapped memory: a plain store, made visible to the
			 * host (system-scope atomics over PCIe are not assumed). */
			volatile unsigned *t = timeouts;
			*t = *t + 1u;
			__threadfence_system();
			return;
		}
		__nanosleep(256);
	}
}

/* Reading both counters right after a timer tick makes the window exact to
 * a few loop iterations even when the timer ticks once a microsecond. */
__global__ void harness_clock_probe_kernel(unsigned long long *out, unsigned window_ns)
{
	const unsigned long long first = hk_globaltimer();
	unsigned long long t0 = first;
	for (int i = 0; i < (1 << 22) && t0 == first; i++)
		t0 = hk_globaltimer();
	const long long c0 = clock64();
	unsigned long long t1 = t0;
	for (int i = 0; i < (1 << 24) && t1 - t0 < window_ns; i++)
		t1 = hk_globaltimer();
	const long long c1 = clock64();
	const bool ok = t0 != first && t1 - t0 >= window_ns;
	out[0] = ok ? t1 - t0 : 0ull;
	out[1] = ok ? (unsigned long long)(c1 - c0) : 0ull;
	out[2] = hk_smid();
}

__global__ void harness_probe_tiny_kernel(unsigned *sink)
{
	if (threadIdx.x == 0)
		sink[0] += 1u;
}

extern "C" int hk_spin_launch(const volatile unsigned *release, unsigned target, unsigned long long timeout_ns,
			      unsigned *timeouts, void *stream)
{
	harness_spin_wait_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(release, target, timeout_ns, timeouts);
	return (int)cudaGetLastError();
}

extern "C" int hk_probe_launch(unsigned long long *out, unsigned window_ns, void *stream)
{
	harness_clock_probe_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(out, window_ns);
	return (int)cudaGetLastError();
}

extern "C" int hk_tiny_launch(unsigned *sink, void *stream)
{
	harness_probe_tiny_kernel<<<1, 32, 0, (cudaStream_t)stream>>>(sink);
	return (int)cudaGetLastError();
}

/* ---- the copy floor ------------------------------------------------------ */

#define HK_FLOOR_BLOCK 256
#define HK_FLOOR_GS_BLOCKS_PER_SM 8
#define HK_FLOOR_GS_VECS 4

/* A plan in the shape the kernels take it: each stream's segments as
 * 16-byte vectors with their running ends, and the bytes past the last
 * whole vector of each segment (done by one thread). */
struct hk_floor_args {
	int n_in, n_out;
	const uint4 *in[COPY_FLOOR_SEGS];
	uint4 *out[COPY_FLOOR_SEGS];
	long long in_end[COPY_FLOOR_SEGS], out_end[COPY_FLOOR_SEGS]; /* vectors, cumulative */
	int in_tail[COPY_FLOOR_SEGS], out_tail[COPY_FLOOR_SEGS];      /* bytes past the vectors */
	long long rv, wv;                                               /* vectors of each stream */
};

template <bool CS>
static __device__ __forceinline__ uint4 hk_ld(const uint4 *p)
{
	if constexpr (CS)
		return __ldcs(p);
	else
		return *p;
}

template <bool CS>
static __device__ __forceinline__ void hk_st(uint4 *p, uint4 v)
{
	if constexpr (CS)
		__stcs(p, v);
	else
		*p = v;
}

static __device__ __forceinline__ uint4 hk_xor(uint4 a, uint4 b)
{
	return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

/* Read vector j of the read stream (j < rv). The segment is found with
 * constant indices only (unrolled), so the parameters are read where they
 * are and never copied to local memory for a dynamic index. */
template <bool CS>
static __device__ __forceinline__ uint4 hk_read(const hk_floor_args &a, long long j)
{
	const uint4 *p = a.in[0] + j;
#pragma unroll
	for (int k = 1; k < COPY_FLOOR_SEGS; k++)
		if (k < a.n_in && j >= a.in_end[k - 1])
			p = a.in[k] + (j - a.in_end[k - 1]);
	return hk_ld<CS>(p);
}

template <bool CS>
static __device__ __forceinline__ void hk_write(const hk_floor_args &a, long long i, uint4 v)
{
	uint4 *p = a.out[0] + i;
#pragma unroll
	for (int k = 1; k < COPY_FLOOR_SEGS; k++)
		if (k < a.n_out && i >= a.out_end[k - 1])
			p = a.out[k] + (i - a.out_end[k - 1]);
	hk_st<CS>(p, v);
}

/* Write vector i: the xor of read vectors i, i + wv, ... Two loads are
 * issued before their xor, so that a thread that reads two vectors (the
 * gate's x and ff) has both in flight, as copy_floor.cu's kernels do. */
template <bool CS>
static __device__ __forceinline__ uint4 hk_gather(const hk_floor_args &a, long long i)
{
	uint4 v = make_uint4(0, 0, 0, 0);
	long long j = i;
	for (; j + a.wv < a.rv; j += 2 * a.wv) {
		const uint4 x = hk_read<CS>(a, j), y = hk_read<CS>(a, j + a.wv);
		v = hk_xor(v, hk_xor(x, y));
	}
	if (j < a.rv)
		v = hk_xor(v, hk_read<CS>(a, j));
	return v;
}

/* The bytes past each segment's last whole vector (sizes that are not a
 * multiple of 16: odd widths), by one thread. */
static __device__ void hk_floor_tails(const hk_floor_args &a)
{
	unsigned char acc = 0;
#pragma unroll
	for (int k = 0; k < COPY_FLOOR_SEGS; k++) {
		const unsigned char *p = (const unsigned char *)(a.in[k] + (a.in_end[k] - (k ? a.in_end[k - 1] : 0)));
		for (int b = 0; k < a.n_in && b < a.in_tail[k]; b++)
			acc ^= p[b];
	}
#pragma unroll
	for (int k = 0; k < COPY_FLOOR_SEGS; k++) {
		unsigned char *p = (unsigned char *)(a.out[k] + (a.out_end[k] - (k ? a.out_end[k - 1] : 0)));
		for (int b = 0; k < a.n_out && b < a.out_tail[k]; b++)
			p[b] = acc;
	}
}

template <bool CS>
__global__ __launch_bounds__(HK_FLOOR_BLOCK) void harness_copy_floor_vec_kernel(const hk_floor_args a)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		hk_floor_tails(a);
	if (i < a.wv)
		hk_write<CS>(a, i, hk_gather<CS>(a, i));
}

template <bool CS>
__global__ __launch_bounds__(HK_FLOOR_BLOCK) void harness_copy_floor_gs4_kernel(const hk_floor_args a)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t == 0)
		hk_floor_tails(a);
	for (long long base = t; base < a.wv; base += HK_FLOOR_GS_VECS * stride) {
		uint4 v[HK_FLOOR_GS_VECS];
#pragma unroll
		for (int u = 0; u < HK_FLOOR_GS_VECS; u++) {
			const long long i = base + u * stride;
			v[u] = i < a.wv ? hk_gather<CS>(a, i) : make_uint4(0, 0, 0, 0);
		}
#pragma unroll
		for (int u = 0; u < HK_FLOOR_GS_VECS; u++) {
			const long long i = base + u * stride;
			if (i < a.wv)
				hk_write<CS>(a, i, v[u]);
		}
	}
}

/* The plan as the kernels take it; false when a segment is not 16-byte
 * aligned (the backend's buffers are: cudaMalloc plus a 4096-byte guard). */
static bool hk_floor_args_of(const struct copy_floor_plan *p, hk_floor_args *a)
{
	memset(a, 0, sizeof *a);
	if (p->n_in > COPY_FLOOR_SEGS || p->n_out > COPY_FLOOR_SEGS || p->n_out < 1)
		return false;
	a->n_in = p->n_in;
	a->n_out = p->n_out;
	for (int k = 0; k < p->n_in; k++) {
		if ((uintptr_t)p->in[k] % 16)
			return false;
		a->in[k] = (const uint4 *)p->in[k];
		a->rv += p->in_bytes[k] / 16;
		a->in_end[k] = a->rv;
		a->in_tail[k] = (int)(p->in_bytes[k] % 16);
	}
	for (int k = 0; k < p->n_out; k++) {
		if ((uintptr_t)p->out[k] % 16)
			return false;
		a->out[k] = (uint4 *)p->out[k];
		a->wv += p->out_bytes[k] / 16;
		a->out_end[k] = a->wv;
		a->out_tail[k] = (int)(p->out_bytes[k] % 16);
	}
	return true;
}

extern "C" int hk_floor_launch(const struct copy_floor_plan *p, int method, int sm_count, void *stream)
{
	hk_floor_args a;
	cudaStream_t s = (cudaStream_t)stream;
	if (!hk_floor_args_of(p, &a) || method < 0 || method >= HK_FLOOR_N)
		return (int)cudaErrorInvalidValue;
	const long long blocks = a.wv > 0 ? (a.wv + HK_FLOOR_BLOCK - 1) / HK_FLOOR_BLOCK : 1;
	const long long gs_cap = (long long)(sm_count > 0 ? sm_count : 1) * HK_FLOOR_GS_BLOCKS_PER_SM;
	const long long gs_blocks = (blocks + HK_FLOOR_GS_VECS - 1) / HK_FLOOR_GS_VECS < gs_cap
					    ? (blocks + HK_FLOOR_GS_VECS - 1) / HK_FLOOR_GS_VECS
					    : gs_cap;
	if (blocks > 0x7fffffffLL)
		return (int)cudaErrorInvalidValue;
	switch (method) {
	case HK_FLOOR_VEC_CS:
		harness_copy_floor_vec_kernel<true><<<(unsigned)blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	case HK_FLOOR_VEC:
		harness_copy_floor_vec_kernel<false><<<(unsigned)blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	case HK_FLOOR_GS4_CS:
		harness_copy_floor_gs4_kernel<true><<<(unsigned)gs_blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	default:
		harness_copy_floor_gs4_kernel<false><<<(unsigned)gs_blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	}
	return (int)cudaGetLastError();
}
