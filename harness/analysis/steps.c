/*
 * steps.c - asv-style step detection: penalized L1 segmentation of log
 * values by exact dynamic programming, then merging of steps under
 * min_step and of single-point excursions (steps.h says why).
 */
#include "analysis/steps.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

/* The series' noise in log units, from the data (steps.h): the largest
 * of the robust estimates from differences at lags 1 to STEPS_MAX_LAG
 * (1.4826 x median |y_i+k - y_i| / sqrt 2: the MAD of a normal is 0.6745
 * sigma, and a difference of two independent values has twice the
 * variance; under positive autocorrelation nearby runs look alike and lag 1
 * alone reads low) and of the runs' own sampling noise (the median
 * half-width of their 95% intervals over 1.96, in log units). At least
 * STEPS_SIGMA_FLOOR, a guard for noiseless series. */
static double noise_of(const double *y, const double *low, const double *high, int n)
{
	double s = 0, *w = malloc((size_t)(n > 1 ? n : 1) * sizeof *w);
	if (!w)
		return NAN;
	/* lag k only where a step spoils at most a quarter of its differences
	 * (k of the n - k cross each step), so that the median stays robust */
	for (int k = 1; k <= STEPS_MAX_LAG && n - k >= 2 && (k == 1 || n - k >= 4 * k); k++) {
		for (int i = 0; i + k < n; i++)
			w[i] = fabs(y[i + k] - y[i]);
		s = fmax(s, 1.4826 * stats_median(w, n - k) / sqrt(2.0));
	}
	int m = 0;
	for (int i = 0; low && high && i < n; i++)
		if (low[i] > 0 && high[i] > low[i] && isfinite(high[i]))
			w[m++] = (log(high[i]) - log(low[i])) / (2 * 1.96);
	if (m)
		s = fmax(s, stats_median(w, m));
	free(w);
	return fmax(s, STEPS_SIGMA_FLOOR);
}

/* Inserts v into the sorted s[0..m) (room for one more). */
static void insert_sorted(double *s, int m, double v)
{
	int k = m;
	while (k > 0 && s[k - 1] > v) {
		s[k] = s[k - 1];
		k--;
	}
	s[k] = v;
}

/* sum |s_k - median| over sorted s[0..m): the upper half minus the lower. */
static double l1_cost(const double *s, int m)
{
	double c = 0;
	for (int k = 0; k < m / 2; k++)
		c += s[m - 1 - k] - s[k];
	return c;
}

/* Optimal partitioning: best[j] = min over i < j of best[i] + cost(i, j) +
 * beta; from[j] is that i. Ties go to the earlier (longer) segment. */
static bool partition(const double *y, int n, double beta, int *from)
{
	double *best = malloc((size_t)(n + 1) * sizeof *best), *s = malloc((size_t)n * sizeof *s);
	if (!best || !s) {
		free(best);
		free(s);
		return false;
	}
	best[0] = -beta;
	for (int j = 1; j <= n; j++) {
		best[j] = INFINITY;
		from[j] = 0;
		for (int i = j - 1, m = 0; i >= 0; i--, m++) {
			insert_sorted(s, m, y[i]);
			/* every segment holds STEPS_MIN_RUNS points, or is the whole series */
			bool whole = i == 0 && j == n;
			if ((j - i < STEPS_MIN_RUNS && !whole) || !isfinite(best[i]))
				continue;
			double v = best[i] + l1_cost(s, m + 1) + beta;
			if (v <= best[j] + 1e-12 * fabs(best[j] + 1)) {
				best[j] = v;
				from[j] = i;
			}
		}
	}
	free(best);
	free(s);
	return true;
}

static double level_of(const double *values, int start, int end)
{
	return stats_median(values + start, end - start);
}

/* Segments from the back-pointers, in order. */
static bool segments_of(const double *values, int n, const int *from, struct steps_result *r)
{
	int k = 0;
	for (int j = n; j > 0; j = from[j])
		k++;
	r->segments = calloc((size_t)k, sizeof *r->segments);
	if (!r->segments)
		return false;
	r->n_segments = k;
	for (int j = n; j > 0; j = from[j]) {
		struct steps_segment *sg = &r->segments[--k];
		sg->start = from[j];
		sg->end = j;
		sg->level = level_of(values, sg->start, sg->end);
	}
	return true;
}

/* Merges segments k and k + 1 (and, with three, k + 2) into k. */
static void merge(struct steps_result *r, const double *values, int k, int count)
{
	struct steps_segment *sg = r->segments;
	sg[k].end = sg[k + count - 1].end;
	sg[k].level = level_of(values, sg[k].start, sg[k].end);
	memmove(&sg[k + 1], &sg[k + count], (size_t)(r->n_segments - k - count) * sizeof *sg);
	r->n_segments -= count - 1;
}

/* Merges the adjacent pair whose change is smallest under min_step;
 * false when there is none. */
static bool merge_small_step(struct steps_result *r, const double *values, double min_step)
{
	int at = -1;
	double smallest = min_step;
	for (int k = 1; k < r->n_segments; k++) {
		double c = fabs(steps_change(r, k));
		if (c < smallest) {
			smallest = c;
			at = k - 1;
		}
	}
	if (at < 0)
		return false;
	merge(r, values, at, 2);
	return true;
}

/* The typical interval of segment k's runs: the medians of their lower
 * and of their upper bounds (a run without an interval counts its value
 * as both). */
static void typical_interval(const struct steps_result *r, const double *values, const double *low,
			     const double *high, int k, double *lo, double *hi, double *buf)
{
	const struct steps_segment *sg = &r->segments[k];
	int n = sg->end - sg->start;
	for (int pass = 0; pass < 2; pass++) {
		const double *b = pass ? high : low;
		for (int i = 0; i < n; i++) {
			double v = b ? b[sg->start + i] : NAN;
			buf[i] = v > 0 && isfinite(v) ? v : values[sg->start + i];
		}
		*(pass ? hi : lo) = stats_median(buf, n);
	}
}

/* Merges the step with the smallest change among those whose two sides'
 * typical intervals overlap (steps.h); false when there is none. */
static bool merge_overlap(struct steps_result *r, const double *values, const double *low, const double *high,
			  double *buf)
{
	int at = -1;
	double smallest = INFINITY;
	for (int k = 1; k < r->n_segments; k++) {
		double lo0, hi0, lo1, hi1;
		typical_interval(r, values, low, high, k - 1, &lo0, &hi0, buf);
		typical_interval(r, values, low, high, k, &lo1, &hi1, buf);
		bool up = r->segments[k].level > r->segments[k - 1].level;
		bool overlap = up ? hi0 >= lo1 : hi1 >= lo0;
		double c = fabs(steps_change(r, k));
		if (overlap && c < smallest) {
			smallest = c;
			at = k - 1;
		}
	}
	if (at < 0)
		return false;
	merge(r, values, at, 2);
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
	double *y = malloc((size_t)n * sizeof *y), *buf = malloc((size_t)n * sizeof *buf);
	int *from = malloc((size_t)(n + 1) * sizeof *from);
	out->outliers = calloc((size_t)n, sizeof *out->outliers);
	if (y && from && buf && out->outliers) {
		for (int i = 0; i < n; i++)
			y[i] = log(values[i]);
		out->sigma = noise_of(y, low, high, n);
		out->penalty = STEPS_PENALTY * out->sigma * log(n + 1.0);
	}
	bool ok = y && from && buf && out->outliers && !isnan(out->sigma) && partition(y, n, out->penalty, from) &&
		  segments_of(values, n, from, out);
	free(y);
	free(from);
	if (!ok) {
		free(buf);
		steps_free(out);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory detecting steps in %d values", n);
	}
	while (merge_small_step(out, values, min_step) || merge_overlap(out, values, low, high, buf))
		;
	free(buf);
	mark_outliers(out, values, min_step);
	for (int k = 0; k < out->n_segments; k++)
		out->segments[k].change = k ? steps_change(out, k) : NAN;
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
