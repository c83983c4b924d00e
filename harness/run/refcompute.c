/*
 * refcompute.c - refcompute_run: the reference's rows in k contiguous
 * ranges, one per thread (refcompute.h). On glm_1024 the references took
 * about a fifth of "inputs and reference" on one thread.
 */
#include "run/refcompute.h"

#include "common/parallel.h"

struct refcompute_ctx {
	const struct site_desc *s;
	const struct site_args *a;
	double *const *ref, *const *tol;
};

static void refcompute_part(void *ctx, int64_t lo, int64_t hi, int part)
{
	const struct refcompute_ctx *c = ctx;
	(void)part;
	c->s->reference(c->a, lo, hi, c->ref, c->tol);
}

void refcompute_run(const struct site_desc *s, const struct site_args *a, double *const *ref, double *const *tol,
		    int k)
{
	struct refcompute_ctx c = { s, a, ref, tol };
	int64_t rows = a->dims.rows;
	if (k <= 0)
		k = par_threads(rows, rows * a->dims.row_len, REFCOMPUTE_MIN_ELEMS);
	par_for(rows, k, refcompute_part, &c);
}
