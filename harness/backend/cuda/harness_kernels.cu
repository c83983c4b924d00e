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
#include "kernels/common/vec16_io.cuh"

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
#define HK_FLOOR_READS 4   /* read vectors gathered into one write vector at most */
#define HK_FLOOR_PIECES 64 /* a plan's pieces at most (COPY_FLOOR_SEGS segments: <= 8 + 4 x 8 + 8 + 4) */

/*
 * The plan cut on the host into pieces within which every pointer runs
 * contiguously: a piece is n vectors k = 0 .. n-1 with out[k] = the xor of
 * in[0][k] .. in[n_in-1][k] (out NULL: a read past HK_FLOOR_READS x the
 * write stream, kept live by a compare against a value no load is expected
 * to give, a store of it to `sink` otherwise). So a thread does what
 * scripts/gpu/copy_floor.cu's kernels do: one index, its loads, one store;
 * the first version looked the segment of every vector up per thread (7
 * 64-bit compares and selects a load) and ran 14-17% behind that copy on
 * the H200 (PERF_NOTES, round 3 call 3), slower than the fused kernels it
 * is the floor of.
 */
struct hk_piece {
	const uint4 *in[HK_FLOOR_READS];
	uint4 *out;
	unsigned n;           /* vectors */
	unsigned first_block; /* the piece's first block in the launch */
	int n_in;
};

struct hk_floor_args {
	int n_pieces;
	unsigned blocks;                 /* the launch's blocks, all pieces */
	uint4 *sink;                     /* where a read-only piece's improbable value goes */
	uint4 sentinel;
	struct hk_piece piece[HK_FLOOR_PIECES];
	/* the bytes past each segment's last whole vector (odd sizes), done by
	 * one thread */
	int n_tail_in, n_tail_out;
	const unsigned char *tail_in[COPY_FLOOR_SEGS];
	unsigned char *tail_out[COPY_FLOOR_SEGS];
	int tail_in_bytes[COPY_FLOOR_SEGS], tail_out_bytes[COPY_FLOOR_SEGS];
};

/* The index of block blk's piece (the same for every thread of the block). */
static __device__ __forceinline__ int hk_piece_index(const hk_floor_args &a, unsigned blk)
{
	int p = 0;
	for (int k = 1; k < a.n_pieces; k++)
		if (blk >= a.piece[k].first_block)
			p = k;
	return p;
}

/* Vector k of piece c: its loads issued together, then the xor. */
template <bool CS>
static __device__ __forceinline__ uint4 hk_gather(const hk_piece &c, unsigned k)
{
	uint4 v[HK_FLOOR_READS];
#pragma unroll
	for (int m = 0; m < HK_FLOOR_READS; m++)
		v[m] = m < c.n_in ? vec16_ld<CS>(c.in[m] + k) : make_uint4(0, 0, 0, 0);
#pragma unroll
	for (int m = 1; m < HK_FLOOR_READS; m++)
		v[0] = vec16_xor(v[0], v[m]);
	return v[0];
}

template <bool CS>
static __device__ __forceinline__ void hk_put(const hk_floor_args &a, const hk_piece &c, unsigned k, uint4 v)
{
	if (c.out)
		vec16_st<CS>(c.out + k, v);
	else if (v.x == a.sentinel.x && v.y == a.sentinel.y && v.z == a.sentinel.z && v.w == a.sentinel.w)
		vec16_st<CS>(a.sink, v);
}

static __device__ void hk_floor_tails(const hk_floor_args &a)
{
	unsigned char acc = 0;
	for (int k = 0; k < a.n_tail_in; k++)
		for (int b = 0; b < a.tail_in_bytes[k]; b++)
			acc ^= a.tail_in[k][b];
	for (int k = 0; k < a.n_tail_out; k++)
		for (int b = 0; b < a.tail_out_bytes[k]; b++)
			a.tail_out[k][b] = acc;
}

template <bool CS>
__global__ __launch_bounds__(HK_FLOOR_BLOCK) void harness_copy_floor_vec_kernel(const __grid_constant__ hk_floor_args a)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		hk_floor_tails(a);
	const hk_piece &c = a.piece[hk_piece_index(a, blockIdx.x)];
	const unsigned k = (blockIdx.x - c.first_block) * HK_FLOOR_BLOCK + threadIdx.x;
	if (k < c.n)
		hk_put<CS>(a, c, k, hk_gather<CS>(c, k));
}

/* Grid-stride within each piece, four vectors in flight a thread. */
template <bool CS>
__global__ __launch_bounds__(HK_FLOOR_BLOCK) void harness_copy_floor_gs4_kernel(const __grid_constant__ hk_floor_args a)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		hk_floor_tails(a);
	const int p = hk_piece_index(a, blockIdx.x);
	const hk_piece &c = a.piece[p];
	const unsigned end = p + 1 < a.n_pieces ? a.piece[p + 1].first_block : a.blocks;
	const unsigned stride = (end - c.first_block) * HK_FLOOR_BLOCK;
	for (unsigned base = (blockIdx.x - c.first_block) * HK_FLOOR_BLOCK + threadIdx.x; base < c.n;
	     base += HK_FLOOR_GS_VECS * stride) {
		uint4 v[HK_FLOOR_GS_VECS];
#pragma unroll
		for (int u = 0; u < HK_FLOOR_GS_VECS; u++) {
			const unsigned k = base + u * stride;
			v[u] = k < c.n ? hk_gather<CS>(c, k) : make_uint4(0, 0, 0, 0);
		}
#pragma unroll
		for (int u = 0; u < HK_FLOOR_GS_VECS; u++) {
			const unsigned k = base + u * stride;
			if (k < c.n)
				hk_put<CS>(a, c, k, v[u]);
		}
	}
}

/* ---- cutting a plan into pieces (host) ---- */

/* The stream's segments as vectors: where each begins, cumulative. */
struct hk_stream {
	int n;
	long long begin[COPY_FLOOR_SEGS + 1]; /* begin[n] = the stream's vectors */
	const unsigned char *base[COPY_FLOOR_SEGS];
};

static void hk_stream_of(hk_stream *st, int n, const void *const *ptr, const int64_t *bytes)
{
	st->n = n;
	st->begin[0] = 0;
	for (int k = 0; k < n; k++) {
		st->base[k] = (const unsigned char *)ptr[k];
		st->begin[k + 1] = st->begin[k] + bytes[k] / 16;
	}
}

/* Vector j of the stream (j below its end). */
static const uint4 *hk_at(const hk_stream *st, long long j)
{
	int k = 0;
	while (k + 1 < st->n && j >= st->begin[k + 1])
		k++;
	return (const uint4 *)st->base[k] + (j - st->begin[k]);
}

static void hk_cut_add(long long *cuts, int *n, long long v, long long lo, long long hi)
{
	if (v > lo && v < hi && *n < 4 * HK_FLOOR_PIECES)
		cuts[(*n)++] = v;
}

static int hk_cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;
	return a < b ? -1 : a > b;
}

/* Pieces of [lo, hi) in index space: the write stream's vectors when
 * write, else the read stream's past HK_FLOOR_READS x the write stream.
 * False when they would be more than the table holds. */
static bool hk_cut(hk_floor_args *a, const hk_stream *r, const hk_stream *w, long long lo, long long hi, bool write,
		   unsigned *blocks, unsigned per_block)
{
	long long cuts[4 * HK_FLOOR_PIECES + 2];
	int n = 0;
	const long long wv = w->begin[w->n];
	for (int k = 1; write && k < w->n; k++)
		hk_cut_add(cuts, &n, w->begin[k], lo, hi);
	for (int m = 0; m < (write ? HK_FLOOR_READS : 1); m++)
		for (int k = 1; k <= r->n; k++)
			hk_cut_add(cuts, &n, r->begin[k] - (write ? m * wv : 0), lo, hi);
	cuts[n++] = lo;
	cuts[n++] = hi;
	qsort(cuts, (size_t)n, sizeof cuts[0], hk_cmp_ll);
	const long long rv = r->begin[r->n];
	for (int i = 0; i + 1 < n; i++) {
		const long long s = cuts[i], e = cuts[i + 1];
		if (e <= s)
			continue;
		if (a->n_pieces == HK_FLOOR_PIECES || e - s > 0xffffffffLL)
			return false;
		hk_piece *c = &a->piece[a->n_pieces++];
		memset(c, 0, sizeof *c);
		c->n = (unsigned)(e - s);
		c->first_block = *blocks;
		if (write) {
			c->out = (uint4 *)hk_at(w, s);
			for (int m = 0; m < HK_FLOOR_READS && s + m * wv < rv; m++)
				c->in[c->n_in++] = hk_at(r, s + m * wv);
		} else {
			c->in[c->n_in++] = hk_at(r, s);
		}
		const long long b = (e - s + per_block - 1) / per_block;
		if (b > 0x7fffffffLL - *blocks)
			return false;
		*blocks += (unsigned)b;
	}
	return true;
}

/* The plan as the kernels take it, each piece per_block vectors a block
 * (HK_FLOOR_BLOCK for vec; HK_FLOOR_BLOCK x HK_FLOOR_GS_VECS x the stride's
 * share for gs4); false when a segment is not 16-byte aligned (the
 * backend's buffers are: cudaMalloc plus a 4096-byte guard) or the pieces
 * do not fit. */
static bool hk_floor_args_of(const struct copy_floor_plan *p, unsigned per_block, hk_floor_args *a)
{
	hk_stream r, w;
	memset(a, 0, sizeof *a);
	if (p->n_in > COPY_FLOOR_SEGS || p->n_out > COPY_FLOOR_SEGS || p->n_out < 1)
		return false;
	for (int k = 0; k < p->n_in; k++)
		if ((uintptr_t)p->in[k] % 16)
			return false;
	for (int k = 0; k < p->n_out; k++)
		if ((uintptr_t)p->out[k] % 16)
			return false;
	hk_stream_of(&r, p->n_in, p->in, p->in_bytes);
	hk_stream_of(&w, p->n_out, (const void *const *)p->out, p->out_bytes);
	const long long wv = w.begin[w.n], rv = r.begin[r.n];
	a->sink = (uint4 *)p->out[0];
	a->sentinel = make_uint4(0x7fc0dead, 0x7fc0beef, 0x7fc0f00d, 0x7fc0cafe); /* bf16 NaN pairs */
	if (wv > 0 && !hk_cut(a, &r, &w, 0, wv, true, &a->blocks, per_block))
		return false;
	if (rv > HK_FLOOR_READS * wv && !hk_cut(a, &r, &w, HK_FLOOR_READS * wv, rv, false, &a->blocks, per_block))
		return false;
	if (!a->n_pieces) { /* nothing but tails: one block for them */
		a->n_pieces = 1;
		a->blocks = 1;
	}
	for (int k = 0; k < p->n_in; k++)
		if (p->in_bytes[k] % 16) {
			a->tail_in[a->n_tail_in] = (const unsigned char *)p->in[k] + p->in_bytes[k] / 16 * 16;
			a->tail_in_bytes[a->n_tail_in++] = (int)(p->in_bytes[k] % 16);
		}
	for (int k = 0; k < p->n_out; k++)
		if (p->out_bytes[k] % 16) {
			a->tail_out[a->n_tail_out] = (unsigned char *)p->out[k] + p->out_bytes[k] / 16 * 16;
			a->tail_out_bytes[a->n_tail_out++] = (int)(p->out_bytes[k] % 16);
		}
	return true;
}

extern "C" int hk_floor_launch(const struct copy_floor_plan *p, int method, int sm_count, void *stream)
{
	static hk_floor_args a; /* 3.7 KB: not on the stack; launches are serial (one runner thread) */
	cudaStream_t s = (cudaStream_t)stream;
	const bool gs = method == HK_FLOOR_GS4_CS || method == HK_FLOOR_GS4;
	if (method < 0 || method >= HK_FLOOR_N)
		return (int)cudaErrorInvalidValue;
	unsigned per_block = HK_FLOOR_BLOCK;
	if (gs) {
		/* as many vectors a block as spread the write stream over
		 * sm_count x HK_FLOOR_GS_BLOCKS_PER_SM blocks, at least 4 a thread */
		const long long vecs = p->write_bytes / 16 + p->read_bytes / 16;
		const long long cap = (long long)(sm_count > 0 ? sm_count : 1) * HK_FLOOR_GS_BLOCKS_PER_SM;
		long long per = (vecs / 2 + cap - 1) / cap;
		const long long least = (long long)HK_FLOOR_BLOCK * HK_FLOOR_GS_VECS;
		per = (per + least - 1) / least * least;
		per_block = (unsigned)(per < least ? least : per > 0x40000000LL ? 0x40000000LL : per);
	}
	if (!hk_floor_args_of(p, per_block, &a))
		return (int)cudaErrorInvalidValue;
	switch (method) {
	case HK_FLOOR_VEC_CS:
		harness_copy_floor_vec_kernel<true><<<a.blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	case HK_FLOOR_VEC:
		harness_copy_floor_vec_kernel<false><<<a.blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	case HK_FLOOR_GS4_CS:
		harness_copy_floor_gs4_kernel<true><<<a.blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	default:
		harness_copy_floor_gs4_kernel<false><<<a.blocks, HK_FLOOR_BLOCK, 0, s>>>(a);
		break;
	}
	return (int)cudaGetLastError();
}
