/*
 * mss_cubin.cu - kernels of the declared site modulate_scale_shift
 * (scenarios/sites/modulate_scale_shift.ini: out = x * (1 + scale) + shift,
 * x [B, T, W] bf16, scale and shift [B, W] broadcast over T), compiled by
 * nvcc outside abbench and launched as cubin arms (examples/cubin/mss_cubin.ini):
 * abbench knows nothing of this site but what the scenario declares.
 *
 * mss_cubin: one thread per 8 elements (16-byte loads and stores), the
 * eager chain's three bf16 roundings each spelled out (__fadd_rn, __fmul_rn:
 * no contraction), so byte-equal to the example plugin's mss_eager.
 *   params = x, scale, shift, out, B * T * W:i64, T, W
 *   grid = cdiv(B * T * W, 8 * 256), block = 256
 *
 * Built with -DMSS_TRITON_STYLE it is mss_tritonlike, the same arithmetic
 * shaped as Triton compiles modulate_scale_shift (scripts/triton/
 * modulate_scale_shift.py): [ROWS = 4, BLOCK_W = 1024] tiles, 4 warps, the
 * user arguments x, scale, shift, out, M, T, W (i32) then the global and
 * profile scratch pointers Triton appends; mss_tritonlike.json beside it is
 * its metadata, as Triton's cache holds (grid = cdiv(M, 4), cdiv(W, 1024)).
 * W % 8 == 0 (the site's rule) keeps every 8-element vector in one row.
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

/* The chain on one element: s1 = bf16(1 + scale), z = bf16(x * s1), out = bf16(z + shift). */
static __device__ uint16_t chain(uint16_t x, uint16_t scale, uint16_t shift)
{
	float s1 = bf(to_bf(__fadd_rn(1.0f, bf(scale))));
	float z = bf(to_bf(__fmul_rn(bf(x), s1)));
	return to_bf(__fadd_rn(z, bf(shift)));
}

/* 8 elements at x + i, their parameters at p: one 16-byte load each. */
static __device__ void chain8(const uint16_t *x, const uint16_t *scale, const uint16_t *shift, uint16_t *out,
			      int64_t i, int64_t p)
{
	uint4 vx = *(const uint4 *)(x + i), vs = *(const uint4 *)(scale + p), vh = *(const uint4 *)(shift + p), vo;
	const uint16_t *ex = (const uint16_t *)&vx, *es = (const uint16_t *)&vs, *eh = (const uint16_t *)&vh;
	uint16_t *eo = (uint16_t *)&vo;
#pragma unroll
	for (int k = 0; k < 8; k++)
		eo[k] = chain(ex[k], es[k], eh[k]);
	*(uint4 *)(out + i) = vo;
}

#ifndef MSS_TRITON_STYLE
extern "C" __global__ void mss_cubin(const uint16_t *x, const uint16_t *scale, const uint16_t *shift, uint16_t *out,
				     int64_t n, int tokens, int width)
{
	int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 8;
	if (i >= n)
		return;
	int64_t row = i / width, w = i % width;
	chain8(x, scale, shift, out, i, row / tokens * width + w);
}
#else
#define ROWS 4
#define BLOCK_W 1024
extern "C" __global__ void mss_tritonlike(const uint16_t *x, const uint16_t *scale, const uint16_t *shift,
					  uint16_t *out, int m, int tokens, int width, void *global_scratch,
					  void *profile_scratch)
{
	(void)global_scratch;
	(void)profile_scratch;
	/* 4 warps over a [ROWS, BLOCK_W] tile, 8 columns a thread a step */
	for (int k = threadIdx.x; k < ROWS * BLOCK_W / 8; k += blockDim.x) {
		int64_t row = (int64_t)blockIdx.x * ROWS + k / (BLOCK_W / 8);
		int64_t col = (int64_t)blockIdx.y * BLOCK_W + (k % (BLOCK_W / 8)) * 8;
		if (row < m && col < width)
			chain8(x, scale, shift, out, row * width + col, row / tokens * width + col);
	}
}
#endif
