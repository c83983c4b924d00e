/*
 * rga_cubin.cu - residual_gate_add as a standalone kernel for a cubin arm
 * (nvcc -cubin -arch=sm_90): out = bf16(x + bf16(ff * gate)), the eager
 * chain's two roundings, so it is byte-equal to abbench's eager arm.
 *
 * Its [arm] section (examples/cubin/rga_cubin.ini):
 *   kernel = rga_cubin
 *   grid   = cdiv(M * W, 256)
 *   block  = 256
 *   params = x, ff, gate, out, M * W:i64, W, T
 * gate is [B, W], broadcast over the T tokens of each batch.
 */
#include <cuda_bf16.h>
#include <stdint.h>

static __device__ float bf(uint16_t h)
{
	return __uint_as_float((unsigned)h << 16);
}

static __device__ uint16_t to_bf(float f)
{
	return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

extern "C" __global__ void rga_cubin(const uint16_t *x, const uint16_t *ff, const uint16_t *gate, uint16_t *out,
				     long long n, int width, int tokens)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	long long w = i % width, b = i / width / tokens;
	float t = bf(to_bf(__fmul_rn(bf(ff[i]), bf(gate[b * width + w]))));
	out[i] = to_bf(__fadd_rn(bf(x[i]), t));
}
