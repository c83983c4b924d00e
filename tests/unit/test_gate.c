/*
 * test_gate.c - the gate's verdicts and its exit-code contract on runs
 * built by hand with a deterministic fake timer:
 *   A/A passes; a planted regression (B 20% slower, 30 samples each) fails
 *   with exit status 1; a slowdown within the threshold passes; lost
 *   bit-exactness fails; a missing case fails; an improvement passes and is
 *   reported; scenario, device and status mismatches are data errors (2).
 *
 * Expected values follow from the construction: B samples scaled by 1.2
 * give a change of exactly +20%; 30 against 30 fully separated samples give
 * p far below 0.01; identical samples give p = 1.
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

#include "../../harness/gate.h"
#include "../../harness/stats.h"

/* ---- a run built by hand, with a deterministic fake timer ----
 *
 * Sample i of a slot is base * (1 + 0.002 * ((7 * i) % 11 - 5)): a fixed
 * pattern within +-1% of base, the same in every slot, so that scaling a
 * slot's base scales every statistic of it exactly (medians, quantiles and
 * their ratios are linear in the samples). */
static double fake_sample(double base, int i)
{
	return base * (1 + 0.002 * ((7 * i) % 11 - 5));
}

static void fake_slot(struct res_slot *s, const char *label, char arm, const char *variant, int pos, double base,
		      int n, bool exact)
{
	memset(s, 0, sizeof *s);
	snprintf(s->label, sizeof s->label, "%s", label);
	s->arm = arm;
	snprintf(s->variant, sizeof s->variant, "%s", variant);
	s->position = pos;
	s->warmup = 2;
	s->n_samples = n;
	s->samples_ns = calloc((size_t)n + 1, sizeof *s->samples_ns);
	s->kernel_ns = calloc((size_t)n + 1, sizeof *s->kernel_ns);
	assert_non_null(s->samples_ns);
	for (int i = 0; i < n; i++) {
		s->samples_ns[i] = fake_sample(base, i);
		s->kernel_ns[i] = 0.9 * s->samples_ns[i];
	}
	s->median_ns = stat_median(s->samples_ns, n);
	s->p10_ns = stat_quantile(s->samples_ns, n, 0.1);
	s->p90_ns = stat_quantile(s->samples_ns, n, 0.9);
	s->noise = stat_stdev(s->samples_ns, n) / stat_mean(s->samples_ns, n);
	snprintf(s->stop_reason, sizeof s->stop_reason, "max_samples");
	s->n_outputs = 1;
	snprintf(s->outputs[0].tensor, sizeof s->outputs[0].tensor, "out");
	snprintf(s->outputs[0].md5, sizeof s->outputs[0].md5, "%s",
		 exact ? "0123456789abcdef0123456789abcdef" : "fedcba9876543210fedcba9876543210");
	s->outputs[0].bytes = 8192;
	s->outputs[0].bit_exact = exact;
	s->outputs[0].mismatches = exact ? 0 : 17;
	s->outputs[0].ref_ok = true;
}

struct fake_case {
	const char *name;
	double a_ns, b_ns; /* base of the A slots and of the B slot */
	int n;             /* samples per slot */
	bool b_exact;
};

static struct res_run *fake_run(int64_t id, const char *scenario, const char *device, const struct fake_case *fc,
				int n_cases)
{
	struct res_run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	r->id = id;
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(r->scenario_name, sizeof r->scenario_name, "%s", scenario);
	snprintf(r->device.name, sizeof r->device.name, "%s", device);
	snprintf(r->backend, sizeof r->backend, "cpu");
	snprintf(r->arm_a, sizeof r->arm_a, "eager");
	snprintf(r->arm_b, sizeof r->arm_b, "fused");
	snprintf(r->bracket, sizeof r->bracket, "ABA");
	snprintf(r->git_commit, sizeof r->git_commit, "abc123");
	r->n_cases = n_cases;
	r->cases = calloc((size_t)n_cases + 1, sizeof *r->cases);
	for (int i = 0; i < n_cases; i++) {
		struct res_case *c = &r->cases[i];
		snprintf(c->name, sizeof c->name, "%s", fc[i].name);
		snprintf(c->shape, sizeof c->shape, "1x16x256");
		c->count = 1;
		c->n_slots = 3;
		c->slots = calloc(3, sizeof *c->slots);
		fake_slot(&c->slots[0], "A1", 'a', "eager", 0, fc[i].a_ns, fc[i].n, true);
		fake_slot(&c->slots[1], "B", 'b', "fused", 1, fc[i].b_ns, fc[i].n, fc[i].b_exact);
		fake_slot(&c->slots[2], "A2", 'a', "eager", 2, fc[i].a_ns, fc[i].n, true);
	}
	return r;
}

static const struct fake_case BASE[] = {
	{ "ln", 100e3, 50e3, 30, true },
	{ "qk", 200e3, 80e3, 30, true },
};

static struct gate_options opts(double pct)
{
	struct gate_options o = { .max_regression_pct = pct, .threshold_source = "test" };
	return o;
}

/* Gates run against base; returns the exit status, result kept in *res. */
static int gate(const struct res_run *base, const struct res_run *run, const struct gate_options *o,
		struct gate_result *res)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = gate_check(base, run, o, res, &d);
	if (rc != AB_OK)
		fail_msg("gate_check: %s", d.msg);
	return gate_exit_status(res);
}

static void test_aa_passes(void **state)
{
	(void)state;
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.n_cases, 2);
	assert_int_equal(res.n_failed, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(res.cases[i].verdict, GATE_PASS);
		assert_true(res.cases[i].change == 0);
		assert_true(res.cases[i].cmp.p_value == 1);
		assert_true(res.cases[i].run_exact);
	}
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_planted_regression_fails(void **state)
{
	(void)state;
	const struct fake_case slow[] = { { "ln", 100e3, 60e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", slow, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_int_equal(res.n_failed, 1);
	assert_int_equal(res.n_time_regressed, 1);
	assert_int_equal(res.cases[0].verdict, GATE_REGRESSED);
	assert_true(fabs(res.cases[0].change - 0.2) < 1e-12);
	assert_true(res.cases[0].cmp.p_value < 1e-6);
	assert_true(res.cases[0].a_change == 0); /* the A arm did not move */
	assert_int_equal(res.cases[1].verdict, GATE_PASS);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(gate_print_failing(f, &res, NULL), AB_OK);
	fclose(f);
	assert_string_equal(buf, "ln\n");
	free(buf);
	gate_result_free(&res);

	/* the same 20% under a 25% threshold passes: not beyond it */
	o = opts(25);
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_noise_within_threshold_passes(void **state)
{
	(void)state;
	/* 3% slower: significant (fully separated), but under the 5% threshold */
	const struct fake_case near[] = { { "ln", 100e3, 51.5e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", near, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_true(fabs(res.cases[0].change - 0.03) < 1e-12);
	assert_true(res.cases[0].cmp.p_value < 0.01);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_too_few_samples_pass(void **state)
{
	(void)state;
	/* 50% slower with 3 samples a side: the best two-sided p with 3 and 3
	 * is erfc((4.5 - 0.5) / sqrt(5.25) / sqrt(2)) = 0.081 > 0.01 */
	const struct fake_case b3[] = { { "ln", 100e3, 50e3, 3, true } };
	const struct fake_case r3[] = { { "ln", 100e3, 75e3, 3, true } };
	struct res_run *b = fake_run(1, "smoke", "cpu0", b3, 1), *r = fake_run(2, "smoke", "cpu0", r3, 1);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_true(fabs(res.cases[0].cmp.p_value - 0.0808556) < 1e-6);
	assert_true(res.cases[0].underpowered);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(gate_print(f, b, r, &o, &res, NULL), AB_OK);
	fclose(f);
	assert_non_null(strstr(buf, "pass (slower beyond the threshold, too few samples to call it)"));
	free(buf);
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_lost_bit_exactness_fails(void **state)
{
	(void)state;
	const struct fake_case lost[] = { { "ln", 100e3, 50e3, 30, true }, { "qk", 200e3, 80e3, 30, false } };
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", lost, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_int_equal(res.cases[1].verdict, GATE_LOST_EXACT);
	assert_string_equal(res.cases[1].exact_note, "B 'out' not byte-equal to A1");
	assert_int_equal(res.n_lost_exact, 1);
	assert_int_equal(res.n_time_regressed, 0);
	/* nothing to re-measure: bit-exactness does not come back with samples */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(gate_print_failing(f, &res, NULL), AB_OK);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	gate_result_free(&res);

	/* an A slot that was bit-exact in the baseline and is not now */
	res_run_free(r);
	r = fake_run(2, "smoke", "cpu0", BASE, 2);
	r->cases[0].slots[2].outputs[0].bit_exact = false;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_string_equal(res.cases[0].exact_note, "A2 'out' no longer bit-exact");
	gate_result_free(&res);

	/* an output that the baseline had bit-exact and the run lacks */
	r->cases[0].slots[2].outputs[0].bit_exact = true;
	r->cases[1].slots[0].n_outputs = 0;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_string_equal(res.cases[1].exact_note, "A1 'out' missing from the run");
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_missing_case_fails(void **state)
{
	(void)state;
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 1);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_int_equal(res.cases[1].verdict, GATE_MISSING);
	assert_int_equal(res.n_missing, 1);
	gate_result_free(&res);

	/* --only the present case: passes; --only a case the baseline lacks: data error */
	o.only = "ln";
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.n_cases, 1);
	gate_result_free(&res);
	o.only = "nope";
	struct ab_diag d;
	assert_int_equal(gate_check(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "case 'nope' is not in the baseline (run 1)");

	/* excluding the missing case passes too */
	const char *ex[] = { "qk" };
	o.only = NULL;
	o.exclude = ex;
	o.n_exclude = 1;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_improvement_passes_and_is_reported(void **state)
{
	(void)state;
	const struct fake_case fast[] = { { "ln", 100e3, 40e3, 30, true }, { "qk", 200e3, 80e3, 30, true },
					  { "new", 10e3, 5e3, 30, true } };
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", fast, 3);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.cases[0].verdict, GATE_FASTER);
	assert_true(fabs(res.cases[0].change + 0.2) < 1e-12);
	assert_int_equal(res.n_faster, 1);
	assert_int_equal(res.cases[2].verdict, GATE_NEW);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(gate_print(f, b, r, &o, &res, NULL), AB_OK);
	fclose(f);
	assert_non_null(strstr(buf, "## gate: PASS: run 2 against baseline run 1"));
	assert_non_null(strstr(buf, "| -20.00% ["));
	assert_non_null(strstr(buf, "| yes | faster (reported, passes) |"));
	assert_non_null(strstr(buf, "| new (not in the baseline) |"));
	assert_non_null(strstr(buf, "3 cases checked: 0 failed (0 regressed in time, 0 lost bit-exactness, 0 missing), 1 faster."));
	free(buf);
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_fail_markdown(void **state)
{
	(void)state;
	const struct fake_case slow[] = { { "ln", 120e3, 60e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(7, "smoke", "cpu0", slow, 2);
	struct gate_options o = opts(5);
	o.baseline_name = "nightly";
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(gate_print(f, b, r, &o, &res, NULL), AB_OK);
	fclose(f);
	assert_non_null(strstr(buf, "## gate: FAIL: run 7 against baseline `nightly` (run 1)"));
	assert_non_null(strstr(buf, "| case | baseline B median \\[p10, p90\\] us | run B median \\[p10, p90\\] us | "
				   "change \\[95% CI\\] | p | bit-exact | verdict |"));
	assert_non_null(strstr(buf, "| +20.00% ["));
	assert_non_null(strstr(buf, "| **REGRESSED**; the A arm moved +20.00% too"));
	assert_non_null(strstr(buf, "by more than 5.00% (test)"));
	free(buf);
	gate_result_free(&res);
	res_run_free(b);
	res_run_free(r);
}

static void test_data_errors(void **state)
{
	(void)state;
	struct res_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	struct ab_diag d;

	snprintf(r->scenario_name, sizeof r->scenario_name, "glm_1024");
	assert_int_equal(gate_check(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "run 2 measured scenario 'glm_1024', the baseline (run 1) 'smoke'");
	assert_int_equal(ab_rc_exit_status(AB_ERR_DATA), AB_EXIT_USAGE);
	snprintf(r->scenario_name, sizeof r->scenario_name, "smoke");

	snprintf(r->device.name, sizeof r->device.name, "NVIDIA H200");
	assert_int_equal(gate_check(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "run 2 ran on 'NVIDIA H200', the baseline (run 1) on 'cpu0'");
	snprintf(r->device.name, sizeof r->device.name, "cpu0");

	snprintf(r->status, sizeof r->status, "failed");
	assert_int_equal(gate_check(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "gated run 2 is 'failed', not 'ok'");
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(b->status, sizeof b->status, "running");
	assert_int_equal(gate_check(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "baseline run 1 is 'running', not 'ok'");
	snprintf(b->status, sizeof b->status, "ok");

	o.max_regression_pct = 0;
	assert_int_equal(gate_check(b, r, &o, &res, &d), AB_ERR_USAGE);
	res_run_free(b);
	res_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_passes),
		cmocka_unit_test(test_planted_regression_fails),
		cmocka_unit_test(test_noise_within_threshold_passes),
		cmocka_unit_test(test_too_few_samples_pass),
		cmocka_unit_test(test_lost_bit_exactness_fails),
		cmocka_unit_test(test_missing_case_fails),
		cmocka_unit_test(test_improvement_passes_and_is_reported),
		cmocka_unit_test(test_fail_markdown),
		cmocka_unit_test(test_data_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
