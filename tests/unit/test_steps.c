/*
 * test_steps.c - step detection on planted steps with known answers.
 *
 * Every series is built here: a level per stretch of points times seeded
 * noise of +-1% (uniform, from rng_mix of the point's index: the same
 * numbers on every machine). The answers are where the test put the steps:
 *   - a flat series of 40 noisy points has no step;
 *   - +20% at point 25 of 40 is one step at 25 of +20% (within the noise);
 *   - +15% at 10 and -10% at 30 are two steps, at 10 and 30;
 *   - one point +50% in the middle is an outlier, not a step;
 *   - +2% is a step too small to name under a 5% min_step, and named under
 *     a 1% one (where noise of +-1% is not);
 *   - a noiseless series (the fake timer's) with +25% at 10 is one step at
 *     10, and a noiseless flat one none;
 *   - +30% on the newest point alone is an outlier, not a step (3 runs a
 *     side are needed); three such points are a step;
 *   - two runs 20% apart, or 2 + 2, are no step; 3 + 3 are one;
 *   - +10% between 3 + 3 runs is a step when their intervals are +-2%,
 *     none when they are +-8% (overlapping);
 *   - an autocorrelated wander (AR(1), 1% innovations) has no step;
 *   - a step up and back down three points later is two steps;
 *   - bad input (a zero, NaN, too many points) is refused;
 *   - Gaussian noise (seeded normal draws): +5% at point 20 of 40 under 1%
 *     noise is one step at 20 (min_step 3%), with p under 0.001; twenty
 *     series of pure noise of 1%, 3% and 5% have none;
 *   - Student's t: the two-sided p of known quantiles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/steps.h"
#include "common/rng.h"

#define MAX_N 64

/* +-amp relative noise for point i, uniform, seeded. */
static double noise(int i, double amp)
{
	double u = (double)(rng_mix((uint64_t)i * 7919u + 17u) >> 11) / 9007199254740992.0; /* [0, 1) */
	return 1 + amp * (2 * u - 1);
}

/* n points: level[k] from change point at[k] on (at[0] = 0), with noise. */
static void planted(double *y, int n, const int *at, const double *level, int n_levels, double amp)
{
	for (int i = 0, k = 0; i < n; i++) {
		while (k + 1 < n_levels && i >= at[k + 1])
			k++;
		y[i] = level[k] * noise(i, amp);
	}
}

static struct steps_result detect(const double *y, int n, double min_step)
{
	struct steps_result r;
	struct ab_diag d = { "" };
	enum ab_rc rc = steps_detect(y, n, min_step, &r, &d);
	if (rc)
		fail_msg("steps_detect: %s", d.msg);
	return r;
}

/* The step positions (segment starts after the first) equal want[]. */
static void assert_steps(const struct steps_result *r, const int *want, int n_want)
{
	if (r->n_segments - 1 != n_want) {
		for (int k = 1; k < r->n_segments; k++)
			print_message("  step at %d (%+.2f%%)\n", r->segments[k].start, 100 * steps_change(r, k));
		fail_msg("%d steps, wanted %d", r->n_segments - 1, n_want);
	}
	for (int k = 0; k < n_want; k++)
		assert_int_equal(r->segments[k + 1].start, want[k]);
}

static void test_flat_has_no_step(void **state)
{
	(void)state;
	double y[40];
	const int at[] = { 0 };
	const double lv[] = { 4000 };
	planted(y, 40, at, lv, 1, 0.01);
	struct steps_result r = detect(y, 40, 0.05);
	assert_steps(&r, NULL, 0);
	assert_int_equal(r.n_outliers, 0);
	assert_true(r.sigma > 0.003 && r.sigma < 0.015); /* uniform +-1%: sd 0.58% */
	steps_free(&r);
}

static void test_one_step(void **state)
{
	(void)state;
	double y[40];
	const int at[] = { 0, 25 };
	const double lv[] = { 4000, 4800 };
	planted(y, 40, at, lv, 2, 0.01);
	struct steps_result r = detect(y, 40, 0.05);
	const int want[] = { 25 };
	assert_steps(&r, want, 1);
	assert_true(fabs(steps_change(&r, 1) - 0.20) < 0.02);
	assert_true(fabs(r.segments[0].level / 4000 - 1) < 0.01);
	steps_free(&r);
}

static void test_two_steps(void **state)
{
	(void)state;
	double y[40];
	const int at[] = { 0, 10, 30 };
	const double lv[] = { 1000, 1150, 1035 };
	planted(y, 40, at, lv, 3, 0.01);
	struct steps_result r = detect(y, 40, 0.05);
	const int want[] = { 10, 30 };
	assert_steps(&r, want, 2);
	assert_true(fabs(steps_change(&r, 1) - 0.15) < 0.02);
	assert_true(fabs(steps_change(&r, 2) + 0.10) < 0.02);
	steps_free(&r);
}

static void test_spike_is_an_outlier(void **state)
{
	(void)state;
	double y[30];
	const int at[] = { 0 };
	const double lv[] = { 2000 };
	planted(y, 30, at, lv, 1, 0.01);
	y[17] *= 1.5;
	struct steps_result r = detect(y, 30, 0.05);
	assert_steps(&r, NULL, 0);
	assert_int_equal(r.n_outliers, 1);
	assert_int_equal(r.outliers[0], 17);
	steps_free(&r);
}

static void test_small_step_and_min_step(void **state)
{
	(void)state;
	double y[60];
	const int at[] = { 0, 30 };
	const double lv[] = { 5000, 5100 };
	planted(y, 60, at, lv, 2, 0.002);
	struct steps_result r = detect(y, 60, 0.05);
	assert_steps(&r, NULL, 0);
	steps_free(&r);
	r = detect(y, 60, 0.01);
	const int want[] = { 30 };
	assert_steps(&r, want, 1);
	steps_free(&r);
}

static void test_noiseless(void **state)
{
	(void)state;
	double y[20];
	for (int i = 0; i < 20; i++)
		y[i] = i < 10 ? 4057.0 : 5071.25;
	struct steps_result r = detect(y, 20, 0.05);
	const int want[] = { 10 };
	assert_steps(&r, want, 1);
	assert_true(fabs(steps_change(&r, 1) - 0.25) < 1e-12);
	assert_true(r.sigma == STEPS_SIGMA_FLOOR);
	steps_free(&r);
	for (int i = 0; i < 20; i++)
		y[i] = 4057.0;
	r = detect(y, 20, 0.0);
	assert_steps(&r, NULL, 0);
	steps_free(&r);
}

static void test_newest_point(void **state)
{
	(void)state;
	/* +30% on the newest point alone: not a step (3 runs a side are
	 * needed), an outlier; once three runs show it, a step */
	double y[27];
	const int at[] = { 0, 24 };
	const double lv[] = { 3000, 3900 };
	planted(y, 27, at, lv, 2, 0.01);
	struct steps_result r = detect(y, 25, 0.05);
	assert_steps(&r, NULL, 0);
	assert_int_equal(r.n_outliers, 1);
	assert_int_equal(r.outliers[0], 24);
	steps_free(&r);
	r = detect(y, 27, 0.05);
	const int want[] = { 24 };
	assert_steps(&r, want, 1);
	assert_int_equal(r.n_outliers, 0);
	steps_free(&r);
}

/* A pair of runs 20% apart is not a step, nor are 2 + 2: the issue's
 * "steps from two runs". */
static void test_too_few_runs(void **state)
{
	(void)state;
	double y[] = { 4000, 4800, 4800, 4800 };
	struct steps_result r = detect(y, 2, 0.05);
	assert_steps(&r, NULL, 0);
	steps_free(&r);
	double z[] = { 4000, 4010, 4800, 4790 };
	r = detect(z, 4, 0.05);
	assert_steps(&r, NULL, 0);
	steps_free(&r);
	double w[] = { 4000, 4010, 3990, 4800, 4790, 4810 };
	r = detect(w, 6, 0.05);
	const int want[] = { 3 };
	assert_steps(&r, want, 1);
	steps_free(&r);
}

/* +10% between 3 + 3 runs: a step when the runs' intervals are +-2%, none
 * when they are +-8% (the runs cannot tell the levels apart); and the
 * runs' own noise raises sigma above the differences'. */
static void test_overlapping_intervals(void **state)
{
	(void)state;
	double y[] = { 4000, 4004, 3996, 4400, 4404, 4396 }, lo[6], hi[6];
	struct steps_result r;
	struct ab_diag d = { "" };
	for (int i = 0; i < 6; i++) {
		lo[i] = y[i] * 0.98;
		hi[i] = y[i] * 1.02;
	}
	assert_int_equal(steps_detect_ci(y, lo, hi, 6, 0.05, &r, &d), AB_OK);
	const int want[] = { 3 };
	assert_steps(&r, want, 1);
	assert_true(r.sigma > 0.009 && r.sigma < 0.011); /* log(1.02 / 0.98) / 3.92 */
	steps_free(&r);
	for (int i = 0; i < 6; i++) {
		lo[i] = y[i] * 0.92;
		hi[i] = y[i] * 1.08;
	}
	assert_int_equal(steps_detect_ci(y, lo, hi, 6, 0.05, &r, &d), AB_OK);
	assert_steps(&r, NULL, 0);
	steps_free(&r);
}

/* A slowly wandering series (a random walk of 1% steps, the nights'
 * machine state carried from one to the next) has large differences at
 * longer lags: sigma is not lag 1's, and no step is cut in it. */
static void test_autocorrelated_noise(void **state)
{
	(void)state;
	double y[40], x = 0;
	for (int i = 0; i < 40; i++) {
		x = 0.8 * x + 0.01 * (noise(i, 1) - 1);
		y[i] = 5000 * exp(x);
	}
	struct steps_result r = detect(y, 40, 0.05);
	assert_steps(&r, NULL, 0);
	steps_free(&r);
}

static void test_up_and_back(void **state)
{
	(void)state;
	double y[30];
	const int at[] = { 0, 12, 15 };
	const double lv[] = { 3000, 3600, 3000 };
	planted(y, 30, at, lv, 3, 0.01);
	struct steps_result r = detect(y, 30, 0.05);
	const int want[] = { 12, 15 };
	assert_steps(&r, want, 2);
	steps_free(&r);
}

static void test_bad_input(void **state)
{
	(void)state;
	double y[3] = { 1, 0, 2 };
	struct steps_result r;
	struct ab_diag d = { "" };
	assert_int_equal(steps_detect(y, 3, 0.05, &r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "value 1 is 0"));
	y[1] = NAN;
	assert_int_equal(steps_detect(y, 3, 0.05, &r, &d), AB_ERR_DATA);
	assert_int_equal(steps_detect(y, 0, 0.05, &r, &d), AB_ERR_DATA);
	assert_int_equal(steps_detect(y, STEPS_MAX_POINTS + 1, 0.05, &r, &d), AB_ERR_DATA);
	y[1] = 1;
	assert_int_equal(steps_detect(y, 3, -1, &r, &d), AB_ERR_USAGE);
	r = detect(y, 1, 0.05);
	assert_int_equal(r.n_segments, 1);
	steps_free(&r);
}

/* Standard normal draws from the seeded mixer (Box-Muller). */
static double gauss(uint64_t *state)
{
	double u1 = ((double)(rng_mix((*state)++) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(rng_mix((*state)++) >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

static void test_five_percent_under_one(void **state)
{
	(void)state;
	double y[40];
	uint64_t seed = 2026;
	for (int i = 0; i < 40; i++)
		y[i] = 4000 * exp(0.01 * gauss(&seed)) * (i >= 20 ? 1.05 : 1);
	struct steps_result r = detect(y, 40, 0.03);
	const int want[] = { 20 };
	assert_steps(&r, want, 1);
	assert_true(fabs(steps_change(&r, 1) - 0.05) < 0.01);
	assert_true(r.segments[1].pvalue < STEPS_MAX_PVALUE);
	assert_true(isnan(r.segments[0].pvalue));
	steps_free(&r);
}

static void test_pure_noise(void **state)
{
	(void)state;
	const double sd[] = { 0.01, 0.03, 0.05 };
	uint64_t seed = 77;
	for (int k = 0; k < 3; k++)
		for (int t = 0; t < 20; t++) {
			double y[40];
			for (int i = 0; i < 40; i++)
				y[i] = 2500 * exp(sd[k] * gauss(&seed));
			struct steps_result r = detect(y, 40, 0.05);
			if (r.n_segments != 1)
				fail_msg("noise of %.0f%%, series %d: %d steps", sd[k] * 100, t, r.n_segments - 1);
			steps_free(&r);
		}
}

static void test_t_pvalue(void **state)
{
	(void)state;
	/* two-sided 5% quantiles of Student's t */
	assert_true(fabs(steps_t_pvalue(2.776445, 4) - 0.05) < 1e-5);
	assert_true(fabs(steps_t_pvalue(-12.7062, 1) - 0.05) < 1e-5);
	assert_true(fabs(steps_t_pvalue(1.959964, 1e7) - 0.05) < 1e-5);
	assert_true(fabs(steps_t_pvalue(8.610302, 4) - 0.001) < 1e-6);
	assert_true(steps_t_pvalue(0, 4) == 1);
	assert_true(steps_t_pvalue(INFINITY, 4) == 0);
	assert_true(steps_t_pvalue(3, 0) == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_has_no_step),
		cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_spike_is_an_outlier),
		cmocka_unit_test(test_small_step_and_min_step),
		cmocka_unit_test(test_noiseless),
		cmocka_unit_test(test_newest_point),
		cmocka_unit_test(test_too_few_runs),
		cmocka_unit_test(test_overlapping_intervals),
		cmocka_unit_test(test_autocorrelated_noise),
		cmocka_unit_test(test_up_and_back),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_five_percent_under_one),
		cmocka_unit_test(test_pure_noise),
		cmocka_unit_test(test_t_pvalue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
