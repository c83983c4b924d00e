/*
 * reference.c - qk_layernorm's float64 reference: LayerNorm over each head
 * of q and of k in double (w Y + b with affine); tolerance 2^-7 |Yp| for
 * the one bf16 rounding plus the float statistics' error (derivation:
 * kernels/common/reference.c).
 */
#include <math.h>

#include "kernels/common/reference.h"
#include "kernels/qk_layernorm/qk_layernorm.h"

static void ln_plain_row(const struct site_args *a, const bf16_t *x, double *ref, double *tol)
{
	const int64_t n = a->dims.row_len;
	const bf16_t *w = a->affine ? (const bf16_t *)a->t[QK_WEIGHT] : NULL;
	const bf16_t *b = a->affine ? (const bf16_t *)a->t[QK_BIAS] : NULL;
	struct reference_ln_row r = reference_ln_row_stats(x, n, (double)a->eps);
	if (reference_ln_row_special(&r, n, ref, tol))
		return;
	for (int64_t j = 0; j < n; j++) {
		double y, wj;
		double yp = reference_ln_value(w, b, &r, reference_bf(x, j), j, &y, &wj);
		ref[j] = yp;
		tol[j] = reference_past_bf16(yp) ? NAN
						 : REFERENCE_TOL_BF16 * fabs(yp) + reference_ln_stat_err(&r, y, wj) +
							   REFERENCE_TOL_TINY;
	}
}

void qk_layernorm_reference(const struct site_args *in, int64_t row_lo, int64_t row_hi, double *const *ref,
			    double *const *tol)
{
	const int64_t n = in->dims.row_len;
	const bf16_t *q = in->t[QK_Q], *k = in->t[QK_K];
	for (int64_t r = row_lo; r < row_hi; r++) {
		ln_plain_row(in, q + r * n, ref[0] + r * n, tol[0] + r * n);
		ln_plain_row(in, k + r * n, ref[1] + r * n, tol[1] + r * n);
	}
}
