/*
 * refcheck.h - compares an arm's bf16 output with the float64 reference.
 *
 * The site computes ref and tol (see site_desc.reference). An element
 * passes when tol is NAN (outside float32's range: counted in ref_skipped),
 * when ref is NaN and the output is NaN, when ref is +-Inf and the output is
 * the same infinity, or when |out - ref| <= tol.
 */
#ifndef AB_REFCHECK_H
#define AB_REFCHECK_H

#include <stdint.h>

#include "kernels/common/bf16.h"
#include "common/results.h"

/* Outputs this large are compared on threads (the same figures). */
#define REFCHECK_MIN_ELEMS (1 << 20)

void refcheck_compare(const bf16_t *out, const double *ref, const double *tol, int64_t n, struct results_output *res);

/* refcheck_compare on k threads (k = 0: as refcheck_compare chooses); the
 * same figures for every k, which tests/unit/test_refcheck.c checks. */
void refcheck_compare_k(const bf16_t *out, const double *ref, const double *tol, int64_t n, struct results_output *res,
			int k);

/* An output of a site without a reference: has_ref false, and ref_ok
 * false too, so that nothing can read it as having passed one. */
void refcheck_none(struct results_output *res);

#endif
