/*
 * steps.c - E-divisive means change points with a Welch t noise model,
 * split then merged as Otava (Hunter) does (steps.h says why).
 */
#include "analysis/steps.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

/* ---- Student's t: the regularized incomplete beta function ---- */

/* The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) /
 * (a + b + 2) where it converges fast. */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, dd = 1 - (a + b) * x / (a + 1);
	dd = 1 / (fabs(dd) < tiny ? tiny : dd);
	double h = dd;
	for (int m = 1; m <= 300; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
					 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			dd = 1 + num * dd;
			dd = 1 / (fabs(dd) < tiny ? tiny : dd);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= dd * c;
			if (odd && fabs(dd * c - 1) < 1e-14)
				return h;
		}
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double steps_t_pvalue(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

/* ---- the noise model ---- */

/* The series' own noise from the data, in log units: the largest of the
 * robust estimates from differences at lags 1 to STEPS_MAX_LAG (1.4826 x
 * median |y_i+k - y_i| / sqrt 2: the MAD of a normal is 0.6745 sigma, a
 * difference of two has twice the variance; a step moves a few
 * differences, not their median; nightly runs are autocorrelated, and
 * lag 1 alone reads low). Lag k only where a step spoils at most a quarter
 * of its differences (n - k >= 4k). */
static double series_noise(const double *y, int n)
{
	double s = 0, *w = malloc((size_t)(n > 1 ? n : 1) * sizeof *w);
	if (!w)
		return NAN;
	for (int k = 1; k <= STEPS_MAX_LAG && n - k >= 2 && (k == 1 || n - k >= 4 * k); k++) {
		for (int i = 0; i + k < n; i++)
			w[i] = fabs(y[i + k] - y[i]);
		s = fmax(s, 1.4826 * stats_median(w, n - k) / sqrt(2.0));
	}
	free(w);
	return s;
}

/* The runs' own noise in log units: the median half-width of their 95%
 * intervals over 1.96; 0 without intervals. */
static double run_noise(const double *low, const double *high, int n)
{
	double *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w), s = 0;
	int m = 0;
	if (!w)
		return NAN;
	for (int i = 0; low && high && i < n; i++)
		if (low[i] > 0 && high[i] > low[i] && isfinite(high[i]))
			w[m++] = (log(high[i]) - log(low[i])) / (2 * 1.96);
	if (m)
		s = stats_median(w, m);
	free(w);
	return s;
}

/* Mean and variance (n - 1) of y[a..b), the variance raised to the floor
 * of the noise model (steps.h). */
static void side_stats(const double *y, int a, int b, double noise, double *mean, double *var)
{
	int n = b - a;
	double m = 0, v = 0;
	for (int i = a; i < b; i++)
		m += y[i];
	m /= n;
	for (int i = a; i < b && n > 1; i++)
		v += (y[i] - m) * (y[i] - m);
	v = n > 1 ? v / (n - 1) : 0;
	double floor2 = fmax(noise * noise, STEPS_SIGMA_FLOOR * STEPS_SIGMA_FLOOR);
	*mean = m;
	*var = fmax(v, floor2);
}

/* What the noise model knows of the series: its noise floor for a side's
 * variance, and how much nightly runs resemble their neighbours (lag-1
 * autocorrelation phi: n runs weigh as n (1 - phi) / (1 + phi)). */
struct noise_model {
	double sigma; /* log units */
	double phi;
};

/* Welch's two-sided p for y[a..t) against y[t..b). */
static double welch_p(const double *y, int a, int t, int b, const struct noise_model *nm)
{
	double noise = nm->sigma, inflate = (1 + nm->phi) / (1 - nm->phi);
	double m1, v1, m2, v2;
	int n1 = t - a, n2 = b - t;
	side_stats(y, a, t, noise, &m1, &v1);
	side_stats(y, t, b, noise, &m2, &v2);
	double s1 = inflate * v1 / n1, s2 = inflate * v2 / n2, se = sqrt(s1 + s2);
	if (m1 == m2)
		return 1;
	double df = (s1 + s2) * (s1 + s2) / (s1 * s1 / (n1 - 1) + s2 * s2 / (n2 - 1));
	return steps_t_pvalue((m2 - m1) / se, df);
}

/* ---- E-divisive: the candidate split of a stretch ---- */

/* W(i, j) = sum of |y_k - y_l| over i <= k < l < j, for every 0 <= i <= j
 * <= n, in an (n + 1) x (n + 1) table: W(i, j) = W(i + 1, j) + the sum of
 * |y_i - y_l| for i < l < j, the latter a running sum along j. O(n^2). */
static void within_sums(const double *y, int n, double *w)
{
	size_t m = (size_t)n + 1;
	for (int i = n; i >= 0; i--) {
		double row = 0;
		for (int j = 0; j <= n; j++) {
			if (j <= i + 1) {
				w[(size_t)i * m + (size_t)j] = 0;
				continue;
			}
			row += fabs(y[i] - y[j - 1]);
			w[(size_t)i * m + (size_t)j] = w[(size_t)(i + 1) * m + (size_t)j] + row;
		}
	}
}

/* The candidate of y[a..b): the pair tau < kappa <= b with at least
 * STEPS_MIN_RUNS points in [a, tau) and in [tau, kappa) whose energy
 * statistic Q is the largest (Matteson and James: kappa lets a short
 * excursion inside a long stretch be found); false when the stretch is
 * too short. O(n^2) with the table of within_sums. */
static bool edivisive(const double *w, int len, int a, int b, int *tau, int *kappa, double *q)
{
	size_t m = (size_t)len + 1;
	if (b - a < 2 * STEPS_MIN_RUNS)
		return false;
	*q = -INFINITY;
	for (int t = a + STEPS_MIN_RUNS; t <= b - STEPS_MIN_RUNS; t++)
		for (int k = t + STEPS_MIN_RUNS; k <= b; k++) {
			double n1 = t - a, n2 = k - t;
			double wl = w[(size_t)a * m + (size_t)t], wr = w[(size_t)t * m + (size_t)k];
			double between = w[(size_t)a * m + (size_t)k] - wl - wr;
			double e = 2 * between / (n1 * n2) - wl / (n1 * (n1 - 1) / 2) - wr / (n2 * (n2 - 1) / 2);
			double v = n1 * n2 / (n1 + n2) * e;
			if (v > *q) {
				*q = v;
				*tau = t;
				*kappa = k;
			}
		}
	return true;
}

/* ---- split and merge ---- */

struct cps {
	int n;
	int *at;      /* change points, ascending: segment k is [at[k-1], at[k]) with at[-1] = 0, at[n] = len */
	bool *done;   /* [n + 1]: stretch k's candidate failed (split phase) */
	int len;
};

static int seg_start(const struct cps *c, int k)
{
	return k ? c->at[k - 1] : 0;
}

static int seg_end(const struct cps *c, int k)
{
	return k < c->n ? c->at[k] : c->len;
}

static void cps_insert(struct cps *c, int k, int tau)
{
	memmove(c->at + k + 1, c->at + k, (size_t)(c->n - k) * sizeof *c->at);
	memmove(c->done + k + 1, c->done + k, (size_t)(c->n + 1 - k) * sizeof *c->done);
	c->at[k] = tau;
	c->done[k] = c->done[k + 1] = false;
	c->n++;
}

static void cps_remove(struct cps *c, int k)
{
	memmove(c->at + k, c->at + k + 1, (size_t)(c->n - k - 1) * sizeof *c->at);
	c->n--;
}

/* Split: the best candidate of all stretches, tested between its two
 * sides ([start, tau) against [tau, kappa)); a significant one splits its
 * stretch at tau, a failing one closes the stretch. */
static void split_all(const double *y, const double *w, const struct noise_model *nm, struct cps *c)
{
	for (;;) {
		int best_k = -1, best_tau = 0, best_kappa = 0;
		double best_q = -INFINITY;
		for (int k = 0; k <= c->n; k++) {
			int tau = 0, kappa = 0;
			double q;
			if (!c->done[k] && edivisive(w, c->len, seg_start(c, k), seg_end(c, k), &tau, &kappa, &q) &&
			    q > best_q) {
				best_q = q;
				best_k = k;
				best_tau = tau;
				best_kappa = kappa;
			}
		}
		if (best_k < 0)
			return;
		if (welch_p(y, seg_start(c, best_k), best_tau, best_kappa, nm) < STEPS_SPLIT_PVALUE)
			cps_insert(c, best_k, best_tau);
		else
			c->done[best_k] = true;
	}
}

static double median_of(const double *values, int a, int b)
{
	return stats_median(values + a, b - a);
}

/* The typical interval of points [a, b): the medians of their lower and
 * of their upper bounds (a point without an interval counts its value). */
static void typical_interval(const double *values, const double *low, const double *high, int a, int b, double *lo,
			    double *hi, double *buf)
{
	for (int pass = 0; pass < 2; pass++) {
		const double *bound = pass ? high : low;
		for (int i = a; i < b; i++) {
			double v = bound ? bound[i] : NAN;
			buf[i - a] = v > 0 && isfinite(v) ? v : values[i];
		}
		*(pass ? hi : lo) = stats_median(buf, b - a);
	}
}

/* What the merge weighs of change point k: its p, change and whether the
 * runs' intervals of its two sides overlap. */
struct cp_test {
	double p, change;
	bool overlap;
};

static struct cp_test test_cp(const double *values, const double *low, const double *high, const double *y,
			      const struct noise_model *nm, const struct cps *c, int k, double *buf)
{
	int a = seg_start(c, k), t = c->at[k], b = seg_end(c, k + 1);
	double before = median_of(values, a, t), after = median_of(values, t, b), lo0, hi0, lo1, hi1;
	typical_interval(values, low, high, a, t, &lo0, &hi0, buf);
	typical_interval(values, low, high, t, b, &lo1, &hi1, buf);
	struct cp_test r = { welch_p(y, a, t, b, nm), after / before - 1, after > before ? hi0 >= lo1 : hi1 >= lo0 };
	return r;
}

/* The change point to remove, or -1 when every one passes (steps.h). */
static int weakest(const double *values, const double *low, const double *high, const double *y,
		   const struct noise_model *nm, const struct cps *c, double min_step, double *buf)
{
	int worst_p = -1, small = -1, overlap = -1;
	double max_p = 0, min_small = INFINITY, min_overlap = INFINITY;
	for (int k = 0; k < c->n; k++) {
		struct cp_test t = test_cp(values, low, high, y, nm, c, k, buf);
		double mag = fabs(t.change);
		if (t.p >= STEPS_MAX_PVALUE && t.p > max_p) {
			max_p = t.p;
			worst_p = k;
		}
		if (mag < min_step && mag < min_small) {
			min_small = mag;
			small = k;
		}
		if (t.overlap && mag < min_overlap) {
			min_overlap = mag;
			overlap = k;
		}
	}
	return worst_p >= 0 ? worst_p : small >= 0 ? small : overlap;
}

/* The lag-1 autocorrelation of the runs around their segments' means once
 * split (so that a step is no autocorrelation), pairs within a segment
 * only, in [0, STEPS_MAX_PHI]: how much nightly runs resemble their
 * neighbours, which the merge's tests allow for. */
static double residual_phi(const double *y, const struct cps *c)
{
	double num = 0, den = 0;
	for (int k = 0; k <= c->n; k++) {
		int a = seg_start(c, k), b = seg_end(c, k);
		double m = 0;
		for (int i = a; i < b; i++)
			m += y[i];
		m /= b - a;
		for (int i = a; i < b; i++) {
			den += (y[i] - m) * (y[i] - m);
			if (i > a)
				num += (y[i] - m) * (y[i - 1] - m);
		}
	}
	return den > 0 ? fmin(fmax(num / den, 0), STEPS_MAX_PHI) : 0;
}

/* ---- the result ---- */

static bool fill_result(const double *values, const double *low, const double *high, const double *y,
			const struct noise_model *nm, const struct cps *c, struct steps_result *r, double *buf)
{
	r->segments = calloc((size_t)c->n + 1, sizeof *r->segments);
	if (!r->segments)
		return false;
	r->n_segments = c->n + 1;
	for (int k = 0; k <= c->n; k++) {
		struct steps_segment *sg = &r->segments[k];
		sg->start = seg_start(c, k);
		sg->end = seg_end(c, k);
		sg->level = median_of(values, sg->start, sg->end);
		sg->change = k ? sg->level / r->segments[k - 1].level - 1 : NAN;
		sg->pvalue = k ? test_cp(values, low, high, y, nm, c, k - 1, buf).p : NAN;
	}
	return true;
}

/* Points far from their segment's level: beyond min_step and
 * STEPS_OUTLIER_SIGMAS sigmas (log units). */
static void mark_outliers(struct steps_result *r, const double *values, double min_step)
{
	double bar = fmax(log1p(min_step), STEPS_OUTLIER_SIGMAS * r->sigma);
	for (int k = 0; k < r->n_segments; k++)
		for (int i = r->segments[k].start; i < r->segments[k].end; i++)
			if (fabs(log(values[i] / r->segments[k].level)) > bar)
				r->outliers[r->n_outliers++] = i;
}

static enum ab_rc check_values(const double *values, int n, double min_step, struct ab_diag *d)
{
	if (n < 1 || n > STEPS_MAX_POINTS)
		return ab_fail(d, AB_ERR_DATA, "step detection needs 1 to %d values, not %d", STEPS_MAX_POINTS, n);
	if (!(min_step >= 0))
		return ab_fail(d, AB_ERR_USAGE, "the smallest step must be 0 or more, not %g", min_step);
	for (int i = 0; i < n; i++)
		if (!(values[i] > 0) || !isfinite(values[i]))
			return ab_fail(d, AB_ERR_DATA, "step detection: value %d is %g, not a positive number", i, values[i]);
	return AB_OK;
}

enum ab_rc steps_detect_ci(const double *values, const double *low, const double *high, int n, double min_step,
			  struct steps_result *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	enum ab_rc rc = check_values(values, n, min_step, d);
	if (rc)
		return rc;
	double *y = malloc((size_t)n * sizeof *y), *work = malloc((size_t)(2 * n + 2) * sizeof *work);
	double *w = malloc((size_t)(n + 1) * (size_t)(n + 1) * sizeof *w);
	struct cps c = { 0, malloc((size_t)n * sizeof *c.at), calloc((size_t)n + 1, sizeof *c.done), n };
	out->outliers = calloc((size_t)n, sizeof *out->outliers);
	double runs = run_noise(low, high, n);
	struct noise_model nm = { 0, 0 };
	bool ok = y && work && w && c.at && c.done && out->outliers && !isnan(runs);
	if (ok) {
		for (int i = 0; i < n; i++)
			y[i] = log(values[i]);
		nm.sigma = fmax(runs, series_noise(y, n));
		ok = !isnan(nm.sigma);
	}
	if (ok) {
		within_sums(y, n, w);
		split_all(y, w, &nm, &c);
		nm.phi = residual_phi(y, &c);
		for (int k; (k = weakest(values, low, high, y, &nm, &c, min_step, work)) >= 0;)
			cps_remove(&c, k);
		out->sigma = fmax(nm.sigma, STEPS_SIGMA_FLOOR);
		out->phi = nm.phi;
		ok = fill_result(values, low, high, y, &nm, &c, out, work);
	}
	free(y);
	free(work);
	free(w);
	free(c.at);
	free(c.done);
	if (!ok) {
		steps_free(out);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory detecting steps in %d values", n);
	}
	mark_outliers(out, values, min_step);
	return AB_OK;
}

enum ab_rc steps_detect(const double *values, int n, double min_step, struct steps_result *out, struct ab_diag *d)
{
	return steps_detect_ci(values, NULL, NULL, n, min_step, out, d);
}

void steps_free(struct steps_result *r)
{
	free(r->segments);
	free(r->outliers);
	memset(r, 0, sizeof *r);
}

double steps_change(const struct steps_result *r, int k)
{
	return r->segments[k].level / r->segments[k - 1].level - 1;
}
