/*
 * refcheck.c - compares an arm's bf16 output with the float64 reference
 * (semantics in refcheck.h).
 *
 * Error of an element: 0 when ref and out are both NaN or the same
 * infinity; +Inf when exactly one of them is NaN or infinite (or the
 * infinities differ); else |out - ref|. max_abs_err and max_err_ratio
 * cover the comparable elements (tol not NaN) and so can be +Inf.
 */
#include "run/refcheck.h"

#include <math.h>

static double elem_err(double out, double ref)
{
	if (isnan(ref) || isnan(out))
		return isnan(ref) && isnan(out) ? 0.0 : INFINITY;
	if (isinf(ref) || isinf(out))
		return ref == out ? 0.0 : INFINITY;
	return fabs(out - ref);
}

/* err / tol, with 0 / 0 = 0 and err / 0 = +Inf. */
static double err_ratio(double err, double tol)
{
	if (err == 0.0)
		return 0.0;
	return tol > 0.0 ? err / tol : INFINITY;
}

void refcheck_compare(const bf16_t *out, const double *ref, const double *tol, int64_t n, struct results_output *res)
{
	res->max_abs_err = 0.0;
	res->max_err_ratio = 0.0;
	res->has_ref = true;
	res->ref_ok = true;
	res->ref_skipped = 0;
	for (int64_t i = 0; i < n; i++) {
		if (isnan(tol[i])) {
			res->ref_skipped++;
			continue;
		}
		double err = elem_err((double)bf16_to_float(out[i]), ref[i]);
		if (!(err <= tol[i]))
			res->ref_ok = false;
		res->max_abs_err = fmax(res->max_abs_err, err);
		res->max_err_ratio = fmax(res->max_err_ratio, err_ratio(err, tol[i]));
	}
}

void refcheck_none(struct results_output *res)
{
	res->has_ref = false;
	res->ref_ok = false;
	res->ref_skipped = 0;
	res->max_abs_err = NAN;
	res->max_err_ratio = NAN;
}
