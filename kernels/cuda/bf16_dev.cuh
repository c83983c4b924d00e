/*
 * bf16_dev.cuh - bfloat16 on the device: raw uint16 bits <-> float.
 *
 * Every tensor holds bf16 as raw 16-bit words. Widening is exact; narrowing
 * rounds to nearest even and turns every NaN into 0x7FFF (cvt.rn.bf16.f32,
 * CUDA's __float2bfloat16), which is what PyTorch's casts do on sm_90.
 *
 * Two widenings: ab_bf16_to_float_aten is c10::BFloat16's operator float
 * on sm_90 (__bfloat162float, a cvt.f32.bf16), used by the eager kernels so
 * that even NaN payloads of their float statistics follow PyTorch; the
 * fused kernels unpack with a shift (the same value for every non-NaN bit
 * pattern, and any NaN ends as 0x7FFF in their bf16 outputs either way).
 */
#ifndef AB_BF16_DEV_CUH
#define AB_BF16_DEV_CUH

#include <cuda_bf16.h>
#include <stdint.h>

static __device__ __forceinline__ float ab_bf16_to_float_aten(uint16_t h)
{
	return __bfloat162float(__ushort_as_bfloat16(h));
}

static __device__ __forceinline__ float ab_bf16_to_float(uint16_t h)
{
	return __uint_as_float((uint32_t)h << 16);
}

/* The low and the high bf16 of a 32-bit word (little endian: element 2i
 * is the low half of word i). */
static __device__ __forceinline__ float ab_bf16_lo(uint32_t w)
{
	return __uint_as_float(w << 16);
}

static __device__ __forceinline__ float ab_bf16_hi(uint32_t w)
{
	return __uint_as_float(w & 0xffff0000u);
}

static __device__ __forceinline__ uint16_t ab_float_to_bf16(float f)
{
	return __bfloat16_as_ushort(__float2bfloat16(f));
}

/* f rounded to bf16 and widened again: a materialised bf16 intermediate. */
static __device__ __forceinline__ float ab_bf16_round(float f)
{
	return ab_bf16_to_float(ab_float_to_bf16(f));
}

static __device__ __forceinline__ uint32_t ab_pack_bf16x2(float lo, float hi)
{
	return (uint32_t)ab_float_to_bf16(lo) | ((uint32_t)ab_float_to_bf16(hi) << 16);
}

/* Element i (0..3) of four bf16 packed in a uint2. */
static __device__ __forceinline__ float ab_bf16x4_get(uint2 v, int i)
{
	const uint32_t w = (i < 2) ? v.x : v.y;
	return (i & 1) ? ab_bf16_hi(w) : ab_bf16_lo(w);
}

#endif
