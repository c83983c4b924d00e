/*
 * reference.h - what the sites' float64 references share
 * (site_desc.reference): the LayerNorm row statistics in double, the
 * tolerance terms and the range limits. The derivation of every tolerance
 * is at the top of reference.c; each site's reference.c adds its chain.
 *
 * A reference computes, from the same bf16 inputs, the exact result in
 * double of every SITE_OUT tensor and the absolute tolerance a correct
 * float32/bf16 chain may show at each element. tol is NAN where float32
 * leaves its range and no comparison is meaningful; ref is NaN where the
 * float chain must give NaN. ref[o] and tol[o] hold site_tensor_elems
 * elements of the o-th SITE_OUT tensor, in tensor-table order.
 */
#ifndef AB_REFERENCE_H
#define AB_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/common/bf16.h"

#define REFERENCE_TOL_BF16 0x1p-7  /* twice the bf16 unit roundoff */
#define REFERENCE_TOL_TINY 0x1p-126 /* roundings in the subnormal range */

/* Exact double statistics of one LayerNorm row and whether float32 can
 * follow them. */
struct reference_ln_row {
	double mean, rstd, maxabs;
	bool nonfinite; /* NaN or Inf in the row: the float chain gives NaN */
	bool skip;      /* float32 statistics leave their range */
};

static inline double reference_bf(const bf16_t *p, int64_t i)
{
	return (double)bf16_to_float(p[i]);
}

struct reference_ln_row reference_ln_row_stats(const bf16_t *x, int64_t n, double eps);

/* For a row that cannot be compared elementwise (NaN expected, or float
 * out of range) fills ref/tol for its n elements and returns true. */
bool reference_ln_row_special(const struct reference_ln_row *r, int64_t n, double *ref, double *tol);

/* Element j's normalised value: Y = (v - mean) rstd, or with affine
 * (w, b not NULL) w[j] Y + b[j]; *y_out gets Y, *w_out w[j] (1 without). */
double reference_ln_value(const bf16_t *w, const bf16_t *b, const struct reference_ln_row *r, double v, int64_t j,
			  double *y_out, double *w_out);

/* The float32-statistics error in one LayerNorm output element. */
double reference_ln_stat_err(const struct reference_ln_row *r, double y, double w);

/* Whether a finite value lies beyond the largest finite bf16 (the float
 * chain overflows to Inf there, double does not). */
bool reference_past_bf16(double v);

#endif
