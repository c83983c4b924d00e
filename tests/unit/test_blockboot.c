/*
 * test_blockboot.c - the block bootstrap behind compare's and the gate's p
 * (analysis/blockboot.h).
 *
 * An A/A pair like the H200's (p = 8.9e-12 for a -0.26% change): two runs
 * of 2000 samples each, autocorrelated within a slot (an AR(1) series,
 * phi = 0.9, 0.3% innovations, from a fixed seed), the second run's level
 * 0.26% lower. A Mann-Whitney test on the single samples calls it with
 * p < 1e-6; the block bootstrap gives p >= 1e-3 (its floor is 2 / 2001,
 * and the blocks make the interval honest about the dependence). A real
 * +20% regression is still called at its floor, and identical samples give
 * p = 1. The p floor is the rank test's smallest p for the units: 3 and 3
 * give 0.08.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/blockboot.h"
#include "common/rng.h"
#include "common/stats.h"

#define N 2000

/* One slot of n AR(1) samples around level (ns). */
static void ar1_slot(struct results_slot *s, int n, double level, uint64_t seed)
{
	uint64_t r[4];
	double e = 0;
	rng_seed(r, seed);
	memset(s, 0, sizeof *s);
	s->arm = 'b';
	s->n_samples = n;
	s->samples_ns = calloc((size_t)n, sizeof *s->samples_ns);
	assert_non_null(s->samples_ns);
	for (int i = 0; i < n; i++) {
		/* a sum of 12 uniforms minus 6: close enough to a standard normal */
		double z = -6;
		for (int k = 0; k < 12; k++)
			z += (double)(rng_next(r) >> 11) / 9007199254740992.0;
		e = 0.9 * e + 0.003 * z;
		s->samples_ns[i] = level * (1 + e);
	}
}

static void one_slot_case(struct results_case *c, struct results_slot *s)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "ln");
	c->n_slots = 1;
	c->slots = s;
}

static double ratio_p(const struct results_case *num, const struct results_case *den, struct blockboot_result *r)
{
	struct blockboot_arm a, b;
	struct ab_diag d;
	assert_int_equal(blockboot_arm_init(&a, num, 'b', &d), AB_OK);
	assert_int_equal(blockboot_arm_init(&b, den, 'b', &d), AB_OK);
	assert_int_equal(blockboot_ratio(&a, NULL, &b, NULL, r, &d), AB_OK);
	blockboot_arm_free(&a);
	blockboot_arm_free(&b);
	return r->p;
}

static void test_aa_pair_is_not_overconfident(void **state)
{
	(void)state;
	struct results_slot s1, s2;
	struct results_case c1, c2;
	struct blockboot_result r;
	ar1_slot(&s1, N, 10000, 1);
	ar1_slot(&s2, N, 10000 * (1 - 0.0026), 2);
	one_slot_case(&c1, &s1);
	one_slot_case(&c2, &s2);
	/* the old p: every sample a unit */
	double mw = stats_mann_whitney(s2.samples_ns, N, s1.samples_ns, N).p_value;
	assert_true(mw < 1e-6);
	double p = ratio_p(&c2, &c1, &r);
	assert_true(p >= 1e-3);
	assert_true(p > 1e-6);
	/* and the interval is wider than the iid bootstrap's */
	struct stats_interval iid = stats_speedup_ci(s2.samples_ns, N, s1.samples_ns, N, 0.95, 2000, 7);
	assert_true(r.ratio.high - r.ratio.low > 1.5 * (iid.high - iid.low));
	free(s1.samples_ns);
	free(s2.samples_ns);
}

static void test_real_regression_is_called(void **state)
{
	(void)state;
	struct results_slot s1, s2;
	struct results_case c1, c2;
	struct blockboot_result r;
	ar1_slot(&s1, 40, 10000, 3);
	ar1_slot(&s2, 40, 12000, 4);
	one_slot_case(&c1, &s1);
	one_slot_case(&c2, &s2);
	double p = ratio_p(&c2, &c1, &r);
	assert_true(p < 0.01);
	assert_true(fabs(p - fmax(2.0 / 2001, r.p_floor)) < 1e-12); /* no resample crossed 1 */
	assert_true(r.ratio.low > 1.1 && r.ratio.high < 1.3);
	assert_true(fabs(ratio_p(&c1, &c1, &r) - 1) < 1e-12); /* identical: every resample on both sides */
	free(s1.samples_ns);
	free(s2.samples_ns);
}

static void test_p_floor(void **state)
{
	(void)state;
	assert_true(fabs(blockboot_p_floor(3, 3) - 0.0809) < 1e-3);
	assert_true(blockboot_p_floor(7, 7) < 0.01 && blockboot_p_floor(7, 7) > 0.001);
	assert_true(blockboot_p_floor(0, 5) == 1);
	/* blocks: cbrt rounds 3 samples to blocks of 1, 20 to 3 (7 blocks), 2000 to 13 */
	struct results_slot s;
	struct results_case c;
	struct blockboot_arm a;
	struct ab_diag d;
	int want[][2] = { { 3, 3 }, { 20, 7 }, { 2000, 154 } };
	for (int i = 0; i < 3; i++) {
		ar1_slot(&s, want[i][0], 100, 9);
		one_slot_case(&c, &s);
		assert_int_equal(blockboot_arm_init(&a, &c, 'b', &d), AB_OK);
		assert_int_equal(a.n_blocks, want[i][1]);
		blockboot_arm_free(&a);
		free(s.samples_ns);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_pair_is_not_overconfident),
		cmocka_unit_test(test_real_regression_is_called),
		cmocka_unit_test(test_p_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
