/*
 * layernorm.c - row statistics and the row loop of the CPU LayerNorm.
 *
 * Compiled with -ffp-contract=off; see layernorm.h for the arithmetic.
 */
#include "layernorm.h"

#include "cpu_target.h"
#include "welford.h"

/* rstd from var: 1.0f / sqrtf, not the GPU's approximate rsqrtf (see the
 * header); both operations are correctly rounded, so this is portable. */
static float ln_rstd(float var, float eps)
{
	return 1.0f / sqrtf(var + eps);
}

struct cpu_ln_stats cpu_ln_stats_welford(const bf16_t *row, int64_t n, float eps)
{
	float mean, var;
	cpu_welford_row(row, n, &mean, &var);
	return (struct cpu_ln_stats){ mean, ln_rstd(var, eps) };
}

CPU_HOT struct cpu_ln_stats cpu_ln_stats_twopass(const bf16_t *row, int64_t n, float eps)
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
	return (struct cpu_ln_stats){ mean, ln_rstd(ssd / (float)n, eps) };
}

CPU_HOT void cpu_ln_forward(const bf16_t *x, bf16_t *out, float *mean, float *rstd, int64_t rows, int64_t n, float eps,
		    const bf16_t *w, const bf16_t *b, bool twopass)
{
	for (int64_t r = 0; r < rows; r++) {
		const bf16_t *xr = x + r * n;
		bf16_t *orow = out + r * n;
		struct cpu_ln_stats st = twopass ? cpu_ln_stats_twopass(xr, n, eps) : cpu_ln_stats_welford(xr, n, eps);
		for (int64_t j = 0; j < n; j++)
			orow[j] = cpu_ln_elem(bf16_to_float(xr[j]), st, w, b, j);
		if (mean)
			mean[r] = st.mean;
		if (rstd)
			rstd[r] = st.rstd;
	}
}
