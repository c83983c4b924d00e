/*
 * layernorm.h - the CPU LayerNorm: row statistics and normalisation.
 *
 * The eager arm's LayerNorm step and every fused arm use these same
 * functions, so their bytes agree by construction. Statistics come from the
 * 128-thread Welford emulation (welford.h), or, for the deliberately
 * different "twopass" variants, from a plain two-pass float computation.
 *
 * rstd: the GPU kernel uses rsqrtf(var + eps), the hardware's approximate
 * reciprocal square root, which a CPU cannot reproduce; the CPU uses the
 * correctly rounded 1.0f / sqrtf(var + eps). CPU and GPU outputs may
 * therefore differ in the last bit; the CPU's eager and fused arms agree.
 */
#ifndef AB_CPU_LAYERNORM_H
#define AB_CPU_LAYERNORM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "../bf16.h"

struct cpu_ln_stats {
	float mean;
	float rstd;
};

/* Statistics as vectorized_layer_norm_kernel computes them (n % 4 == 0). */
struct cpu_ln_stats cpu_ln_stats_welford(const bf16_t *row, int64_t n, float eps);

/* Two-pass float statistics: sum, mean = sum / n, then the sum of squared
 * deviations; var = ssd / n. Close to, but not bit-equal with, Welford. */
struct cpu_ln_stats cpu_ln_stats_twopass(const bf16_t *row, int64_t n, float eps);

/* One output element: bf16(rstd * (v - mean)), a multiply after a
 * subtract; with affine (w != NULL) bf16(fmaf(w[j], rstd * (v - mean), b[j])),
 * the contraction nvcc makes of gamma * (...) + beta. */
static inline bf16_t cpu_ln_elem(float v, struct cpu_ln_stats st, const bf16_t *w, const bf16_t *b, int64_t j)
{
	float y = st.rstd * (v - st.mean);
	if (w)
		y = fmaf(bf16_to_float(w[j]), y, bf16_to_float(b[j]));
	return bf16_from_float(y);
}

/* Normalises rows rows of n values from x into out; writes each row's mean
 * and rstd when mean/rstd are not NULL; w and b are both NULL (no affine) or
 * both set. twopass picks cpu_ln_stats_twopass over the Welford emulation. */
void cpu_ln_forward(const bf16_t *x, bf16_t *out, float *mean, float *rstd, int64_t rows, int64_t n, float eps,
		    const bf16_t *w, const bf16_t *b, bool twopass);

#endif
