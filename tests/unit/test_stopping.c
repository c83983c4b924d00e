/*
 * test_stopping.c - each stop reason from a synthetic sample stream.
 *
 * Expected sample counts were worked out by hand from the rules in
 * stopping.c, and for the convergence case with a short Python script that
 * applies the same rule with two-pass statistics: for samples alternating
 * 900, 1100 ns and min_samples 100, the noise estimates at n = 100..107 are
 * 0.100504, 0.100593, 0.100494, 0.100582, 0.100484, 0.100571, 0.100475,
 * 0.100560 (range 1.2e-4 < 1% of 0.1005), so the slot ends at n = 107.
 * Those tests use the mean measure (noise_measure = mean); the median
 * measure's figures come from the same rule in Python (the exact binomial
 * ranks j and n+1-j of stats.h, math.comb): 5 values no interval, 6 and 8
 * values ranks 1 and n, 10 values ranks 2 and 9 ((9 - 2) / (2 x 5.5) for
 * 1..10); the stream 1000 + (37 i mod 100) first has a half-width under
 * 0.5% at n = 386 (0.00476417).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run/stopping.h"

static struct scenario_sampling rule(int min_samples, int max_samples, double min_time_ms, double max_time_ms,
				double target_noise)
{
	struct scenario_sampling r = { 0 };
	r.min_samples = min_samples;
	r.max_samples = max_samples;
	r.min_time_ms = min_time_ms;
	r.max_time_ms = max_time_ms;
	r.target_noise = target_noise;
	r.noise = SCENARIO_NOISE_MEAN;
	return r;
}

/* The same rule with the median measure. */
static struct scenario_sampling median_rule(int min_samples, int max_samples, double target_noise)
{
	struct scenario_sampling r = rule(min_samples, max_samples, 0, 0, target_noise);
	r.noise = SCENARIO_NOISE_MEDIAN;
	return r;
}

/* Feeds samples from gen(i) (i = 1, 2, ...) with 1 us of slot time each;
 * returns the count at which stopping_add said stop, 0 if never by limit. */
static int feed(struct stopping_state *s, double (*gen)(int), int limit)
{
	for (int i = 1; i <= limit; i++)
		if (stopping_add(s, gen(i), i * 1e3))
			return i;
	return 0;
}

static double quiet(int i)
{
	return i % 2 ? 1000 : 1001;
}

static double alternating(int i)
{
	return i % 2 ? 900 : 1100;
}

static double constant(int i)
{
	(void)i;
	return 500;
}

/* Noise keeps growing: 1000 + i^2 never converges within its window. */
static double drifting(int i)
{
	return 1000.0 + (double)i * i;
}

static void test_noise_value(void **state)
{
	struct scenario_sampling r = rule(1000, 0, 0, 0, 0);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_true(isnan(stopping_noise(&s)));
	for (int i = 1; i <= 4; i++)
		stopping_add(&s, i, 0);
	/* python: stdev(1,2,3,4) / 2.5 = 0.5163977794943222 */
	assert_true(fabs(stopping_noise(&s) - 0.5163977794943222) < 1e-15);
	assert_true(s.measured_ns == 10);
}

static void test_target_noise_waits_for_min_samples(void **state)
{
	struct scenario_sampling r = rule(10, 1000, 0, 0, 0.01);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_int_equal(feed(&s, quiet, 1000), 10);
	assert_int_equal(s.reason, STOPPING_TARGET_NOISE);
	assert_string_equal(stopping_reason_str(s.reason), "target_noise");
}

static void test_target_noise_waits_for_min_time(void **state)
{
	/* 50 us of measured time at 1000.5 ns a sample on average: after 49
	 * samples 49024 ns, after 50 samples 50025 ns */
	struct scenario_sampling r = rule(2, 1000, 0.05, 0, 0.01);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_int_equal(feed(&s, quiet, 1000), 50);
	assert_int_equal(s.reason, STOPPING_TARGET_NOISE);
}

static void test_noise_converged(void **state)
{
	struct scenario_sampling r = rule(100, 10000, 0, 0, 0.01);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_int_equal(feed(&s, alternating, 10000), 107);
	assert_int_equal(s.reason, STOPPING_NOISE_CONVERGED);
	assert_int_equal(s.n_history, STOPPING_HISTORY);
	assert_string_equal(stopping_reason_str(s.reason), "noise_converged");
}

static void test_zero_noise_converges(void **state)
{
	/* target 0 disables the target; a constant stream has noise 0 at every
	 * check, a window of range 0: converged after 8 checks (n = 2..9) */
	struct scenario_sampling r = rule(2, 1000, 0, 0, 0);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_int_equal(feed(&s, constant, 1000), 9);
	assert_int_equal(s.reason, STOPPING_NOISE_CONVERGED);
}

static void test_max_samples(void **state)
{
	struct scenario_sampling r = rule(10, 40, 0, 0, 0.001);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_int_equal(feed(&s, drifting, 1000), 40);
	assert_int_equal(s.reason, STOPPING_MAX_SAMPLES);
	assert_string_equal(stopping_reason_str(s.reason), "max_samples");
	/* frozen afterwards */
	assert_true(stopping_add(&s, 1, 0));
	assert_int_equal(s.n, 40);
}

static void test_max_time(void **state)
{
	/* 1 us a sample against a 0.025 ms cap: the 25th sample reaches it */
	struct scenario_sampling r = rule(1000, 0, 0, 0.025, 0.01);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_int_equal(feed(&s, quiet, 1000), 25);
	assert_int_equal(s.reason, STOPPING_MAX_TIME);
	assert_string_equal(stopping_reason_str(s.reason), "max_time");
}

static void test_check_time_for_discarded(void **state)
{
	struct scenario_sampling r = rule(5, 100, 0, 1, 0.01);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	assert_false(stopping_check_time(&s, 999999));
	assert_int_equal(s.reason, STOPPING_NOT_YET);
	assert_true(stopping_check_time(&s, 1e6));
	assert_int_equal(s.reason, STOPPING_MAX_TIME);
	assert_int_equal(s.n, 0);
}

static void test_order_target_before_caps(void **state)
{
	/* at n = 10 the target, max_samples and max_time all hold: target wins */
	struct scenario_sampling r = rule(10, 10, 0, 0.001, 0.01);
	struct stopping_state s;
	(void)state;
	stopping_init(&s, &r, NULL, 0);
	for (int i = 1; i < 10; i++)
		assert_false(stopping_add(&s, quiet(i), 10));
	assert_true(stopping_add(&s, quiet(10), 1e6));
	assert_int_equal(s.reason, STOPPING_TARGET_NOISE);
	/* without the target, max_samples comes before max_time */
	r.target_noise = 0;
	stopping_init(&s, &r, NULL, 0);
	for (int i = 1; i < 10; i++)
		assert_false(stopping_add(&s, drifting(i), 10));
	assert_true(stopping_add(&s, drifting(10), 1e6));
	assert_int_equal(s.reason, STOPPING_MAX_SAMPLES);
}

static double spread(int i)
{
	return 1000 + (37 * i) % 100;
}

static void test_median_noise_value(void **state)
{
	static const double shuffled[10] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };
	struct scenario_sampling r = median_rule(1000, 10, 0);
	struct stopping_state s;
	double buf[10];
	(void)state;
	stopping_init(&s, &r, buf, 10);
	for (int i = 0; i < 5; i++)
		stopping_add(&s, shuffled[i], 0);
	assert_true(isnan(stopping_noise(&s))); /* 5 values: no 95% interval */
	stopping_add(&s, shuffled[5], 0);
	/* 7 3 10 1 5 9 sorted: 1 3 5 7 9 10, median 6, ranks 1 and 6 */
	assert_true(fabs(stopping_noise(&s) - 9.0 / 12.0) < 1e-15);
	stopping_add(&s, shuffled[6], 0);
	stopping_add(&s, shuffled[7], 0);
	/* 1 2 3 5 7 8 9 10: median 6, still ranks 1 and 8 */
	assert_true(fabs(stopping_noise(&s) - 9.0 / 12.0) < 1e-15);
	stopping_add(&s, shuffled[8], 0);
	stopping_add(&s, shuffled[9], 0);
	for (int i = 0; i < 10; i++)
		assert_true(buf[i] == i + 1); /* kept sorted */
	/* 1..10: median 5.5, ranks 2 and 9 */
	assert_true(fabs(stopping_noise(&s) - 7.0 / 11.0) < 1e-15);
}

static void test_median_reaches_target(void **state)
{
	struct scenario_sampling r = median_rule(10, 5000, 0.005);
	struct stopping_state s;
	static double buf[5000];
	(void)state;
	stopping_init(&s, &r, buf, 5000);
	assert_int_equal(feed(&s, spread, 5000), 386);
	assert_int_equal(s.reason, STOPPING_TARGET_NOISE);
	assert_true(fabs(stopping_noise(&s) - 0.004764173415912339) < 1e-12);
}

static void test_median_never_converges(void **state)
{
	/* Two values: the interval always spans both (10% half-width), and the
	 * mean rule's convergence escape (107 samples above) does not apply;
	 * the interval's stall does: the same width at the checkpoints 100,
	 * 200 and 400 (two doublings that shrank nothing) ends it at 400. */
	struct scenario_sampling r = median_rule(100, 3000, 0.005);
	struct stopping_state s;
	static double buf[3000];
	(void)state;
	stopping_init(&s, &r, buf, 3000);
	assert_int_equal(feed(&s, alternating, 5000), 400);
	assert_int_equal(s.reason, STOPPING_INTERVAL_STALLED);
	assert_string_equal(stopping_reason_str(s.reason), "interval_stalled");
	assert_true(fabs(stopping_noise(&s) - 0.1) < 1e-15);
}

/* Bimodal samples: a mode of 23 and one of 25 (a launch-bound eager slot,
 * 1 in 2 samples in each, deterministic order), the first stall check at
 * max(min_samples, 50): stopped at 200 by the stall, not the 2000 cap;
 * the same stream held back by min_time_ms (checkpoints then counted from
 * where it first may stop: 300, 600, 1200) stops at 1200. One mode whose
 * interval shrinks (the spread stream) is never stopped by it. */
static double bimodal(int i)
{
	return (i * 7919 % 10) < 5 ? 23000 + i % 7 : 25000 + i % 5;
}

static void test_median_interval_stalls(void **state)
{
	struct scenario_sampling r = median_rule(10, 2000, 0.005);
	struct stopping_state s;
	static double buf[2000];
	(void)state;
	stopping_init(&s, &r, buf, 2000);
	assert_int_equal(feed(&s, bimodal, 2000), 200);
	assert_int_equal(s.reason, STOPPING_INTERVAL_STALLED);
	r.min_time_ms = 300 * 24e-3; /* reached after 300 samples of about 24 us */
	stopping_init(&s, &r, buf, 2000);
	assert_int_equal(feed(&s, bimodal, 2000), 1200);
	assert_int_equal(s.reason, STOPPING_INTERVAL_STALLED);
	r = median_rule(10, 5000, 0.001); /* the spread stream never gets there: no stall either */
	static double big[5000];
	stopping_init(&s, &r, big, 5000);
	assert_int_equal(feed(&s, spread, 5000), 5000);
	assert_int_equal(s.reason, STOPPING_MAX_SAMPLES);
}

static void test_median_scratch_caps(void **state)
{
	/* max_samples 0 (no cap) but room for 20: the scratch is the cap */
	struct scenario_sampling r = median_rule(10, 0, 0.0001);
	struct stopping_state s;
	double buf[20];
	(void)state;
	stopping_init(&s, &r, buf, 20);
	assert_int_equal(feed(&s, spread, 100), 20);
	assert_int_equal(s.reason, STOPPING_MAX_SAMPLES);
	assert_int_equal(s.n, 20);
}

static void test_median_zero_width_stops(void **state)
{
	/* a coarse timer: every sample equal, width 0 under any target once
	 * the minimums are met (and 8 samples give an interval) */
	struct scenario_sampling r = median_rule(10, 100, 0.005);
	struct stopping_state s;
	double buf[100];
	(void)state;
	stopping_init(&s, &r, buf, 100);
	assert_int_equal(feed(&s, constant, 100), 10);
	assert_int_equal(s.reason, STOPPING_TARGET_NOISE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_value),
		cmocka_unit_test(test_target_noise_waits_for_min_samples),
		cmocka_unit_test(test_target_noise_waits_for_min_time),
		cmocka_unit_test(test_noise_converged),
		cmocka_unit_test(test_zero_noise_converges),
		cmocka_unit_test(test_max_samples),
		cmocka_unit_test(test_max_time),
		cmocka_unit_test(test_check_time_for_discarded),
		cmocka_unit_test(test_order_target_before_caps),
		cmocka_unit_test(test_median_noise_value),
		cmocka_unit_test(test_median_reaches_target),
		cmocka_unit_test(test_median_never_converges),
		cmocka_unit_test(test_median_interval_stalls),
		cmocka_unit_test(test_median_scratch_caps),
		cmocka_unit_test(test_median_zero_width_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
