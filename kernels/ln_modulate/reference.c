/*
 * reference.c - ln_modulate's float64 reference: Y = LayerNorm(x) in
 * double (w Y + b with affine), Z = Y (1 + scale), OUT = Z + shift; the
 * tolerance 2^-7 (|OUT| + 3 |Z|) for the chain's four bf16 roundings plus
 * the float statistics' error scaled by |1 + scale| (derivation:
 * kernels/common/reference.c).
 */
#include <math.h>

#include "kernels/common/reference.h"
#include "kernels/ln_modulate/ln_modulate.h"

static const bf16_t *bf(const struct site_args *a, int i)
{
	return (const bf16_t *)a->t[i];
}

static void ln_modulate_row(const struct site_args *a, int64_t row, double *ref, double *tol)
{
	const int64_t n = a->dims.row_len;
	const bf16_t *x = bf(a, LNM_X) + row * n;
	const int64_t vb = (row / a->dims.tokens) * n;
	const bf16_t *w = a->affine ? bf(a, LNM_WEIGHT) : NULL, *b = a->affine ? bf(a, LNM_BIAS) : NULL;
	struct reference_ln_row r = reference_ln_row_stats(x, n, (double)a->eps);
	if (reference_ln_row_special(&r, n, ref, tol))
		return;
	for (int64_t j = 0; j < n; j++) {
		double y, wj;
		double yp = reference_ln_value(w, b, &r, reference_bf(x, j), j, &y, &wj);
		double s1 = 1.0 + reference_bf(bf(a, LNM_SCALE), vb + j);
		double z = yp * s1;
		double out = z + reference_bf(bf(a, LNM_SHIFT), vb + j);
		ref[j] = out;
		tol[j] = REFERENCE_TOL_BF16 * (fabs(out) + 3.0 * fabs(z)) + fabs(s1) * reference_ln_stat_err(&r, y, wj) +
			 REFERENCE_TOL_TINY;
		if (reference_past_bf16(yp) || reference_past_bf16(s1) || reference_past_bf16(z) ||
		    reference_past_bf16(out))
			tol[j] = NAN;
	}
}

void ln_modulate_reference(const struct site_args *in, int64_t row_lo, int64_t row_hi, double *const *ref,
			   double *const *tol)
{
	const int64_t n = in->dims.row_len;
	for (int64_t r = row_lo; r < row_hi; r++)
		ln_modulate_row(in, r, ref[0] + r * n, tol[0] + r * n);
}
