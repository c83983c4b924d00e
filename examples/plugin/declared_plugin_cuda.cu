/*
 * declared_plugin_cuda.cu - the CUDA functions of declared_plugin.c's
 * modulate_scale_shift arms: one thread per element, 256 threads a block,
 * each operation rounded on its own (__fmul_rn, __fadd_rn: no FMA), so
 * that eager and fused make the same three bf16 roundings.
 *
 * A plugin's CUDA function only queues work on call->stream and returns:
 * abbench times the span, tags the launches for CUPTI and checks for
 * asynchronous errors itself.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "declared_plugin.h"

#define MSS_THREADS 256

static __device__ float bf(uint16_t h)
{
	return __uint_as_float((unsigned)h << 16);
}

static __device__ uint16_t to_bf(float f)
{
	return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

static __global__ void mss_add_one(const uint16_t *scale, uint16_t *s1, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * MSS_THREADS + threadIdx.x;
	if (i < n)
		s1[i] = to_bf(__fadd_rn(1.0f, bf(scale[i])));
}

/* out[i] = bf16(a[i] OP v[b, w]): the broadcast multiply, then the add. */
template <bool MUL>
static __global__ void mss_broadcast(const uint16_t *a, const uint16_t *v, uint16_t *out, int64_t n, int64_t tokens,
				     int64_t width)
{
	int64_t i = (int64_t)blockIdx.x * MSS_THREADS + threadIdx.x;
	if (i >= n)
		return;
	float y = bf(v[i / (tokens * width) * width + i % width]);
	out[i] = to_bf(MUL ? __fmul_rn(bf(a[i]), y) : __fadd_rn(bf(a[i]), y));
}

template <bool EXACT>
static __global__ void mss_one_pass(const uint16_t *x, const uint16_t *scale, const uint16_t *shift, uint16_t *out,
				    int64_t n, int64_t tokens, int64_t width)
{
	int64_t i = (int64_t)blockIdx.x * MSS_THREADS + threadIdx.x;
	if (i >= n)
		return;
	int64_t k = i / (tokens * width) * width + i % width;
	float s1 = __fadd_rn(1.0f, bf(scale[k])), y;
	if (EXACT)
		y = __fadd_rn(bf(to_bf(__fmul_rn(bf(x[i]), bf(to_bf(s1))))), bf(shift[k]));
	else
		y = __fadd_rn(__fmul_rn(bf(x[i]), s1), bf(shift[k]));
	out[i] = to_bf(y);
}

static unsigned blocks_of(int64_t n)
{
	return (unsigned)((n + MSS_THREADS - 1) / MSS_THREADS);
}

static int launched(const struct abbench_call *call, const char *what)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		return abbench_fail(call, ABBENCH_ERR_CUDA, "%s launch: %s", what, cudaGetErrorString(e));
	return ABBENCH_OK;
}

extern "C" int mss_eager_cuda(const struct abbench_call *call)
{
	struct mss_view v;
	int st = mss_tensors(call, 1, &v);
	if (st)
		return st;
	cudaStream_t s = (cudaStream_t)call->stream;
	int64_t bw = v.batch * v.width, n = bw * v.tokens;
	mss_add_one<<<blocks_of(bw), MSS_THREADS, 0, s>>>(v.scale, v.s1, bw);
	mss_broadcast<true><<<blocks_of(n), MSS_THREADS, 0, s>>>(v.x, v.s1, v.mul, n, v.tokens, v.width);
	mss_broadcast<false><<<blocks_of(n), MSS_THREADS, 0, s>>>(v.mul, v.shift, v.out, n, v.tokens, v.width);
	return launched(call, "mss eager");
}

template <bool EXACT>
static int mss_fused_launch(const struct abbench_call *call)
{
	struct mss_view v;
	int st = mss_tensors(call, 0, &v);
	if (st)
		return st;
	int64_t n = v.batch * v.tokens * v.width;
	mss_one_pass<EXACT><<<blocks_of(n), MSS_THREADS, 0, (cudaStream_t)call->stream>>>(v.x, v.scale, v.shift, v.out, n,
											    v.tokens, v.width);
	return launched(call, "mss_one_pass");
}

extern "C" int mss_fused_cuda(const struct abbench_call *call)
{
	return mss_fused_launch<true>(call);
}

extern "C" int mss_inexact_cuda(const struct abbench_call *call)
{
	return mss_fused_launch<false>(call);
}
