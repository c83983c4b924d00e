/*
 * test_hosttime.c - an arm's host time per call against its GPU time, and
 * the launch-bound mark (analysis/hosttime.h), from planted figures.
 *
 * The fixture is fixtures.h's fake run (case "x": A1 and A2 around 100 us,
 * B around 22.6 us, 11 samples a slot; case "y": A around 300 us, B
 * around 200 us) with host times planted per sample, as the CUDA backend
 * stores them: B of "x" 28.1 + 1 us x i for i = 0..10 (a Python arm's
 * torch dispatch; median 33.1 us, p90 37.1 us by type 7), A 10 us a call;
 * "y" 5 us a call on both. Under launch_gaps = hide the GPU time is the
 * arm's median: B of "x" is launch-bound (host 33.1 > GPU 22.6 us), A is
 * not, "y" is not. Under
 * include it is the median CUPTI kernel time (0.9 of the wall time in the
 * fixture), unknown without kernel times; under timing = graph and on the
 * CPU backend (no host time measured) there is no mark.
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

#include "analysis/hosttime.h"
#include "analysis/summary.h"
#include "fixtures.h"

#define N_SAMPLES 11

/* Host times base + step x i (i = 0..n-1) into every slot of arm of c. */
static void plant_host(struct results_case *c, char arm, double base, double step)
{
	for (int i = 0; i < c->n_slots; i++) {
		struct results_slot *s = &c->slots[i];
		if (s->arm != arm)
			continue;
		free(s->host_ns);
		s->host_ns = calloc((size_t)s->n_samples + 1, sizeof *s->host_ns);
		assert_non_null(s->host_ns);
		for (int k = 0; k < s->n_samples; k++)
			s->host_ns[k] = base + step * k;
	}
}

static struct results_run *planted_run(const char *launch_gaps)
{
	static const struct fake_case fc[] = {
		{ "x", 100000.0, 22600.0, N_SAMPLES, true },
		{ "y", 300000.0, 200000.0, N_SAMPLES, true },
	};
	struct results_run *r = fake_run(1, "swiglu", "H100", fc, 2);
	snprintf(r->backend, sizeof r->backend, "cuda");
	snprintf(r->launch_gaps, sizeof r->launch_gaps, "%s", launch_gaps);
	snprintf(r->timing, sizeof r->timing, "events");
	plant_host(&r->cases[0], 'b', 28100.0, 1000.0); /* 28.1 .. 38.1 us */
	plant_host(&r->cases[0], 'a', 10000.0, 0.0);
	plant_host(&r->cases[1], 'a', 5000.0, 0.0);
	plant_host(&r->cases[1], 'b', 5000.0, 0.0);
	return r;
}

static void arm_of(const struct results_run *r, int ci, char arm, struct hosttime_arm *h)
{
	const struct results_case *c = &r->cases[ci];
	double x[2 * N_SAMPLES], k[2 * N_SAMPLES];
	int n = 0;
	for (int i = 0; i < c->n_slots; i++)
		for (int j = 0; c->slots[i].arm == arm && j < c->slots[i].n_samples; j++) {
			x[n] = c->slots[i].samples_ns[j];
			k[n++] = c->slots[i].kernel_ns[j];
		}
	struct ab_diag d = { "" };
	assert_int_equal(hosttime_arm(r, c, arm, stats_median(x, n), stats_median(k, n), h, &d), AB_OK);
}

/* Hide: the GPU time is the arm's median; B of "x" waits on the host. */
static void test_hide_marks_the_host_bound_arm(void **state)
{
	struct results_run *r = planted_run("hide");
	struct hosttime_arm a, b;
	(void)state;
	arm_of(r, 0, 'b', &b);
	assert_int_equal(b.n, N_SAMPLES);
	assert_true(fabs(b.median_ns - 33100.0) < 1e-9);
	assert_true(fabs(b.p90_ns - 37100.0) < 1e-9); /* type 7: h = 9, the tenth value */
	assert_int_equal(b.gpu_from, HOSTTIME_GPU_MEDIAN);
	assert_true(fabs(b.gpu_ns - 22600.0) < 1e-9); /* fake_sample's pattern: the median is its base */
	assert_true(b.launch_bound);
	assert_string_equal(hosttime_gpu_str(b.gpu_from), "median");
	arm_of(r, 0, 'a', &a); /* 10 us a call against 100 us: not */
	assert_int_equal(a.n, 2 * N_SAMPLES);
	assert_true(a.median_ns == 10000.0 && a.gpu_ns == 100000.0);
	assert_false(a.launch_bound);
	arm_of(r, 1, 'b', &b);
	assert_false(b.launch_bound);
	results_run_free(r);
}

/* Include: the events hold the host gaps, so the GPU time is the kernels'
 * (0.9 of the wall time here): B of "x" still marked; without kernel times
 * nothing is known, so nothing is marked. */
static void test_include_holds_host_to_kernels(void **state)
{
	struct results_run *r = planted_run("include");
	struct hosttime_arm b;
	struct ab_diag d = { "" };
	(void)state;
	arm_of(r, 0, 'b', &b);
	assert_int_equal(b.gpu_from, HOSTTIME_GPU_KERNELS);
	assert_true(fabs(b.gpu_ns - 0.9 * 22600.0) < 1e-6);
	assert_true(b.launch_bound);
	assert_string_equal(hosttime_gpu_str(b.gpu_from), "kernels");
	assert_int_equal(hosttime_arm(r, &r->cases[0], 'b', 22600.0, NAN, &b, &d), AB_OK);
	assert_int_equal(b.gpu_from, HOSTTIME_GPU_NONE);
	assert_true(isnan(b.gpu_ns));
	assert_true(fabs(b.median_ns - 33100.0) < 1e-9); /* the host figures stand alone */
	assert_false(b.launch_bound);
	results_run_free(r);
}

/* timing = graph times no call; the CPU backend measures no host time (no
 * host_ns, or NAN in every sample): no figures, no mark. */
static void test_no_host_time_no_mark(void **state)
{
	struct results_run *r = planted_run("hide");
	struct hosttime_arm b;
	(void)state;
	snprintf(r->timing, sizeof r->timing, "graph");
	arm_of(r, 0, 'b', &b);
	assert_int_equal(b.gpu_from, HOSTTIME_GPU_NONE);
	assert_false(b.launch_bound);
	assert_string_equal(hosttime_gpu_str(b.gpu_from), "");
	snprintf(r->timing, sizeof r->timing, "events");
	plant_host(&r->cases[0], 'b', NAN, 0.0);
	arm_of(r, 0, 'b', &b);
	assert_int_equal(b.n, 0);
	assert_true(isnan(b.median_ns) && isnan(b.p90_ns) && isnan(b.gpu_ns));
	assert_false(b.launch_bound);
	for (int i = 0; i < r->cases[0].n_slots; i++) {
		free(r->cases[0].slots[i].host_ns);
		r->cases[0].slots[i].host_ns = NULL;
	}
	arm_of(r, 0, 'a', &b);
	assert_int_equal(b.n, 0);
	assert_false(b.launch_bound);
	results_run_free(r);
}

/* The summary carries it: each arm's figures and the case's mark, the
 * verdict still the GPU's (B of "x" is faster, launch-bound or not). */
static void test_summary_carries_it(void **state)
{
	struct results_run *r = planted_run("hide");
	struct summary_run s;
	struct ab_diag d = { "" };
	(void)state;
	assert_int_equal(summary_compute(r, SUMMARY_FULL, &s, &d), AB_OK);
	const struct summary_case *x = summary_find(&s, "x"), *y = summary_find(&s, "y");
	assert_true(x->launch_bound);
	assert_true(x->b.host.launch_bound && !x->a.host.launch_bound);
	assert_true(fabs(x->b.host.median_ns - 33100.0) < 1e-9 && x->b.host.gpu_ns == x->b.time.median_ns);
	assert_int_equal(x->verdict, SUMMARY_CASE_FASTER);
	assert_false(y->launch_bound);
	assert_true(y->a.host.median_ns == 5000.0);
	summary_free(&s);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hide_marks_the_host_bound_arm),
		cmocka_unit_test(test_include_holds_host_to_kernels),
		cmocka_unit_test(test_no_host_time_no_mark),
		cmocka_unit_test(test_summary_carries_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
