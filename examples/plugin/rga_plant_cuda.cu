/*
 * rga_plant_cuda.cu - the CUDA half of the planting plugin: one kernel for
 * every plant size, the exact residual_gate_add of examples/plugin's
 * rga_exact (one thread per element, 256 threads a block, the roundings
 * spelled out with __fmul_rn and __fadd_rn) plus the plant's extra read.
 *
 * The extra read is one 16-byte load per thread for the first
 * extra_words threads of the grid (at most an eighth of them: the scratch
 * tensor holds 2 x M x W bytes), folded and compared with a magic word
 * (rga_plant.h). plant0 runs the very same kernel with extra_words = 0,
 * so base and plant differ by the planted loads alone. The launch shape is
 * rga_exact's, not a tuned one: the plant is measured against its own
 * plant0, never against the fused arm.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "rga_plant.h"

#define PLANT_THREADS 256

static __device__ float plant_bf(uint16_t h)
{
	return __uint_as_float((unsigned)h << 16);
}

static __device__ uint16_t plant_to_bf(float f)
{
	return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

static __global__ void rga_plant_kernel(const uint16_t *x, const uint16_t *ff, const uint16_t *gate, uint16_t *out,
					int64_t n, int64_t tokens, int64_t width, uint16_t *sink, int64_t extra_words)
{
	int64_t i = (int64_t)blockIdx.x * PLANT_THREADS + threadIdx.x;
	if (i < extra_words) {
		uint4 word = reinterpret_cast<const uint4 *>(sink)[i];
		unsigned fold = word.x ^ word.y ^ word.z ^ word.w;
		if (fold == RGA_PLANT_MAGIC)
			sink[0] = (uint16_t)fold;
	}
	if (i >= n)
		return;
	int64_t w = i % width, b = i / width / tokens;
	float prod = plant_bf(plant_to_bf(__fmul_rn(plant_bf(ff[i]), plant_bf(gate[b * width + w]))));
	out[i] = plant_to_bf(__fadd_rn(plant_bf(x[i]), prod));
}

extern "C" int rga_plant_cuda(const struct abbench_call *call, int pct)
{
	struct rga_plant_view v;
	int status = rga_plant_view(call, pct, &v);
	if (status != ABBENCH_OK)
		return status;
	if (v.extra_words && (uintptr_t)v.sink % RGA_PLANT_WORD)
		return abbench_fail(call, ABBENCH_ERR, "scratch tensor 'ff_gated' is not %d-byte aligned",
				    RGA_PLANT_WORD);
	int64_t n = v.rows * v.width;
	unsigned blocks = (unsigned)((n + PLANT_THREADS - 1) / PLANT_THREADS);
	rga_plant_kernel<<<blocks, PLANT_THREADS, 0, (cudaStream_t)call->stream>>>(v.x, v.ff, v.gate, v.out, n,
										  v.tokens, v.width, v.sink,
										  v.extra_words);
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		return abbench_fail(call, ABBENCH_ERR_CUDA, "rga_plant_kernel launch: %s", cudaGetErrorString(e));
	return ABBENCH_OK;
}
