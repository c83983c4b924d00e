/*
 * stats.h - the statistics every layer shares: the runner's slot figures,
 * the CUDA backend's overhead probe, the summary, compare and the gate.
 * Pure functions of their inputs, so they sit in common/ (below run/ and
 * backend/, which need them) rather than in analysis/.
 *
 * Quantiles use linear interpolation between order statistics (NumPy's
 * default, "type 7"), so numbers can be checked with numpy.quantile.
 * The bootstrap is seeded: the same samples and seed give the same interval.
 */
#ifndef AB_STATS_H
#define AB_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* Quantile q in [0, 1] of n values (n >= 1; NAN for n == 0). Does not
 * modify x (sorts a copy). */
double stats_quantile(const double *x, int n, double q);
double stats_median(const double *x, int n);
double stats_mean(const double *x, int n);
/* Sample standard deviation (n - 1), NAN under 2 values. */
double stats_stdev(const double *x, int n);

/* Speedup median(a) / median(b) and its bootstrap percentile interval at
 * level (0.95): resamples a and b independently `resamples` times with a
 * seeded xoshiro generator. */
struct stats_interval {
	double point, low, high;
};
struct stats_interval stats_speedup_ci(const double *a, int na, const double *b, int nb, double level,
				     int resamples, uint64_t seed);

/* Distribution-free confidence interval of the median at level (0.95):
 * the order statistics x(j) and x(k) (1-based ranks) with
 *   j = floor(n/2 - z sqrt(n)/2),  k = ceil(n/2 + 1 + z sqrt(n)/2),
 * z the standard normal quantile of (1 + level) / 2 (the normal
 * approximation to Binomial(n, 1/2); Conover, Practical Nonparametric
 * Statistics, 3rd ed., p. 143). point is the median (type 7). All NAN when
 * j < 1 or k > n (fewer than 8 values at 95%). stats_median_ci sorts a
 * copy of x; stats_median_ci_sorted takes values sorted ascending and z
 * itself (stats_z_two_sided(level)), for callers that ask after every
 * sample (the stopping rule). */
struct stats_interval stats_median_ci(const double *x, int n, double level);
struct stats_interval stats_median_ci_sorted(const double *sorted, int n, double z);

/* The standard normal quantile z with P(|Z| < z) = level, 0 < level < 1. */
double stats_z_two_sided(double level);

/* Mann-Whitney U test, two-sided, normal approximation with tie
 * correction and continuity correction. */
struct stats_mwu {
	double u;       /* U statistic of a */
	double z;
	double p_value; /* two-sided */
};
struct stats_mwu stats_mann_whitney(const double *a, int na, const double *b, int nb);

/* |a2 - a1| / a1 */
double stats_drift(double a1, double a2);

#endif
