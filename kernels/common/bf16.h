/*
 * bf16.h - host-side bfloat16 conversions, the rounding every arm shares.
 *
 * bf16 is the top 16 bits of an IEEE float. Conversion from float rounds to
 * nearest even on the float's bits, exactly as the GPU's cvt.rn.bf16.f32
 * (CUDA's __float2bfloat16) does, including its NaN rule: every NaN becomes
 * the canonical 0x7FFF. (PyTorch's CPU kernels write 0x7FC0 instead; we follow
 * the GPU so that CPU and CUDA arms agree wherever their arithmetic does.)
 */
#ifndef AB_BF16_H
#define AB_BF16_H

#include <stdint.h>
#include <string.h>

typedef uint16_t bf16_t;

#define BF16_CANONICAL_NAN ((bf16_t)0x7FFF)

static inline float bf16_to_float(bf16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

/* Written without a branch (the NaN case is a select) so that loops over
 * elements vectorize. */
static inline bf16_t bf16_from_float(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
	return (bits & 0x7FFFFFFFu) > 0x7F800000u ? BF16_CANONICAL_NAN : (bf16_t)rounded;
}

static inline int bf16_is_nan(bf16_t h)
{
	return (h & 0x7FFF) > 0x7F80;
}

#endif
