/*
 * refcheck.c - compares an arm's bf16 output with the float64 reference
 * (semantics in refcheck.h).
 *
 * Error of an element: 0 when ref and out are both NaN or the same
 * infinity; +Inf when exactly one of them is NaN or infinite (or the
 * infinities differ); else |out - ref|. max_abs_err and max_err_ratio
 * cover the comparable elements (tol not NaN) and so can be +Inf.
 *
 * Outputs of REFCHECK_MIN_ELEMS elements or more are compared in
 * contiguous parts on threads (common/parallel.h), whose figures are
 * combined into exactly the serial ones (refcheck_compare_k).
 */
#include "run/refcheck.h"

#include <math.h>
#include <stdbool.h>

#include "common/parallel.h"

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

/* One part's figures: the maxima, whether every element passed, the
 * elements skipped. */
struct refcheck_part {
	double max_abs_err, max_err_ratio;
	bool ok;
	int64_t skipped;
};

struct refcheck_ctx {
	const bf16_t *out;
	const double *ref, *tol;
	struct refcheck_part part[PAR_THREADS_MAX];
};

static void refcheck_range(void *ctx, int64_t lo, int64_t hi, int part)
{
	struct refcheck_ctx *c = ctx;
	struct refcheck_part r = { 0.0, 0.0, true, 0 };
	for (int64_t i = lo; i < hi; i++) {
		if (isnan(c->tol[i])) {
			r.skipped++;
			continue;
		}
		double err = elem_err((double)bf16_to_float(c->out[i]), c->ref[i]);
		if (!(err <= c->tol[i]))
			r.ok = false;
		r.max_abs_err = fmax(r.max_abs_err, err);
		r.max_err_ratio = fmax(r.max_err_ratio, err_ratio(err, c->tol[i]));
	}
	c->part[part] = r;
}

/* The parts combined in part order. fmax ignores NaN (an Inf / Inf ratio)
 * and is otherwise the maximum, so the maxima do not depend on the split:
 * one thread's figures, bit for bit. */
void refcheck_compare_k(const bf16_t *out, const double *ref, const double *tol, int64_t n, struct results_output *res,
			int k)
{
	struct refcheck_ctx c = { .out = out, .ref = ref, .tol = tol };
	if (k <= 0)
		k = par_threads(n, n, REFCHECK_MIN_ELEMS);
	if (k > PAR_THREADS_MAX)
		k = PAR_THREADS_MAX;
	par_for(n, k, refcheck_range, &c);
	res->max_abs_err = 0.0;
	res->max_err_ratio = 0.0;
	res->has_ref = true;
	res->ref_ok = true;
	res->ref_skipped = 0;
	for (int p = 0; p < k; p++) {
		res->max_abs_err = fmax(res->max_abs_err, c.part[p].max_abs_err);
		res->max_err_ratio = fmax(res->max_err_ratio, c.part[p].max_err_ratio);
		res->ref_ok = res->ref_ok && c.part[p].ok;
		res->ref_skipped += c.part[p].skipped;
	}
}

void refcheck_compare(const bf16_t *out, const double *ref, const double *tol, int64_t n, struct results_output *res)
{
	refcheck_compare_k(out, ref, tol, n, res, 0);
}

void refcheck_none(struct results_output *res)
{
	res->has_ref = false;
	res->ref_ok = false;
	res->ref_skipped = 0;
	res->max_abs_err = NAN;
	res->max_err_ratio = NAN;
}
