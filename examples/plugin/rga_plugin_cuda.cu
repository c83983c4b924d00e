/*
 * rga_plugin_cuda.cu - the CUDA functions of the example plugin: one
 * thread per element, 256 threads a block, the roundings spelled out
 * (__fmul_rn, __fadd_rn: no contraction into an FMA).
 *
 * A plugin's CUDA function only queues work on call->stream and returns:
 * abbench times the span, tags the launches for CUPTI and checks for
 * asynchronous errors itself.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "rga_plugin.h"

#define RGA_THREADS 256

static __device__ float bf(uint16_t h)
{
	return __uint_as_float((unsigned)h << 16);
}

static __device__ uint16_t to_bf(float f)
{
	return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

template <bool EXACT>
static __global__ void rga_kernel(const uint16_t *x, const uint16_t *ff, const uint16_t *gate, uint16_t *out,
				  int64_t n, int64_t tokens, int64_t width)
{
	int64_t i = (int64_t)blockIdx.x * RGA_THREADS + threadIdx.x;
	if (i >= n)
		return;
	int64_t w = i % width, b = i / width / tokens;
	float prod = __fmul_rn(bf(ff[i]), bf(gate[b * width + w]));
	if (EXACT)
		prod = bf(to_bf(prod));
	out[i] = to_bf(__fadd_rn(bf(x[i]), prod));
}

template <bool EXACT>
static int rga_launch(const struct abbench_call *call)
{
	struct rga_view v;
	int status = rga_tensors(call, &v);
	if (status != ABBENCH_OK)
		return status;
	int64_t n = v.rows * v.width;
	unsigned blocks = (unsigned)((n + RGA_THREADS - 1) / RGA_THREADS);
	rga_kernel<EXACT><<<blocks, RGA_THREADS, 0, (cudaStream_t)call->stream>>>(v.x, v.ff, v.gate, v.out, n, v.tokens,
										  v.width);
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		return abbench_fail(call, ABBENCH_ERR_CUDA, "rga_kernel launch: %s", cudaGetErrorString(e));
	return ABBENCH_OK;
}

extern "C" int rga_exact_cuda(const struct abbench_call *call)
{
	return rga_launch<true>(call);
}

extern "C" int rga_inexact_cuda(const struct abbench_call *call)
{
	return rga_launch<false>(call);
}
