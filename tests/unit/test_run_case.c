/*
 * test_run_case.c - one case measured on the CPU backend with the fake timer
 * (ABBENCH_FAKE_TIMER=1), from a scenario held in memory: the slots in
 * bracket order with their labels, arms and variants; the stopping rule's
 * reasons (max_samples, target_noise, max_time); the outputs hashed, byte
 * compared with the first A slot and checked against the float64
 * reference (md5 equal in every slot when both arms are byte-equal, B
 * flagged when they are not); the slot figures from the samples; the same
 * samples and md5s on a second run; the error of an unknown variant; and
 * an arm that flips a bit of its input on every call caught even when a
 * slot makes an even number of calls (its inputs' digests are compared
 * after the slot's first call, also when that call is an arm from
 * outside primed in slot_begin, as the CUDA backend does); the host time
 * of a call kept per sample with its median and 90th percentile per slot
 * (planted: the CPU backend measures none).
 *
 * The scenario keeps the mean stopping rule (noise_measure = mean), whose
 * noise exists from 2 samples, so that 3 and 7 samples mean something;
 * the median rule, which needs 8, is checked once against it below (and in
 * test_stopping.c).
 *
 * Fake-timer numbers (backend_cpu.c): a step of a case of E activation
 * elements costs (2000 + 0.5 E) ns +-0.5%, steps back to back, so a slot's
 * kernel sums equal its wall times and its kernel median its median.
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
#include "config/scenario.h"
#include "run/run_case.h"

static const char *const SCN = "[scenario]\n"
			       "name = rc\n"
			       "backend = cpu\n"
			       "bracket = ABABA\n"
			       "seed = 3\n"
			       "warmup = 2\n"
			       "min_samples = 3\n"
			       "max_samples = 7\n"
			       "min_time_ms = 0.001\n"
			       "max_time_ms = 60000\n"
			       "target_noise = 0.0000001\n"
			       "noise_measure = mean\n"
			       "[arms]\n"
			       "a = eager\n"
			       "b = fused\n"
			       "[case ln]\n"
			       "site = ln_modulate\n"
			       "shape = 1x16x256\n"
			       "count = 2\n"
			       "[case qk]\n"
			       "site = qk_layernorm\n"
			       "shape = 1x8x4x128\n"
			       "[case far]\n"
			       "site = ln_modulate\n"
			       "shape = 1x64x1024\n"
			       "input_mean = 1000\n"
			       "input_std = 8\n";

struct fixture {
	struct scenario *s;
	struct backend *b;
	struct run_case_env env;
	struct results_case out;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	struct bk_options o = { .l2_flush = true, .launch_gaps = BACKEND_GAPS_INCLUDE };
	struct ab_diag d;
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	if (!f || scenario_parse_text("rc.ini", SCN, &f->s, &d) != AB_OK) {
		fprintf(stderr, "setup: %s\n", d.msg);
		return -1;
	}
	if (backend_cpu.open(&f->b, &o, &d) != AB_OK)
		return -1;
	f->env = (struct run_case_env){ .scn = f->s, .ops = &backend_cpu, .bk = f->b, .sampling = f->s->sampling,
					.n_cases = f->s->n_cases };
	*state = f;
	return 0;
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

/* Measures case i of the scenario into f->out. */
static void run(struct fixture *f, int i)
{
	struct ab_diag d = { "" };
	case_release(&f->out);
	f->env.case_index = i;
	enum ab_rc rc = run_case_run(&f->env, &f->s->cases[i], &f->out, &d);
	if (rc != AB_OK)
		fail_msg("run_case_run: %s", d.msg);
}

static void test_slots_in_bracket_order(void **state)
{
	struct fixture *f = *state;
	static const char *const labels[] = { "A1", "B1", "A2", "B2", "A3" };
	run(f, 0);
	const struct results_case *c = &f->out;
	assert_string_equal(c->name, "ln");
	assert_string_equal(c->site, "ln_modulate");
	assert_string_equal(c->shape, "1x16x256");
	assert_string_equal(c->dtype, "bf16");
	assert_int_equal(c->count, 2);
	assert_false(c->affine);
	assert_non_null(strstr(c->input, "normal"));
	assert_int_equal(c->n_slots, 5);
	for (int i = 0; i < 5; i++) {
		const struct results_slot *s = &c->slots[i];
		assert_string_equal(s->label, labels[i]);
		assert_int_equal(s->position, i);
		assert_int_equal(s->arm, i % 2 ? 'b' : 'a');
		assert_string_equal(s->variant, i % 2 ? "fused" : "eager");
		assert_int_equal(s->warmup, 2);
		assert_int_equal(s->n_discarded, 0);
		assert_false(s->clocks_before.valid || s->clocks_after.valid);
		assert_true(s->elapsed_s > 0);
	}
}

/* The tiny target noise is never met: every slot stops at max_samples. */
static void test_max_samples_and_slot_figures(void **state)
{
	struct fixture *f = *state;
	run(f, 0);
	const double step = 2000 + 0.5 * 4096;
	for (int i = 0; i < f->out.n_slots; i++) {
		const struct results_slot *s = &f->out.slots[i];
		const struct site_variant *v = site_find_variant(site_find("ln_modulate"), s->variant);
		double arm_ns = ((const struct site_cpu_impl *)site_variant_impl(v, SITE_IMPL_CPU))->n_steps * step;
		assert_int_equal(s->n_samples, 7);
		assert_string_equal(s->stopping_reason, "max_samples");
		assert_true(s->median_ns >= arm_ns * 0.995 && s->median_ns <= arm_ns * 1.005);
		assert_true(s->min_ns <= s->p10_ns && s->p10_ns <= s->median_ns && s->median_ns <= s->p90_ns &&
			    s->p90_ns <= s->max_ns);
		assert_true(s->noise > 0 && s->noise < 0.005);
		assert_true(s->kernel_median_ns == s->median_ns); /* back-to-back steps */
		for (int k = 0; k < s->n_samples; k++)
			assert_true(s->kernel_ns[k] == s->samples_ns[k]);
		assert_true(s->n_kernels >= 1 && s->n_kernels <= ((const struct site_cpu_impl *)site_variant_impl(v, SITE_IMPL_CPU))->n_steps);
		assert_int_equal(s->kernel_records_bad, 0);
	}
}

static void test_other_stop_reasons(void **state)
{
	struct fixture *f = *state;
	f->env.sampling.target_noise = 0.5; /* met as soon as min_samples are in */
	run(f, 0);
	for (int i = 0; i < f->out.n_slots; i++) {
		assert_string_equal(f->out.slots[i].stopping_reason, "target_noise");
		assert_int_equal(f->out.slots[i].n_samples, 3);
	}
	/* the median rule: its interval needs 6 samples, past min_samples */
	f->env.sampling.noise = SCENARIO_NOISE_MEDIAN;
	f->env.sampling.max_samples = 5;
	run(f, 0);
	for (int i = 0; i < f->out.n_slots; i++) {
		assert_string_equal(f->out.slots[i].stopping_reason, "max_samples"); /* 5 < 6 */
		assert_true(isnan(f->out.slots[i].noise));
	}
	f->env.sampling.max_samples = 20;
	run(f, 0);
	for (int i = 0; i < f->out.n_slots; i++) {
		assert_string_equal(f->out.slots[i].stopping_reason, "target_noise");
		assert_int_equal(f->out.slots[i].n_samples, 6);
	}
	f->env.sampling.noise = SCENARIO_NOISE_MEAN;
	f->env.sampling.target_noise = 1e-7;
	f->env.sampling.max_samples = 1000;
	f->env.sampling.max_time_ms = 1e-6; /* 1 ns of wall time: over after the first sample */
	run(f, 0);
	for (int i = 0; i < f->out.n_slots; i++) {
		assert_string_equal(f->out.slots[i].stopping_reason, "max_time");
		assert_int_equal(f->out.slots[i].n_samples, 1);
	}
}

/* eager and fused are byte-equal: one md5 per output in every slot. */
static void test_outputs_checked(void **state)
{
	struct fixture *f = *state;
	run(f, 1);
	const struct results_case *c = &f->out;
	const struct results_slot *a1 = &c->slots[0];
	assert_int_equal(a1->n_outputs, 2);
	assert_string_equal(a1->outputs[0].tensor, "q_out");
	assert_string_equal(a1->outputs[1].tensor, "k_out");
	assert_string_not_equal(a1->outputs[0].md5, a1->outputs[1].md5);
	assert_int_equal(a1->outputs[0].bytes, 8 * 4 * 128 * 2);
	for (int i = 0; i < c->n_slots; i++)
		for (int o = 0; o < 2; o++) {
			const struct results_output *x = &c->slots[i].outputs[o];
			assert_int_equal(strlen(x->md5), 32);
			assert_string_equal(x->md5, a1->outputs[o].md5);
			assert_true(x->bit_exact);
			assert_int_equal(x->mismatches, 0);
			assert_true(x->ref_ok);
			assert_true(x->max_err_ratio <= 1);
		}
}

/* The same scenario measured twice: the same samples and md5s. */
static void test_deterministic(void **state)
{
	struct fixture *f = *state;
	run(f, 0);
	struct results_case first = f->out;
	memset(&f->out, 0, sizeof f->out);
	run(f, 0);
	for (int i = 0; i < first.n_slots; i++) {
		assert_int_equal(first.slots[i].n_samples, f->out.slots[i].n_samples);
		assert_memory_equal(first.slots[i].samples_ns, f->out.slots[i].samples_ns,
				    (size_t)first.slots[i].n_samples * sizeof(double));
		assert_string_equal(first.slots[i].outputs[0].md5, f->out.slots[i].outputs[0].md5);
	}
	case_release(&first);
}

/* The host memory admission counts for case ln (1x16x256, no affine), the
 * most case_data_alloc allocates: 9 tensors, 34432 bytes; its one
 * output's float64 reference and tolerance, 2 x 4096 x 8, and first-A
 * copy, 8192; the first A slot's copies of the statistics and scratch
 * tensors arm a may write (mean, rstd 64 each, ln_out 8192, scale1 512,
 * mod_mul 8192: 17024); per slot (5, all alive while the case runs its
 * rounds) the kept samples, 7 x 3 doubles (wall, kernel, host time), and
 * 7 ids, 7 sorted samples and 7 per-sample kernel sums; the case's
 * collector of one round, 7 sums. */
static void test_host_bytes(void **state)
{
	struct fixture *f = *state;
	uint64_t want = 34432 + 2 * 4096 * 8 + 8192 + 17024 + 5 * (7 * 24 + 7 * (4 + 8 + 8)) + 7 * 8;
	assert_int_equal(run_case_host_bytes(&f->s->cases[0], &f->env.sampling, 5), want);
}

static void test_unknown_variant_fails(void **state)
{
	struct fixture *f = *state;
	struct ab_diag d = { "" };
	snprintf(f->s->cases[0].arm_b, sizeof f->s->cases[0].arm_b, "nope");
	assert_int_equal(run_case_run(&f->env, &f->s->cases[0], &f->out, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "case 'ln'"));
	assert_non_null(strstr(d.msg, "site 'ln_modulate' has no variant 'nope'"));
	/* every slot is bound to its arm before any is measured: nothing ran */
	assert_string_equal(f->out.slots[0].label, "A1");
	assert_int_equal(f->out.slots[0].n_samples, 0);
}

/* A B arm that is not byte-equal by design: B flagged, the A slots not.
 * Case "far" (rows around 1000, std 8, as tests/scenarios/twopass_smoke.ini)
 * makes the two-pass statistics round differently from Welford's. */
static void test_not_byte_equal(void **state)
{
	struct fixture *f = *state;
	const struct site_variant *tp = site_find_variant(site_find("ln_modulate"), "twopass");
	if (!tp || tp->byte_equal_expected || !site_variant_impl(tp, SITE_IMPL_CPU))
		skip();
	snprintf(f->s->cases[2].arm_b, sizeof f->s->cases[2].arm_b, "twopass");
	run(f, 2);
	for (int i = 0; i < f->out.n_slots; i++) {
		const struct results_output *x = &f->out.slots[i].outputs[0];
		bool b = f->out.slots[i].arm == 'b';
		assert_int_equal(x->bit_exact, !b);
		assert_true(b ? x->mismatches > 0 : x->mismatches == 0);
		assert_true(b == (strcmp(x->md5, f->out.slots[0].outputs[0].md5) != 0));
		assert_true(x->ref_ok); /* different, and still within the reference's tolerance */
	}
}

/* ---- an arm that toggles its input ---------------------------------- */

static const struct site_cpu_impl *real_fused; /* ln_modulate's fused steps */

/* fused, then x[0] ^= 1: the input differs after every odd call. */
static void toggling_step(const struct site_args *a)
{
	for (int k = 0; k < real_fused->n_steps; k++)
		real_fused->steps[k].fn(a);
	((uint16_t *)a->t[0])[0] ^= 0x0001;
}

static const struct site_cpu_impl toggling_impl = { 1, { { "toggling_fused", toggling_step } } };

static int toggling_ext_cpu(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err,
			    size_t len)
{
	(void)ctx, (void)on, (void)stream, (void)err, (void)len;
	toggling_step(a);
	return 0;
}

static const struct site_ext_arm toggling_ext = { .step = "toggling_fused", .on = SITE_EXT_ON_BIT(SITE_EXT_HOST),
						  .call = toggling_ext_cpu };

static struct site_desc toggling_site;

/* Case 0 (ln_modulate) on a copy of its site whose fused arm toggles x,
 * built in (ext false) or as an arm from outside (ext true). */
static void use_toggling_site(struct fixture *f, bool ext)
{
	const struct site_desc *ln = site_find("ln_modulate");
	const struct site_variant *fused = site_find_variant(ln, "fused");
	real_fused = site_variant_impl(fused, SITE_IMPL_CPU);
	toggling_site = *ln;
	struct site_variant *v = &toggling_site.variants[fused - ln->variants];
	memset(v->impls, 0, sizeof v->impls);
	if (ext)
		v->ext = &toggling_ext;
	else
		v->impls[0] = (struct site_impl){ SITE_IMPL_CPU, &toggling_impl };
	f->s->cases[0].site = &toggling_site;
}

/* 1 warm-up + 7 samples: 8 calls in slot B1, so x is as the case made it
 * at the slot's end; the check after the first call sees it changed. */
static void test_even_toggles_caught(void **state)
{
	struct fixture *f = *state;
	struct ab_diag d = { "" };
	use_toggling_site(f, false);
	f->env.sampling.warmup = 1;
	assert_int_equal(f->env.sampling.max_samples, 7);
	assert_int_equal(run_case_run(&f->env, &f->s->cases[0], &f->out, &d), AB_ERR_BACKEND);
	assert_string_equal(d.msg, "case 'ln': arm 'fused' (slot B1) wrote into its input 'x' (seen after its first call)");
	assert_int_equal(f->out.slots[0].n_samples, 7); /* A1 ran clean */
}

/* Odd counts were caught before, at the slot's end: now after the first call too. */
static void test_odd_toggles_caught(void **state)
{
	struct fixture *f = *state;
	struct ab_diag d = { "" };
	use_toggling_site(f, false);
	assert_int_equal(f->env.sampling.warmup, 2);
	assert_int_equal(run_case_run(&f->env, &f->s->cases[0], &f->out, &d), AB_ERR_BACKEND);
	assert_non_null(strstr(d.msg, "arm 'fused' (slot B1) wrote into its input 'x'"));
}

/* The CPU backend, but slot_begin calls an arm from outside once, untimed,
 * as CUDA's does (its prepare and first launch). */
static struct backend_ops priming;

static enum ab_rc priming_slot_begin(struct backend *b, const struct site_variant *v, const char *range,
				     struct results_clocks *before, struct ab_diag *d)
{
	struct attrib_collector kc;
	struct bk_sample s;
	enum ab_rc rc = backend_cpu.slot_begin(b, v, range, before, d);
	if (rc || !v->ext)
		return rc;
	if ((rc = attrib_init(&kc, 0, d)))
		return rc;
	rc = backend_cpu.sample(b, v, ATTRIB_UNTIMED, &kc, &s, d);
	attrib_free(&kc);
	return rc;
}

/* An arm from outside, primed: 1 + 0 warm-ups + 7 samples = 8 calls, and
 * 2 by the first sample; only the check right after slot_begin sees x
 * changed. */
static void test_primed_ext_toggles_caught(void **state)
{
	struct fixture *f = *state;
	struct ab_diag d = { "" };
	use_toggling_site(f, true);
	priming = backend_cpu;
	priming.slot_begin = priming_slot_begin;
	f->env.ops = &priming;
	f->env.sampling.warmup = 0;
	assert_int_equal(run_case_run(&f->env, &f->s->cases[0], &f->out, &d), AB_ERR_BACKEND);
	assert_string_equal(d.msg, "case 'ln': arm 'fused' (slot B1) wrote into its input 'x' (seen after its first call)");
}

/* The same arm unprimed on the CPU: its first call is the first sample. */
static void test_ext_toggles_caught(void **state)
{
	struct fixture *f = *state;
	struct ab_diag d = { "" };
	use_toggling_site(f, true);
	f->env.sampling.warmup = 1;
	assert_int_equal(run_case_run(&f->env, &f->s->cases[0], &f->out, &d), AB_ERR_BACKEND);
	assert_string_equal(d.msg, "case 'ln': arm 'fused' (slot B1) wrote into its input 'x' (seen after its first call)");
}

/* The CPU backend with a host time planted in every sample, as CUDA's
 * samples carry one: 1000 ns x the sample id (warm-ups 1 s, never kept). */
static struct backend_ops planted;

static enum ab_rc planted_sample(struct backend *b, const struct site_variant *v, uint32_t id,
				 struct attrib_collector *k, struct bk_sample *out, struct ab_diag *d)
{
	enum ab_rc rc = backend_cpu.sample(b, v, id, k, out, d);
	out->host_ns = id == ATTRIB_UNTIMED ? 1e9 : 1000.0 * id;
	return rc;
}

/* The host time of a call: kept per sample beside the wall time, its
 * median and 90th percentile per slot (samples 1..7: 4000 and 6400 ns,
 * type 7); on the CPU backend itself, not measured (NAN everywhere). */
static void test_host_time_per_slot(void **state)
{
	struct fixture *f = *state;
	planted = backend_cpu;
	planted.sample = planted_sample;
	f->env.ops = &planted;
	run(f, 0);
	for (int i = 0; i < f->out.n_slots; i++) {
		const struct results_slot *s = &f->out.slots[i];
		assert_int_equal(s->n_samples, 7);
		for (int k = 0; k < 7; k++)
			assert_true(s->host_ns[k] == 1000.0 * (k + 1));
		assert_true(s->host_median_ns == 4000.0);
		assert_true(s->host_p90_ns == 6400.0);
	}
	f->env.ops = &backend_cpu;
	run(f, 0);
	for (int i = 0; i < f->out.n_slots; i++) {
		const struct results_slot *s = &f->out.slots[i];
		assert_true(isnan(s->host_median_ns) && isnan(s->host_p90_ns));
		for (int k = 0; k < s->n_samples; k++)
			assert_true(isnan(s->host_ns[k]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_slots_in_bracket_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_samples_and_slot_figures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_stop_reasons, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outputs_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_variant_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_byte_equal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_even_toggles_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_toggles_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_primed_ext_toggles_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ext_toggles_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_time_per_slot, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
