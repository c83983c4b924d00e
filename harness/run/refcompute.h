/*
 * refcompute.h - a case's float64 reference (site_desc.reference), its
 * rows split over threads.
 *
 * Each row's reference is computed from the inputs alone, by the same
 * arithmetic whichever thread runs it, so the ref and tol arrays hold the
 * serial code's bytes for any thread count (tests/unit/test_refcompute.c
 * compares them). A case below REFCOMPUTE_MIN_ELEMS output elements runs
 * on the caller's thread.
 */
#ifndef AB_REFCOMPUTE_H
#define AB_REFCOMPUTE_H

#include <stdint.h>

#include "kernels/common/site.h"

#define REFCOMPUTE_MIN_ELEMS (1 << 20)

/* s->reference over every row of a->dims on k threads; k = 0 chooses
 * (common/parallel.h, par_threads). s->reference must not be NULL. */
void refcompute_run(const struct site_desc *s, const struct site_args *a, double *const *ref, double *const *tol,
		    int k);

#endif
