/*
 * stats.c - quantiles, mean and spread, the bootstrap interval of a speedup
 * and the Mann-Whitney U test.
 *
 * Everything here is a pure function of its inputs (the bootstrap draws from
 * its own seeded xoshiro256** generator), so every printer and the gate get
 * the same numbers from the same samples. NaN sorts after every number;
 * callers drop unknown values before asking for quantiles.
 */
#include "common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

/* Type 7 (linear interpolation) on sorted values; q is clamped to [0, 1]. */
static double quantile_sorted(const double *s, int n, double q)
{
	if (n <= 0 || isnan(q))
		return NAN;
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[n - 1];
	double h = (n - 1) * q;
	int lo = (int)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	return s[lo] + (h - lo) * (s[lo + 1] - s[lo]);
}

static double *sorted_copy(const double *x, int n)
{
	double *s = malloc((size_t)n * sizeof *s);

	if (!s)
		return NULL;
	memcpy(s, x, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	return s;
}

double stats_quantile(const double *x, int n, double q)
{
	if (n <= 0)
		return NAN;
	double *s = sorted_copy(x, n);
	if (!s)
		return NAN;
	double v = quantile_sorted(s, n, q);
	free(s);
	return v;
}

double stats_median(const double *x, int n)
{
	return stats_quantile(x, n, 0.5);
}

double stats_mean(const double *x, int n)
{
	if (n <= 0)
		return NAN;
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += x[i];
	return sum / n;
}

double stats_stdev(const double *x, int n)
{
	if (n < 2)
		return NAN;
	double m = stats_mean(x, n), ss = 0;
	for (int i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (n - 1));
}

double stats_drift(double a1, double a2)
{
	if (a1 == 0 || !isfinite(a1))
		return NAN;
	return fabs(a2 - a1) / fabs(a1);
}

/*
 * The bootstrap's generator: xoshiro256** seeded from the seed by splitmix64
 * (rng.h), a state of its own so that statistics do not depend on how the
 * inputs draw their numbers.
 */
struct boot_rng {
	uint64_t s[4];
};

/* Unbiased integer in [0, bound): rejects the few draws below 2^64 mod bound. */
static uint32_t boot_index(struct boot_rng *r, uint32_t bound)
{
	uint64_t threshold = (0 - (uint64_t)bound) % bound, v;

	do
		v = rng_next(r->s);
	while (v < threshold);
	return (uint32_t)(v % bound);
}

/*
 * Median of one resample of the sorted values s[0..n). Drawing n indices
 * and counting how often each was drawn gives the resample in sorted order
 * without sorting it: the type-7 median is the mean of the order statistics
 * (n-1)/2 and n/2, found by a walk over the counts. O(n) per resample.
 */
static double resample_median(const double *s, int n, int *count, struct boot_rng *r)
{
	int lo_rank = (n - 1) / 2, hi_rank = n / 2, seen = 0;
	double lo = NAN, hi = NAN;

	memset(count, 0, (size_t)n * sizeof *count);
	for (int i = 0; i < n; i++)
		count[boot_index(r, (uint32_t)n)]++;
	for (int i = 0; i < n && isnan(hi); i++) {
		if (count[i] == 0)
			continue;
		seen += count[i];
		if (isnan(lo) && seen > lo_rank)
			lo = s[i];
		if (seen > hi_rank)
			hi = s[i];
	}
	return lo + 0.5 * (hi - lo);
}

/* Fills ratio[0..resamples) with median(a*)/median(b*); false on no memory. */
static int bootstrap_ratios(const double *sa, int na, const double *sb, int nb, int resamples,
			    uint64_t seed, double *ratio)
{
	int *count = malloc((size_t)(na > nb ? na : nb) * sizeof *count);
	struct boot_rng r;

	if (!count)
		return 0;
	rng_seed(r.s, seed);
	for (int k = 0; k < resamples; k++) {
		double ma = resample_median(sa, na, count, &r);
		double mb = resample_median(sb, nb, count, &r);
		ratio[k] = ma / mb;
	}
	free(count);
	return 1;
}

/*
 * Percentile bootstrap: resample a and b independently (a first, then b, in
 * each round, all from one generator seeded as above), take the ratio of the
 * resample medians, and report the type-7 quantiles (1-level)/2 and
 * (1+level)/2 of those ratios. NAN bounds when the interval cannot be formed
 * (no samples, no resamples, level outside (0, 1), no memory).
 */
struct stats_interval stats_speedup_ci(const double *a, int na, const double *b, int nb, double level,
				     int resamples, uint64_t seed)
{
	struct stats_interval ci = { NAN, NAN, NAN };
	double *sa = NULL, *sb = NULL, *ratio = NULL;

	if (na <= 0 || nb <= 0)
		return ci;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	if (!sa || !sb)
		goto out;
	ci.point = quantile_sorted(sa, na, 0.5) / quantile_sorted(sb, nb, 0.5);
	if (resamples <= 0 || !(level > 0 && level < 1))
		goto out;
	ratio = malloc((size_t)resamples * sizeof *ratio);
	if (!ratio || !bootstrap_ratios(sa, na, sb, nb, resamples, seed, ratio))
		goto out;
	qsort(ratio, (size_t)resamples, sizeof *ratio, cmp_double);
	ci.low = quantile_sorted(ratio, resamples, (1 - level) / 2);
	ci.high = quantile_sorted(ratio, resamples, (1 + level) / 2);
out:
	free(sa);
	free(sb);
	free(ratio);
	return ci;
}

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	return cmp_double(&((const struct tagged *)pa)->v, &((const struct tagged *)pb)->v);
}

/*
 * Ranks the pooled sample (ties get the mean of their ranks) and returns
 * a's rank sum; *tie_term gets sum(t^3 - t) over groups of t tied values.
 */
static double rank_sum_a(struct tagged *all, int n, double *tie_term)
{
	double ra = 0;

	qsort(all, (size_t)n, sizeof *all, cmp_tagged);
	*tie_term = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		double t = j - i + 1, rank = (i + j) / 2.0 + 1;
		for (int k = i; k <= j; k++)
			ra += all[k].from_a ? rank : 0;
		*tie_term += t * t * t - t;
		i = j + 1;
	}
	return ra;
}

/*
 * U of a = R_a - na(na+1)/2. Under H0, mean na*nb/2 and variance
 * na*nb/12 * ((n+1) - sum(t^3-t) / (n(n-1))). The continuity correction
 * moves |U - mean| half a unit toward zero (never past it); p = erfc(|z|/sqrt 2),
 * which is what scipy.stats.mannwhitneyu(method="asymptotic") computes.
 * No spread at all (every value tied, or an empty side): z = 0, p = 1.
 */
struct stats_mwu stats_mann_whitney(const double *a, int na, const double *b, int nb)
{
	struct stats_mwu r = { NAN, 0, 1 };
	int n = na + nb;
	struct tagged *all;
	double tie;

	if (na <= 0 || nb <= 0 || !(all = malloc((size_t)n * sizeof *all)))
		return r;
	for (int i = 0; i < na; i++)
		all[i] = (struct tagged){ a[i], 1 };
	for (int i = 0; i < nb; i++)
		all[na + i] = (struct tagged){ b[i], 0 };
	r.u = rank_sum_a(all, n, &tie) - na * (na + 1.0) / 2;
	free(all);

	double mu = na * (double)nb / 2;
	double var = na * (double)nb / 12 * ((n + 1) - tie / ((double)n * (n - 1)));
	if (!(var > 0))
		return r;
	double dev = fmax(fabs(r.u - mu) - 0.5, 0);
	r.z = copysign(dev / sqrt(var), r.u - mu);
	r.p_value = fmin(1, erfc(fabs(r.z) / sqrt(2)));
	return r;
}

/* P(Binomial(n, 1/2) = k), through lgamma so that large n do not overflow. */
static double binom_half_pmf(int n, int k)
{
	return exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) - n * log(2.0));
}

struct stats_interval stats_median_ci(const double *x, int n, double level)
{
	struct stats_interval ci = { NAN, NAN, NAN };
	if (n <= 0)
		return ci;
	double *s = sorted_copy(x, n);
	if (!s)
		return ci;
	ci.point = quantile_sorted(s, n, 0.5);
	double alpha = (1 - level) / 2, cdf = 0;
	int j = 0; /* ranks 1..j may be the lower bound: P(B <= j - 1) <= alpha */
	while (level > 0 && level < 1 && j < n / 2) {
		cdf += binom_half_pmf(n, j);
		if (cdf > alpha)
			break;
		j++;
	}
	if (j >= 1) {
		ci.low = s[j - 1];
		ci.high = s[n - j];
	}
	free(s);
	return ci;
}
