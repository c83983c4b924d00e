/*
 * layernorm.c - row statistics and the row loop of the CPU LayerNorm.
 *
 * Compiled with -ffp-contract=off; see layernorm.h for the arithmetic.
 */
#include "kernels/common/layernorm.h"

#include "kernels/common/cpu_target.h"
#include "kernels/common/welford.h"

/* rstd from var: 1.0f / sqrtf, not the GPU's approximate rsqrtf (see the
 * header); both operations are correctly rounded, so this is portable. */
static float ln_rstd(float var, float eps)
{
	return 1.0f / sqrtf(var + eps);
}

CPU_HOT static struct layernorm_stats stats_twopass(const bf16_t *row, int64_t n, float eps)
{
	float sum = 0.f;
	for (int64_t j = 0; j < n; j++)
		sum += bf16_to_float(row[j]);
	float mean = sum / (float)n;
	float ssd = 0.f;
	for (int64_t j = 0; j < n; j++) {
		float d = bf16_to_float(row[j]) - mean;
		ssd += d * d;
	}
	return (struct layernorm_stats){ mean, ln_rstd(ssd / (float)n, eps) };
}

struct layernorm_stats layernorm_stats(const bf16_t *row, int64_t n, float eps, enum layernorm_method method)
{
	float mean, var;
	switch (method) {
	case LAYERNORM_TWOPASS:
		return stats_twopass(row, n, eps);
	case LAYERNORM_FUSED:
		welford_row_fused(row, n, &mean, &var);
		break;
	default:
		welford_row(row, n, &mean, &var);
		break;
	}
	return (struct layernorm_stats){ mean, ln_rstd(var, eps) };
}

/* Two loops, so that each is a plain vectorizable loop over the row. */
CPU_HOT void layernorm_row(const bf16_t *x, bf16_t *out, int64_t n, struct layernorm_stats st, const bf16_t *w,
			   const bf16_t *b)
{
	if (w) {
		for (int64_t j = 0; j < n; j++)
			out[j] = layernorm_elem(bf16_to_float(x[j]), st, w, b, j);
	} else {
		for (int64_t j = 0; j < n; j++)
			out[j] = layernorm_elem(bf16_to_float(x[j]), st, NULL, NULL, j);
	}
}

void layernorm_forward(const bf16_t *x, bf16_t *out, float *mean, float *rstd, int64_t rows, int64_t n, float eps,
		       const bf16_t *w, const bf16_t *b, enum layernorm_method method)
{
	for (int64_t r = 0; r < rows; r++) {
		struct layernorm_stats st = layernorm_stats(x + r * n, n, eps, method);
		layernorm_row(x + r * n, out + r * n, n, st, w, b);
		if (mean)
			mean[r] = st.mean;
		if (rstd)
			rstd[r] = st.rstd;
	}
}
