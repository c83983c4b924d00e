/*
 * reference.c - residual_gate_add's float64 reference: T = ff * gate,
 * OUT = x + T in double; tolerance 2^-7 (|OUT| + |T|) for the chain's two
 * bf16 roundings (derivation: kernels/common/reference.c).
 */
#include <math.h>

#include "kernels/common/reference.h"
#include "kernels/residual_gate_add/residual_gate_add.h"

/* Rows are tokens (dims.rows = B * T, row_len = W). */
void residual_gate_add_reference(const struct site_args *in, int64_t row_lo, int64_t row_hi, double *const *ref,
				 double *const *tol)
{
	const struct site_dims *d = &in->dims;
	const bf16_t *x = in->t[RGA_X], *ff = in->t[RGA_FF], *gate = in->t[RGA_GATE];
	for (int64_t r = row_lo; r < row_hi; r++) {
		const int64_t vb = (r / d->tokens) * d->width;
		for (int64_t w = 0; w < d->width; w++) {
			int64_t i = r * d->width + w;
			double t = reference_bf(ff, i) * reference_bf(gate, vb + w);
			double out = reference_bf(x, i) + t;
			ref[0][i] = out;
			tol[0][i] = REFERENCE_TOL_BF16 * (fabs(out) + fabs(t)) + REFERENCE_TOL_TINY;
			if (reference_past_bf16(t) || reference_past_bf16(out))
				tol[0][i] = NAN;
		}
	}
}
