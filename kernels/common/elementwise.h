/*
 * elementwise.h - the framework's bf16 elementwise ops, one element at a time
 * and as whole-tensor passes.
 *
 * Each op converts its bf16 operands to float, does one float operation and
 * rounds once to bf16 (RNE, NaN -> 0x7FFF), as PyTorch's CUDA binary kernels
 * do with bf16 tensors. The eager steps run the tensor passes; the fused
 * steps call the same per-element functions, so the bytes agree by
 * construction.
 */
#ifndef AB_ELEMENTWISE_H
#define AB_ELEMENTWISE_H

#include <stdint.h>

#include "kernels/common/bf16.h"

/* `1 + scale`: bf16(float(s) + 1.0f). */
static inline bf16_t elementwise_add_one(bf16_t s)
{
	return bf16_from_float(bf16_to_float(s) + 1.0f);
}

/* bf16(float(a) * float(b)). */
static inline bf16_t elementwise_mul(bf16_t a, bf16_t b)
{
	return bf16_from_float(bf16_to_float(a) * bf16_to_float(b));
}

/* bf16(float(a) + float(b)). */
static inline bf16_t elementwise_add(bf16_t a, bf16_t b)
{
	return bf16_from_float(bf16_to_float(a) + bf16_to_float(b));
}

/* out[i] = add_one(in[i]) for n elements. */
void elementwise_add_one_pass(const bf16_t *in, bf16_t *out, int64_t n);

/* out[i] = add(a[i], b[i]) for n elements. */
void elementwise_add_pass(const bf16_t *a, const bf16_t *b, bf16_t *out, int64_t n);

/* Broadcast over tokens: out[b, t, w] = op(full[b, t, w], vec[b * width + w]). */
void elementwise_mul_bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out, int64_t batch, int64_t tokens,
				int64_t width);
void elementwise_add_bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out, int64_t batch, int64_t tokens,
				int64_t width);

#endif
