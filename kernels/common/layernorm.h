/*
 * layernorm.h - the CPU LayerNorm: row statistics and normalisation.
 *
 * The eager arms' LayerNorm steps and every fused arm use these same
 * functions, so their bytes agree by construction. Statistics come from the
 * 128-thread Welford emulation (welford.h: the eager kernel's work, or the
 * fused kernels' work, welford.h; the same bits), or, for the deliberately different
 * "twopass" variants, from a plain two-pass float computation.
 *
 * rstd: the GPU kernel uses rsqrtf(var + eps), the hardware's approximate
 * reciprocal square root, which a CPU cannot reproduce; the CPU uses the
 * correctly rounded 1.0f / sqrtf(var + eps). CPU and GPU outputs may
 * therefore differ in the last bit; the CPU's eager and fused arms agree.
 */
#ifndef AB_LAYERNORM_H
#define AB_LAYERNORM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/common/bf16.h"

struct layernorm_stats {
	float mean;
	float rstd;
};

/* Which reduction a statistics call stands for. */
enum layernorm_method {
	LAYERNORM_EAGER,   /* vectorized_layer_norm_kernel's work (welford_row) */
	LAYERNORM_FUSED,   /* the same bits with the fused kernels' work (welford_row_fused) */
	LAYERNORM_TWOPASS, /* two-pass float: close to, not bit-equal with, the above */
};

/* Statistics of one row of n values (n % 4 == 0 for the Welford methods). */
struct layernorm_stats layernorm_stats(const bf16_t *row, int64_t n, float eps, enum layernorm_method method);

/* One output element: bf16(rstd * (v - mean)), a multiply after a
 * subtract; with affine (w != NULL) bf16(fmaf(w[j], rstd * (v - mean), b[j])),
 * the contraction nvcc makes of gamma * (...) + beta. */
static inline bf16_t layernorm_elem(float v, struct layernorm_stats st, const bf16_t *w, const bf16_t *b, int64_t j)
{
	float y = st.rstd * (v - st.mean);
	if (w)
		y = fmaf(bf16_to_float(w[j]), y, bf16_to_float(b[j]));
	return bf16_from_float(y);
}

/* Normalises one row of n values from x into out with st. */
void layernorm_row(const bf16_t *x, bf16_t *out, int64_t n, struct layernorm_stats st, const bf16_t *w,
		   const bf16_t *b);

/* Normalises rows rows of n values from x into out; writes each row's mean
 * and rstd when mean/rstd are not NULL; w and b are both NULL (no affine) or
 * both set. */
void layernorm_forward(const bf16_t *x, bf16_t *out, float *mean, float *rstd, int64_t rows, int64_t n, float eps,
		       const bf16_t *w, const bf16_t *b, enum layernorm_method method);

#endif
