/*
 * divergence.h - where a tensor differs from the first A slot's: the
 * walk that the slot's byte comparison does when memcmp says the bytes
 * differ (issue 29), filling a results_divergence (common/results.h):
 * elements that differ, their ULP histogram (common/ulp.h: ordered-integer
 * distance), class mismatches, NaN payloads and sign flips, the largest
 * ULP and the largest absolute difference and the first difference with
 * their elements, the rows touched and the per-row (per-head) map, and,
 * with a float64 reference, which side is nearer it.
 *
 * Rows are the vectors along the tensor's last axis. Tensors of
 * DIVERGENCE_MIN_ELEMS elements or more are walked on threads in parts of
 * whole rows (common/parallel.h), each with its own figures and map,
 * combined in part order: the same figures, bit for bit, with any number
 * of threads (sums of integers; a maximum taken only when strictly
 * larger, so the first element at it is kept; the first difference from
 * the first part that has one). A row equal in both (memcmp) costs
 * nothing more.
 */
#ifndef AB_DIVERGENCE_H
#define AB_DIVERGENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"
#include "kernels/common/site.h"

/* Tensors this large are walked on threads (the same figures). */
#define DIVERGENCE_MIN_ELEMS (1 << 20)

struct divergence_input {
	enum site_dtype dtype;
	const void *a, *b;      /* the first A slot's bytes, this slot's: elems elements each */
	int64_t elems;
	int rank;               /* the tensor's shape, outermost first (rank 0: a scalar) */
	int64_t shape[SITE_MAX_RANK];
	const double *ref;      /* the float64 reference, elems values; NULL: none */
};

/* Compares in; *differs false when the bytes are equal (out untouched),
 * else out's figures filled (its names, role, dtype, stage, axes and dims
 * are the caller's; map malloc'd). k threads, k <= 0: as the size chooses.
 * AB_ERR_NOMEM when the map cannot be allocated. */
enum ab_rc divergence_compare(const struct divergence_input *in, int k, bool *differs, struct results_divergence *out,
			      struct ab_diag *d);

#endif
