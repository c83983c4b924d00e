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

/* The median of n values and its distribution-free confidence interval at
 * level (0.95) from order statistics: [x_(j), x_(n+1-j)] (1-based, sorted)
 * with j the largest rank such that P(Binomial(n, 1/2) <= j - 1) <= (1 -
 * level) / 2, so the coverage is at least level whatever the distribution
 * (n = 20: ranks 6 and 15). NAN bounds when n is too small for the level
 * (under 6 values at 0.95). */
struct stats_interval stats_median_ci(const double *x, int n, double level);

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
