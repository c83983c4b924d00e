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
#include <string.h>

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

/*
 * Two values narrowed by one cvt.rn.bf16x2.f32 (lo in bits 0-15), which the
 * fused kernels use to halve their conversion instructions. On sm_90 the
 * single and the paired conversion are the same F2FP.BF16.F32.PACK_AB
 * instruction (the single one packs a zero), so each half rounds exactly as
 * __float2bfloat16 does, NaN -> 0x7FFF included; the self-test's NaN rows
 * check it against the eager kernels' single conversions. Building with
 * -DAB_PAIRED_CVT=0 restores two single conversions.
 */
#ifndef AB_PAIRED_CVT
#define AB_PAIRED_CVT 1
#endif

static __device__ __forceinline__ uint32_t ab_pack_bf16x2(float lo, float hi)
{
#if AB_PAIRED_CVT
	const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
	uint32_t w;
	memcpy(&w, &h, sizeof w);
	return w;
#else
	return (uint32_t)ab_float_to_bf16(lo) | ((uint32_t)ab_float_to_bf16(hi) << 16);
#endif
}

/* a and b rounded to bf16 and widened again (two materialised values). */
static __device__ __forceinline__ void ab_bf16_round2(float &a, float &b)
{
	const uint32_t w = ab_pack_bf16x2(a, b);
	a = ab_bf16_lo(w);
	b = ab_bf16_hi(w);
}

/* Element i (0..3) of four bf16 packed in a uint2. */
static __device__ __forceinline__ float ab_bf16x4_get(uint2 v, int i)
{
	const uint32_t w = (i < 2) ? v.x : v.y;
	return (i & 1) ? ab_bf16_hi(w) : ab_bf16_lo(w);
}

/*
 * bf16x2 arithmetic, rounded once to bf16 (add.rn.bf16x2, mul.rn.bf16x2,
 * sm_90). The fused kernels use them only where the eager chain computes
 * bf16(float(a) OP float(b)) of two bf16 operands a and b: for + and *
 * that double rounding (f32, then bf16) provably equals one rounding of the
 * exact result (docs/KERNELS.md, "bf16x2 arithmetic"), which is what these
 * instructions compute. The explicit .rn keeps ptxas from contracting a
 * mul and an add into one fma. NaN results are the canonical 0x7FFF, as
 * cvt.rn.bf16.f32 gives; the self-test's special rows and parameters check
 * that on the device. Added for the fused kernels; the eager kernels do
 * not call them.
 */
static __device__ __forceinline__ uint32_t ab_bf16x2_add_rn(uint32_t a, uint32_t b)
{
	uint32_t d;
	asm("add.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

static __device__ __forceinline__ uint32_t ab_bf16x2_mul_rn(uint32_t a, uint32_t b)
{
	uint32_t d;
	asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

/* 1.0 in both halves of a bf16x2 word. */
#define AB_BF16X2_ONE 0x3F803F80u

#endif
