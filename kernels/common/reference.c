/*
 * reference.c - the float64 LayerNorm statistics and tolerances the sites'
 * references share (reference.h).
 *
 * The reference is the exact math in double from the same bf16 inputs:
 * LayerNorm with the double mean and population variance,
 * Y = (x - mean) / sqrt(var + eps), Yp = w * Y + b with affine, then
 * Z = Yp * (1 + scale), OUT = Z + shift; or T = ff * gate, OUT = x + T.
 *
 * Tolerance: how far a correct float32/bf16 chain may land from it.
 *
 *  - bf16 rounding: RNE to 8 significant bits errs by at most half an ulp,
 *    u = 2^-8 of the value (a value in [2^e, 2^(e+1)) has ulp 2^(e-7)).
 *    Each rounding of the chain is first-order in u; propagated to the
 *    output (to first order, with S1 = 1 + scale):
 *      y = bf16(LayerNorm)      -> u |Yp| |S1| = u |Z|
 *      s1 = bf16(1 + scale)     -> u |S1| |Yp| = u |Z|
 *      z = bf16(y * s1)         -> u |Z|
 *      out = bf16(z + shift)    -> u |OUT|
 *    We allow twice that, 2^-7 (|OUT| + 3 |Z|), which also covers the
 *    second-order terms and roundings measured on the computed rather than
 *    the exact values. The residual chain gives 2^-7 (|OUT| + |T|); the
 *    plain LayerNorm (qk) 2^-7 |Yp|.
 *  - float32 statistics: Welford in float leaves the mean off by a few
 *    float ulps of the row's largest |x| (8 ulps allowed: 16 * 2^-24
 *    * max|x|, as ulp(x) <= 2^-23 |x|), which the LayerNorm multiplies by
 *    rstd; the same shifted deviations perturb the variance by a relative
 *    max|x| * 2^-23 / std, i.e. rstd by that times |Y| in the output. And
 *    rstd itself carries a relative error (float variance, the GPU's
 *    approximate rsqrtf): 2^-16 |Y| allowed. All scaled by |w| and |S1|:
 *      e_stat = |w| (2^-20 max|x| rstd (1 + |Y|) + 2^-16 |Y|).
 *    This term matters where the bf16 terms vanish: constant rows (Y = 0,
 *    but mean off by an ulp times rstd = 1/sqrt(eps) ~ 316), and rows with a
 *    large offset against a small spread.
 *  - 2^-126 absolute for roundings in the subnormal range.
 *
 * Not comparable (tol = NAN): rows where float32 leaves its range, that is
 * any |x| > 2^60, or 4 N max|x|^2 > FLT_MAX (a bound on the row's sum of
 * squares and on the combine's delta^2 * count, which float must hold), or
 * the double sum of squared deviations > FLT_MAX; and elements whose exact
 * intermediate or result lies beyond the largest finite bf16, where the
 * float chain overflows to Inf and double does not.
 *
 * NaN or Inf in a LayerNorm row makes the float Welford state NaN for the
 * whole row (Inf - Inf in the variance), so ref is NaN for every element of
 * such a row. Elsewhere NaN/Inf propagate by IEEE double arithmetic, which
 * gives what float gives.
 */
#include "kernels/common/reference.h"

#include <float.h>
#include <math.h>

#define TOL_MEAN 0x1p-20    /* 16 * 2^-24: 8 float ulps of max|x| in the mean */
#define TOL_RSTD 0x1p-16    /* relative error of rstd */
#define RANGE_X 0x1p60
#define BF16_MAX 0x1.FEp127 /* 0x7F7F, the largest finite bf16 */

struct reference_ln_row reference_ln_row_stats(const bf16_t *x, int64_t n, double eps)
{
	struct reference_ln_row r = { 0 };
	double sum = 0.0, ssd = 0.0;
	for (int64_t j = 0; j < n; j++) {
		double v = reference_bf(x, j);
		if (!isfinite(v))
			r.nonfinite = true;
		r.maxabs = fmax(r.maxabs, fabs(v));
		sum += v;
	}
	if (r.nonfinite)
		return r;
	r.mean = sum / (double)n;
	for (int64_t j = 0; j < n; j++) {
		double dv = reference_bf(x, j) - r.mean;
		ssd += dv * dv;
	}
	r.rstd = 1.0 / sqrt(ssd / (double)n + eps);
	r.skip = r.maxabs > RANGE_X || 4.0 * (double)n * r.maxabs * r.maxabs > FLT_MAX || ssd > FLT_MAX;
	return r;
}

double reference_ln_stat_err(const struct reference_ln_row *r, double y, double w)
{
	return fabs(w) * (TOL_MEAN * r->maxabs * r->rstd * (1.0 + fabs(y)) + TOL_RSTD * fabs(y));
}

bool reference_past_bf16(double v)
{
	return isfinite(v) && fabs(v) > BF16_MAX;
}

bool reference_ln_row_special(const struct reference_ln_row *r, int64_t n, double *ref, double *tol)
{
	if (!r->nonfinite && !r->skip)
		return false;
	for (int64_t j = 0; j < n; j++) {
		ref[j] = r->nonfinite ? NAN : 0.0;
		tol[j] = r->nonfinite ? 0.0 : NAN;
	}
	return true;
}

double reference_ln_value(const bf16_t *w, const bf16_t *b, const struct reference_ln_row *r, double v, int64_t j,
			  double *y_out, double *w_out)
{
	double y = (v - r->mean) * r->rstd;
	*y_out = y;
	*w_out = 1.0;
	if (!w)
		return y;
	*w_out = reference_bf(w, j);
	return *w_out * y + reference_bf(b, j);
}
