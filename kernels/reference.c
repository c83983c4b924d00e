/*
 * reference.c - float64 references and their tolerances (site_desc.reference).
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
#include "reference.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "bf16.h"
#include "site_layout.h"

#define TOL_BF16 0x1p-7     /* twice the bf16 unit roundoff */
#define TOL_MEAN 0x1p-20    /* 16 * 2^-24: 8 float ulps of max|x| in the mean */
#define TOL_RSTD 0x1p-16    /* relative error of rstd */
#define TOL_TINY 0x1p-126
#define RANGE_X 0x1p60
#define BF16_MAX 0x1.FEp127 /* 0x7F7F, the largest finite bf16 */

struct ref_row {
	double mean, rstd, maxabs;
	bool nonfinite; /* NaN or Inf in the row: the float chain gives NaN */
	bool skip;      /* float32 statistics leave their range */
};

static const bf16_t *bf(const struct site_args *a, int i)
{
	return (const bf16_t *)a->t[i];
}

static double bfd(const bf16_t *p, int64_t i)
{
	return (double)bf16_to_float(p[i]);
}

/* Exact double statistics of one row and whether float can follow it. */
static struct ref_row ref_row_stats(const bf16_t *x, int64_t n, double eps)
{
	struct ref_row r = { 0 };
	double sum = 0.0, ssd = 0.0;
	for (int64_t j = 0; j < n; j++) {
		double v = bfd(x, j);
		if (!isfinite(v))
			r.nonfinite = true;
		r.maxabs = fmax(r.maxabs, fabs(v));
		sum += v;
	}
	if (r.nonfinite)
		return r;
	r.mean = sum / (double)n;
	for (int64_t j = 0; j < n; j++) {
		double dv = bfd(x, j) - r.mean;
		ssd += dv * dv;
	}
	r.rstd = 1.0 / sqrt(ssd / (double)n + eps);
	r.skip = r.maxabs > RANGE_X || 4.0 * (double)n * r.maxabs * r.maxabs > FLT_MAX || ssd > FLT_MAX;
	return r;
}

/* Float32 statistics error in one LayerNorm output element (see the top). */
static double stat_err(const struct ref_row *r, double y, double w)
{
	return fabs(w) * (TOL_MEAN * r->maxabs * r->rstd * (1.0 + fabs(y)) + TOL_RSTD * fabs(y));
}

static bool past_bf16(double v)
{
	return isfinite(v) && fabs(v) > BF16_MAX;
}

/* Fills one row's elements for a row that cannot be compared elementwise:
 * NaN expected (nonfinite), or no comparison at all (skip). */
static bool ref_row_special(const struct ref_row *r, int64_t n, double *ref, double *tol)
{
	if (!r->nonfinite && !r->skip)
		return false;
	for (int64_t j = 0; j < n; j++) {
		ref[j] = r->nonfinite ? NAN : 0.0;
		tol[j] = r->nonfinite ? 0.0 : NAN;
	}
	return true;
}

/* Normalised value of element j (with affine: w * Y + b); *w_out gets w. */
static double ln_value(const struct site_args *a, int wi, int bi, const struct ref_row *r, double v, int64_t j,
		       double *y_out, double *w_out)
{
	double y = (v - r->mean) * r->rstd;
	*y_out = y;
	*w_out = 1.0;
	if (!a->affine)
		return y;
	*w_out = bfd(bf(a, wi), j);
	return *w_out * y + bfd(bf(a, bi), j);
}

static void ln_modulate_row(const struct site_args *a, int64_t row, double *ref, double *tol)
{
	const int64_t n = a->dims.row_len;
	const bf16_t *x = bf(a, LNM_X) + row * n;
	const int64_t vb = (row / a->dims.tokens) * n;
	struct ref_row r = ref_row_stats(x, n, (double)a->eps);
	if (ref_row_special(&r, n, ref, tol))
		return;
	for (int64_t j = 0; j < n; j++) {
		double y, w;
		double yp = ln_value(a, LNM_WEIGHT, LNM_BIAS, &r, bfd(x, j), j, &y, &w);
		double s1 = 1.0 + bfd(bf(a, LNM_SCALE), vb + j);
		double z = yp * s1;
		double out = z + bfd(bf(a, LNM_SHIFT), vb + j);
		ref[j] = out;
		tol[j] = TOL_BF16 * (fabs(out) + 3.0 * fabs(z)) + fabs(s1) * stat_err(&r, y, w) + TOL_TINY;
		if (past_bf16(yp) || past_bf16(s1) || past_bf16(z) || past_bf16(out))
			tol[j] = NAN;
	}
}

void reference_ln_modulate(const struct site_args *in, double *const *ref, double *const *tol)
{
	const int64_t n = in->dims.row_len;
	for (int64_t r = 0; r < in->dims.rows; r++)
		ln_modulate_row(in, r, ref[0] + r * n, tol[0] + r * n);
}

static void ln_plain_row(const struct site_args *a, const bf16_t *x, double *ref, double *tol)
{
	const int64_t n = a->dims.row_len;
	struct ref_row r = ref_row_stats(x, n, (double)a->eps);
	if (ref_row_special(&r, n, ref, tol))
		return;
	for (int64_t j = 0; j < n; j++) {
		double y, w;
		double yp = ln_value(a, QK_WEIGHT, QK_BIAS, &r, bfd(x, j), j, &y, &w);
		ref[j] = yp;
		tol[j] = past_bf16(yp) ? NAN : TOL_BF16 * fabs(yp) + stat_err(&r, y, w) + TOL_TINY;
	}
}

void reference_qk_layernorm(const struct site_args *in, double *const *ref, double *const *tol)
{
	const int64_t n = in->dims.row_len;
	for (int64_t r = 0; r < in->dims.rows; r++) {
		ln_plain_row(in, bf(in, QK_Q) + r * n, ref[0] + r * n, tol[0] + r * n);
		ln_plain_row(in, bf(in, QK_K) + r * n, ref[1] + r * n, tol[1] + r * n);
	}
}

void reference_residual_gate_add(const struct site_args *in, double *const *ref, double *const *tol)
{
	const struct site_dims *d = &in->dims;
	const bf16_t *x = bf(in, RGA_X), *ff = bf(in, RGA_FF), *gate = bf(in, RGA_GATE);
	for (int64_t r = 0; r < d->batch * d->tokens; r++) {
		const int64_t vb = (r / d->tokens) * d->width;
		for (int64_t w = 0; w < d->width; w++) {
			int64_t i = r * d->width + w;
			double t = bfd(ff, i) * bfd(gate, vb + w);
			double out = bfd(x, i) + t;
			ref[0][i] = out;
			tol[0][i] = TOL_BF16 * (fabs(out) + fabs(t)) + TOL_TINY;
			if (past_bf16(t) || past_bf16(out))
				tol[0][i] = NAN;
		}
	}
}
