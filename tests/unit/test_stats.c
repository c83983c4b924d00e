/*
 * test_stats.c - quantiles, spread, drift, bootstrap interval, Mann-Whitney.
 *
 * Expected numbers come from a short pure-Python script run on the
 * development machine (numpy and scipy were not installed there):
 *   - quantiles: sorted(x), h = (n-1)q, s[lo] + (h-lo)(s[lo+1]-s[lo])
 *     (numpy.quantile's default "linear" method);
 *   - mean, sample stdev: the textbook two-pass formulas;
 *   - Mann-Whitney: pooled ranks with mid-ranks for ties, U = R_a - na(na+1)/2,
 *     var = na nb/12 ((n+1) - sum(t^3-t)/(n(n-1))), z = (|U-mu| - 0.5)/sd,
 *     p = erfc(|z|/sqrt 2) -- scipy's asymptotic method. The first example is
 *     the one in scipy.stats.mannwhitneyu's documentation (males vs females,
 *     U = 17, asymptotic p = 0.11134688653314041 there);
 *   - bootstrap: xoshiro256** seeded by four splitmix64 outputs written again
 *     in Python, indices drawn by rejection (v >= 2^64 mod n, then v mod n)
 *     into the SORTED samples, a's n draws then b's per round, and each
 *     resample's median taken by sorting it (the C code counts instead), then
 *     type-7 quantiles of the ratios.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/stats.h"

/* cmocka 1.1 compares only floats; doubles need their own check. */
#define assert_double_equal(a, b, tol)                                                  \
	do {                                                                            \
		double a_ = (a), b_ = (b);                                              \
		if (!(fabs(a_ - b_) <= (tol)))                                          \
			fail_msg("%.17g != %.17g (tolerance %g)", a_, b_, (double)(tol)); \
	} while (0)

static const double X8[] = { 3, 1, 4, 1, 5, 9, 2, 6 };

static void test_quantile_type7(void **state)
{
	(void)state;
	/* python: q 0 -> 1.0, 0.1 -> 1.0, 0.25 -> 1.75, 0.5 -> 3.5,
	 * 0.9 -> 6.8999999999999995, 1 -> 9.0 */
	assert_true(stats_quantile(X8, 8, 0) == 1.0);
	assert_true(stats_quantile(X8, 8, 0.1) == 1.0);
	assert_true(stats_quantile(X8, 8, 0.25) == 1.75);
	assert_true(stats_quantile(X8, 8, 0.5) == 3.5);
	assert_true(stats_quantile(X8, 8, 0.9) == 6.8999999999999995);
	assert_true(stats_quantile(X8, 8, 1) == 9.0);
	assert_true(stats_median(X8, 8) == 3.5);
	assert_true(stats_median(X8, 7) == 3.0); /* 1 1 2 3 4 5 9 */
	assert_true(stats_median(X8, 1) == 3.0);
	assert_true(isnan(stats_quantile(X8, 0, 0.5)));
	/* the input is left alone */
	assert_true(X8[0] == 3 && X8[5] == 9);
}

static void test_mean_stdev_drift(void **state)
{
	(void)state;
	assert_true(stats_mean(X8, 8) == 3.875);
	assert_double_equal(stats_stdev(X8, 8), 2.748376143938713, 1e-14);
	assert_true(isnan(stats_stdev(X8, 1)));
	assert_true(isnan(stats_mean(X8, 0)));
	assert_double_equal(stats_drift(100, 103), 0.03, 1e-15);
	assert_double_equal(stats_drift(100, 97), 0.03, 1e-15);
	assert_true(isnan(stats_drift(0, 1)));
}

static void test_mwu_scipy_doc_example(void **state)
{
	const double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
	(void)state;
	struct stats_mwu r = stats_mann_whitney(males, 5, females, 4);
	assert_true(r.u == 17.0);
	assert_double_equal(r.z, 1.5921683328090657, 1e-12);
	assert_double_equal(r.p_value, 0.11134688653314041, 1e-12);
	/* swapping the sides: U = na*nb - 17, same p, z negated */
	r = stats_mann_whitney(females, 4, males, 5);
	assert_true(r.u == 3.0);
	assert_double_equal(r.z, -1.5921683328090657, 1e-12);
	assert_double_equal(r.p_value, 0.11134688653314041, 1e-12);
}

static void test_mwu_ties(void **state)
{
	const double a[] = { 1, 2, 2, 3, 3, 3, 4, 5 }, b[] = { 3, 4, 4, 5, 5, 6, 7, 7, 8 };
	(void)state;
	/* python: U 7.5, z -2.727939278646863, p 0.006373133838085877 */
	struct stats_mwu r = stats_mann_whitney(a, 8, b, 9);
	assert_true(r.u == 7.5);
	assert_double_equal(r.z, -2.727939278646863, 1e-12);
	assert_double_equal(r.p_value, 0.006373133838085877, 1e-12);
}

static void test_mwu_degenerate(void **state)
{
	const double a[] = { 2, 2, 2 }, b[] = { 2, 2 };
	(void)state;
	struct stats_mwu r = stats_mann_whitney(a, 3, b, 2);
	assert_true(r.u == 3.0); /* all mid-ranks 3: R_a = 9, U = 9 - 6 */
	assert_true(r.z == 0 && r.p_value == 1);
	r = stats_mann_whitney(a, 0, b, 2);
	assert_true(r.p_value == 1 && isnan(r.u));
}

static void make_ab(double *a, double *b)
{
	for (int i = 0; i < 40; i++)
		a[i] = 100 + ((i * 37) % 23);
	for (int i = 0; i < 31; i++)
		b[i] = 80 + ((i * 53) % 17) * 0.5;
}

static void test_speedup_ci_golden(void **state)
{
	double a[40], b[31];
	(void)state;
	make_ab(a, b);
	/* python: point 1.3293413173652695, low 1.2780815569972197,
	 * high 1.375794774088187 (level 0.95, 2000 resamples, seed 42) */
	struct stats_interval ci = stats_speedup_ci(a, 40, b, 31, 0.95, 2000, 42);
	assert_double_equal(ci.point, 1.3293413173652695, 1e-15);
	assert_double_equal(ci.low, 1.2780815569972197, 1e-12);
	assert_double_equal(ci.high, 1.375794774088187, 1e-12);

	/* odd and even sizes: python (5,1,3) vs (2,4), 0.9, 500, seed 7:
	 * point 1.0, low 0.25, high 2.5 */
	const double c[] = { 5, 1, 3 }, e[] = { 2, 4 };
	ci = stats_speedup_ci(c, 3, e, 2, 0.9, 500, 7);
	assert_true(ci.point == 1.0 && ci.low == 0.25 && ci.high == 2.5);
}

static void test_speedup_ci_properties(void **state)
{
	double a[40], b[31];
	(void)state;
	make_ab(a, b);
	struct stats_interval c1 = stats_speedup_ci(a, 40, b, 31, 0.95, 500, 1);
	struct stats_interval c2 = stats_speedup_ci(a, 40, b, 31, 0.95, 500, 1);
	struct stats_interval c3 = stats_speedup_ci(a, 40, b, 31, 0.95, 500, 2);
	assert_true(c1.low == c2.low && c1.high == c2.high);
	assert_true(c1.low != c3.low || c1.high != c3.high);
	assert_true(c1.low <= c1.point && c1.point <= c1.high);
	struct stats_interval wide = stats_speedup_ci(a, 40, b, 31, 0.99, 500, 1);
	assert_true(wide.low <= c1.low && wide.high >= c1.high);
	struct stats_interval none = stats_speedup_ci(a, 40, b, 31, 0.95, 0, 1);
	assert_true(none.point == c1.point && isnan(none.low) && isnan(none.high));
	none = stats_speedup_ci(a, 0, b, 31, 0.95, 100, 1);
	assert_true(isnan(none.point));
}

/* The order-statistic interval of a median: n = 20 at 95% is ranks 6 and
 * 15 (P(B <= 5) = 0.0207 <= 0.025 < P(B <= 6) = 0.0577, the textbook
 * table); n = 6 is the smallest n with an interval (2^-6 = 0.0156), ranks
 * 1 and 6; n = 5 has none (2^-5 = 0.031). Values 10, 20, ... given in
 * shuffled order, so rank k is 10 k. */
static void test_median_ci(void **state)
{
	(void)state;
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 10.0 * ((7 * i) % 20 + 1);
	struct stats_interval ci = stats_median_ci(x, 20, 0.95);
	assert_true(ci.point == 105 && ci.low == 60 && ci.high == 150);
	double y[6] = { 30, 10, 60, 20, 50, 40 };
	ci = stats_median_ci(y, 6, 0.95);
	assert_true(ci.point == 35 && ci.low == 10 && ci.high == 60);
	ci = stats_median_ci(y, 5, 0.95);
	assert_true(ci.point == 30 && isnan(ci.low) && isnan(ci.high));
	ci = stats_median_ci(y, 0, 0.95);
	assert_true(isnan(ci.point));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile_type7),
		cmocka_unit_test(test_mean_stdev_drift),
		cmocka_unit_test(test_mwu_scipy_doc_example),
		cmocka_unit_test(test_mwu_ties),
		cmocka_unit_test(test_mwu_degenerate),
		cmocka_unit_test(test_speedup_ci_golden),
		cmocka_unit_test(test_speedup_ci_properties),
		cmocka_unit_test(test_median_ci),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
