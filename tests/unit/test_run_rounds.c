/*
 * test_run_rounds.c - a bracket measured in rounds (the scenario's rounds,
 * run/run_slot.h), on the CPU backend with the fake timer, and the drift it
 * cancels, planted with ABBENCH_FAKE_DRIFT (backend_cpu.c).
 *
 * Rounds: each slot's samples are shared among the rounds (max_samples 30
 * over 5 rounds: 6 a stretch), ids run on over the rounds (the kernel sums
 * match the samples they belong to), every slot stops after the first
 * round at whose end every slot's rule is met (target_noise), and a
 * stretch's time share is max_time / rounds, read in modelled time under
 * the fake timer: the counts follow from the cost model alone.
 *
 * Drift: case ln (1x16x256: a step costs 2000 + 0.5 x 4096 = 4048 ns, the
 * eager chain 4 steps, fused 1), 40 samples a slot, 1 warm-up a stretch.
 * A linear drift of +20% per modelled ms moves A2 off A1 by about 15% in
 * one ABA bracket (A1 centred near 0.35 ms, A2 near 1.15 ms), beyond the
 * CPU profile's 5% noise floor: drifted; in 10 rounds, each the other way
 * round from the last (A1 B A2, A2 B A1, ...), A1 and A2 sample the slope
 * alike: under 0.5%. A step of +30%
 * at 0.4 ms falls inside A1 of one bracket (A1 half before it, A2 after:
 * drifted by about 30%); in 10 rounds every slot has the same share before
 * and after it, and the speedup is the undrifted one.
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

#include "backend/backend.h"
#include "common/stats.h"
#include "config/scenario.h"
#include "run/run_case.h"

static const char *const SCN = "[scenario]\n"
			       "name = rounds\n"
			       "backend = cpu\n"
			       "bracket = ABA\n"
			       "rounds = 5\n"
			       "seed = 3\n"
			       "warmup = 1\n"
			       "min_samples = 3\n"
			       "max_samples = 30\n"
			       "min_time_ms = 0.001\n"
			       "max_time_ms = 60000\n"
			       "target_noise = 0.0000001\n"
			       "noise_measure = mean\n"
			       "[case ln]\n"
			       "site = ln_modulate\n"
			       "shape = 1x16x256\n";

struct fixture {
	struct scenario *s;
	struct backend *b;
	struct run_case_env env;
	struct results_case out;
};

static int open_backend(struct fixture *f, const char *drift)
{
	struct bk_options o = { .l2_flush = false, .launch_gaps = BACKEND_GAPS_INCLUDE };
	struct ab_diag d;
	if (f->b)
		backend_cpu.close(f->b);
	f->b = NULL;
	if (drift)
		setenv("ABBENCH_FAKE_DRIFT", drift, 1);
	enum ab_rc rc = backend_cpu.open(&f->b, &o, &d);
	unsetenv("ABBENCH_FAKE_DRIFT");
	if (rc != AB_OK) {
		fprintf(stderr, "open: %s\n", d.msg);
		return -1;
	}
	f->env.bk = f->b;
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	struct ab_diag d;
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	if (!f || scenario_parse_text("rounds.ini", SCN, &f->s, &d) != AB_OK) {
		fprintf(stderr, "setup: %s\n", d.msg);
		return -1;
	}
	f->env = (struct run_case_env){ .scn = f->s, .ops = &backend_cpu, .sampling = f->s->sampling,
					.n_cases = f->s->n_cases };
	*state = f;
	return open_backend(f, NULL);
}

static void case_release(struct results_case *c)
{
	for (int i = 0; i < c->n_slots; i++)
		results_slot_release(&c->slots[i]);
	free(c->slots);
	memset(c, 0, sizeof *c);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	case_release(&f->out);
	backend_cpu.close(f->b);
	scenario_free(f->s);
	free(f);
	unsetenv("ABBENCH_FAKE_TIMER");
	return 0;
}

static void run(struct fixture *f)
{
	struct ab_diag d = { "" };
	case_release(&f->out);
	enum ab_rc rc = run_case_run(&f->env, &f->s->cases[0], &f->out, &d);
	if (rc != AB_OK)
		fail_msg("run_case_run: %s", d.msg);
}

static int steps_of(const char *variant)
{
	const struct site_variant *v = site_find_variant(site_find("ln_modulate"), variant);
	return ((const struct site_cpu_impl *)site_variant_impl(v, SITE_IMPL_CPU))->n_steps;
}

static void test_scenario_key(void **state)
{
	struct fixture *f = *state;
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(f->s->sampling.rounds, 5);
	char bad[1024];
	snprintf(bad, sizeof bad, "%s", SCN);
	memcpy(strstr(bad, "rounds = 5"), "rounds = 0", 10);
	assert_int_equal(scenario_parse_text("bad.ini", bad, &s, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "bad.ini:5: rounds"));
	memcpy(strstr(bad, "rounds = 0"), "timing = x", 10);
	assert_int_equal(scenario_parse_text("bad.ini", bad, &s, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "cpu")); /* the words it takes, cpu among them */
}

/* The tiny target is never met: 5 rounds of 6 samples a slot. */
static void test_rounds_share_samples(void **state)
{
	struct fixture *f = *state;
	run(f);
	for (int i = 0; i < f->out.n_slots; i++) {
		const struct results_slot *s = &f->out.slots[i];
		int steps = steps_of(s->variant);
		assert_int_equal(s->n_samples, 30);
		assert_string_equal(s->stopping_reason, "max_samples");
		for (int k = 0; k < s->n_samples; k++) /* ids ran on: each sum is its own sample's */
			assert_true(s->kernel_ns[k] == s->samples_ns[k]);
		int64_t launches = 0;
		for (int k = 0; k < s->n_kernels; k++)
			launches += s->kernels[k].launches;
		assert_int_equal(launches, 30 * steps); /* every round's records, no warm-up's */
		assert_int_equal(s->kernel_records_bad, 0);
		assert_true(s->elapsed_s > 0);
		assert_true(s->outputs[0].bit_exact);
	}
}

/* Met once min_samples are in: every slot stops after round 1, 6 each. */
static void test_rounds_stop_after_a_round(void **state)
{
	struct fixture *f = *state;
	f->env.sampling.target_noise = 0.5;
	run(f);
	for (int i = 0; i < f->out.n_slots; i++) {
		assert_int_equal(f->out.slots[i].n_samples, 6);
		assert_string_equal(f->out.slots[i].stopping_reason, "target_noise");
	}
	/* one round is the slot's rule judged after every sample, as before */
	f->env.sampling.rounds = 1;
	run(f);
	for (int i = 0; i < f->out.n_slots; i++) {
		assert_int_equal(f->out.slots[i].n_samples, 3);
		assert_string_equal(f->out.slots[i].stopping_reason, "target_noise");
	}
}

/* A stretch's share of max_time, in modelled time: 100 us over 2 rounds
 * is 50 us a stretch; a sample of k steps costs about 4.05 k us, so a
 * stretch ends at the first sample that reaches 50 us. */
static void test_rounds_time_share(void **state)
{
	struct fixture *f = *state;
	f->env.sampling.rounds = 2;
	f->env.sampling.max_time_ms = 0.1;
	f->env.sampling.min_time_ms = 0.0001;
	f->env.sampling.max_samples = 1000;
	run(f);
	for (int i = 0; i < f->out.n_slots; i++) {
		const struct results_slot *s = &f->out.slots[i];
		double sample_us = 4.048 * steps_of(s->variant);
		int per_stretch = (int)ceil(50 / sample_us);
		assert_int_equal(s->n_samples, 2 * per_stretch);
		assert_string_equal(s->stopping_reason, "max_time");
	}
}

static double drift_of(const struct results_case *c)
{
	return fabs(c->slots[2].median_ns - c->slots[0].median_ns) / c->slots[0].median_ns;
}

/* median(A1 and A2 pooled) / median(B). */
static double speedup_of(const struct results_case *c)
{
	const struct results_slot *a1 = &c->slots[0], *b = &c->slots[1], *a2 = &c->slots[2];
	int n = a1->n_samples + a2->n_samples;
	double *a = malloc((size_t)n * sizeof *a);
	assert_non_null(a);
	memcpy(a, a1->samples_ns, (size_t)a1->n_samples * sizeof *a);
	memcpy(a + a1->n_samples, a2->samples_ns, (size_t)a2->n_samples * sizeof *a);
	double s = stats_median(a, n) / b->median_ns;
	free(a);
	return s;
}

/* Measures the case with rounds r under the planted drift (NULL: none)
 * into f->out; 40 samples a slot. */
static void run_drifted(struct fixture *f, const char *drift, int rounds)
{
	assert_int_equal(open_backend(f, drift), 0);
	f->env.sampling.rounds = rounds;
	f->env.sampling.max_samples = 40;
	run(f);
	for (int i = 0; i < f->out.n_slots; i++)
		assert_int_equal(f->out.slots[i].n_samples, 40);
}

static void test_rounds_cancel_linear_drift(void **state)
{
	struct fixture *f = *state;
	run_drifted(f, NULL, 1);
	double undrifted = speedup_of(&f->out);
	assert_true(drift_of(&f->out) < 0.001);
	run_drifted(f, "linear:20@1", 1);
	double one = drift_of(&f->out);
	run_drifted(f, "linear:20@1", 10);
	double ten = drift_of(&f->out);
	assert_true(one > 0.10); /* beyond the CPU profile's 5% noise floor */
	/* the rounds alternate direction (A1 B A2, A2 B A1, ...): a slope
	 * within a round reaches A1 and A2 alike (in one direction only, A1
	 * and A2 would differ by the slope over a round's A1 -> A2, 2%) */
	assert_true(ten < 0.005);
	assert_true(fabs(speedup_of(&f->out) / undrifted - 1) < 0.02);
}

static void test_rounds_cancel_a_step(void **state)
{
	struct fixture *f = *state;
	run_drifted(f, NULL, 1);
	double undrifted = speedup_of(&f->out);
	run_drifted(f, "step:30@0.4", 1);
	assert_true(drift_of(&f->out) > 0.25);
	run_drifted(f, "step:30@0.4", 10);
	assert_true(drift_of(&f->out) < 0.01);
	assert_true(fabs(speedup_of(&f->out) / undrifted - 1) < 0.01);
}

/* The planted drift is a fake timer's: refused without it, and its text
 * checked. */
static void test_drift_spec_checked(void **state)
{
	struct fixture *f = *state;
	struct bk_options o = { .launch_gaps = BACKEND_GAPS_INCLUDE };
	struct backend *b = NULL;
	struct ab_diag d = { "" };
	static const char *const bad[] = { "linear", "linear:5", "wave:5@1", "step:x@1", "step:5@0", "linear:-100@1",
					   "step:2000@1" };
	(void)f;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		setenv("ABBENCH_FAKE_DRIFT", bad[i], 1);
		assert_int_equal(backend_cpu.open(&b, &o, &d), AB_ERR_USAGE);
		assert_non_null(strstr(d.msg, "linear:PCT@MS or step:PCT@MS"));
	}
	setenv("ABBENCH_FAKE_DRIFT", "step:5@1", 1);
	unsetenv("ABBENCH_FAKE_TIMER");
	assert_int_equal(backend_cpu.open(&b, &o, &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "set ABBENCH_FAKE_TIMER=1 too"));
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	assert_int_equal(backend_cpu.open(&b, &o, &d), AB_OK);
	backend_cpu.close(b);
	unsetenv("ABBENCH_FAKE_DRIFT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scenario_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rounds_share_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rounds_stop_after_a_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rounds_time_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rounds_cancel_linear_drift, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rounds_cancel_a_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drift_spec_checked, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
