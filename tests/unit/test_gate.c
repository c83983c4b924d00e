/*
 * test_gate.c - the gate's verdicts and its exit-code contract on runs
 * built by hand with a deterministic fake timer:
 *   A/A passes; a planted regression (B 20% slower, A steady, 30 samples
 *   each) fails with exit status 1; a slowdown within the threshold passes;
 *   3 against 3 samples are INCONCLUSIVE (exit 4), as is a --quick run or
 *   baseline and a partial run (run --only) that lacks cases, while a quick
 *   run's significant regression still fails; lost bit-exactness fails; a missing case fails; an improvement passes
 *   and is reported; scenario, device and status mismatches are data
 *   errors (2).
 * The H200's false alarms rebuilt (bracket normalisation, the absolute
 * floor) are in test_gate_alarms.c; the shared fixture in gate_fixture.h.
 *
 * Expected values follow from the construction: B samples scaled by 1.2
 * give a change of exactly +20%; 30 against 30 fully separated samples give
 * p = 2 / 2001 = 1.0e-03 (the block bootstrap's smallest, analysis/blockboot.h),
 * far below 0.01; identical samples give p = 1. Each test says how its
 * other numbers were obtained.
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

#include "analysis/gate.h"
#include "common/stats.h"
#include "print/printer.h"
#include "gate_fixture.h"

/* ---- verdicts ---- */

static void test_aa_passes(void **state)
{
	(void)state;
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.n_cases, 2);
	assert_int_equal(res.n_failed, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(res.cases[i].verdict, GATE_PASS);
		assert_true(res.cases[i].change == 0);
		assert_true(res.cases[i].raw_change == 0);
		assert_int_equal(res.cases[i].basis, GATE_NORMALISED);
		assert_true(res.cases[i].norm_change == 0);
		assert_true(res.cases[i].p_value == 1);
		assert_true(res.cases[i].cmp.p_value == 1);
		assert_true(res.cases[i].noise_floor == 0); /* A1 and A2 identical */
		assert_true(res.cases[i].drift_run == 0);
		assert_true(res.cases[i].run_exact);
	}
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_planted_regression_fails(void **state)
{
	(void)state;
	const struct fake_case slow[] = { { "ln", 100e3, 60e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", slow, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_int_equal(res.n_failed, 1);
	assert_int_equal(res.n_time_regressed, 1);
	assert_int_equal(res.cases[0].verdict, GATE_REGRESSED);
	/* A steady at 100 us: r = 0.6 against 0.5, +20% normalised as raw */
	assert_int_equal(res.cases[0].basis, GATE_NORMALISED);
	assert_true(fabs(res.cases[0].change - 0.2) < 1e-12);
	assert_true(fabs(res.cases[0].raw_change - 0.2) < 1e-12);
	assert_true(fabs(res.cases[0].r_base - 0.5) < 1e-12);
	assert_true(fabs(res.cases[0].r_run - 0.6) < 1e-12);
	assert_true(res.cases[0].p_value < 0.005);
	assert_true(res.cases[0].cmp.p_value < 0.005);
	assert_true(res.cases[0].a_change == 0); /* the A arm did not move */
	assert_int_equal(res.cases[1].verdict, GATE_PASS);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer_job pj = { .f = f, .gate = &(struct printer_gate){ .r = &res } };
	assert_int_equal(gate_print_failing(&pj, NULL), AB_OK);
	fclose(f);
	assert_string_equal(buf, "ln\n");
	free(buf);
	gate_result_free(&res);

	/* the same 20% under a 25% threshold passes: not beyond it */
	o = opts(25);
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_noise_within_threshold_passes(void **state)
{
	(void)state;
	/* 3% slower: significant (fully separated), but under the 5% threshold */
	const struct fake_case near[] = { { "ln", 100e3, 51.5e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", near, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_true(fabs(res.cases[0].change - 0.03) < 1e-12);
	assert_true(res.cases[0].cmp.p_value < 0.01);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_too_few_samples_inconclusive(void **state)
{
	(void)state;
	/* 50% slower with 3 samples a side: the best two-sided p with 3 and 3
	 * is erfc((4.5 - 0.5) / sqrt(5.25) / sqrt(2)) = 0.081 > 0.01 */
	const struct fake_case b3[] = { { "ln", 100e3, 50e3, 3, true } };
	const struct fake_case r3[] = { { "ln", 100e3, 75e3, 3, true } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", b3, 1), *r = fake_run(2, "smoke", "cpu0", r3, 1);
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_INCONCLUSIVE);
	assert_true(fabs(res.cases[0].cmp.p_value - 0.0808556) < 1e-6);
	assert_true(res.cases[0].underpowered);
	assert_int_equal(res.cases[0].verdict, GATE_INCONCLUSIVE);
	assert_int_equal(res.n_inconclusive, 1);
	assert_int_equal(res.n_failed, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer_job pj = { .f = f, .gate = &(struct printer_gate){ b, r, &o, &res } };
	assert_int_equal(gate_print_verdict(&pj, NULL), AB_OK);
	fclose(f);
	assert_non_null(strstr(buf, "## gate: INCONCLUSIVE: run 2 against baseline run 1"));
	assert_non_null(strstr(buf, "INCONCLUSIVE (slower beyond the threshold, too few samples to call it; too few "
				    "samples: baseline A1 has 3, the gate needs 10 a slot) |"));
	assert_non_null(strstr(buf, "1 case has a slot under 10 samples"));
	free(buf);
	gate_result_free(&res);
	/* --min-samples 3 accepts them: the case passes, as it did before */
	o.min_samples = 3;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

/* A run made with --quick never passes, however many samples it kept; it
 * still fails on a regression it saw, and on lost bit-exactness. */
static void test_quick_run_inconclusive(void **state)
{
	(void)state;
	const struct fake_case slow[] = { { "ln", 100e3, 200e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	r->quick = true;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_INCONCLUSIVE);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	assert_true(gate_inconclusive(&res));
	char *buf = verdict_md(b, r, &o, &res);
	assert_non_null(strstr(buf, "## gate: INCONCLUSIVE: run 2 against baseline run 1"));
	assert_non_null(strstr(buf, "run 2 was made with `--quick`"));
	free(buf);
	gate_result_free(&res);
	/* a quick baseline too */
	r->quick = false;
	b->quick = true;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_INCONCLUSIVE);
	gate_result_free(&res);
	b->quick = false;
	/* a regression seen in a quick run fails */
	results_run_free(r);
	r = fake_run(2, "smoke", "cpu0", slow, 2);
	r->quick = true;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_int_equal(res.cases[0].verdict, GATE_REGRESSED);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

/* A run restricted by run --only lacks the other cases: they are not
 * measured (not missing), and the gate is inconclusive unless it is asked
 * about the measured case alone. */
static void test_partial_run(void **state)
{
	(void)state;
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 1);
	struct gate_options o = opts(5);
	struct gate_result res;
	snprintf(r->only_cases, sizeof r->only_cases, "ln");
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_INCONCLUSIVE);
	assert_int_equal(res.cases[0].verdict, GATE_PASS);
	assert_int_equal(res.cases[1].verdict, GATE_NOT_MEASURED);
	assert_int_equal(res.n_not_measured, 1);
	assert_int_equal(res.n_missing, 0);
	char *buf = verdict_md(b, r, &o, &res);
	assert_non_null(strstr(buf, "Run 2 is **partial** (`run --only ln`): it lacks 1 of the baseline's cases (`qk`)"));
	assert_non_null(strstr(buf, "| not measured (partial run) |"));
	free(buf);
	gate_result_free(&res);
	o.only = "ln";
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	gate_result_free(&res);
	/* the same run without the record of --only: qk is missing, a failure */
	o.only = NULL;
	r->only_cases[0] = '\0';
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_int_equal(res.cases[1].verdict, GATE_MISSING);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_lost_bit_exactness_fails(void **state)
{
	(void)state;
	const struct fake_case lost[] = { { "ln", 100e3, 50e3, 30, true }, { "qk", 200e3, 80e3, 30, false } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", lost, 2);
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
	struct printer_job pj = { .f = f, .gate = &(struct printer_gate){ .r = &res } };
	assert_int_equal(gate_print_failing(&pj, NULL), AB_OK);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	gate_result_free(&res);

	/* an A slot that was bit-exact in the baseline and is not now */
	results_run_free(r);
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
	results_run_free(b);
	results_run_free(r);
}

static void test_missing_case_fails(void **state)
{
	(void)state;
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 1);
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
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "case 'nope' is not in the baseline (run 1) (its cases: ln, qk)");

	/* excluding the missing case passes too */
	const char *ex[] = { "qk" };
	o.only = NULL;
	o.exclude = ex;
	o.n_exclude = 1;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_OK);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_improvement_passes_and_is_reported(void **state)
{
	(void)state;
	const struct fake_case fast[] = { { "ln", 100e3, 40e3, 30, true }, { "qk", 200e3, 80e3, 30, true },
					  { "new", 10e3, 5e3, 30, true } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", fast, 3);
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
	struct printer_job pj = { .f = f, .gate = &(struct printer_gate){ b, r, &o, &res } };
	assert_int_equal(gate_print_verdict(&pj, NULL), AB_OK);
	fclose(f);
	assert_non_null(strstr(buf, "## gate: PASS: run 2 against baseline run 1"));
	assert_non_null(strstr(buf, "| -20.00% ["));
	assert_non_null(strstr(buf, "| yes | faster (reported, passes) |"));
	assert_non_null(strstr(buf, "| new (not in the baseline) |"));
	assert_non_null(strstr(buf, "3 cases checked: 0 failed (0 regressed in time, 0 lost bit-exactness, 0 missing), 1 faster, 0 inconclusive, 0 not measured."));
	free(buf);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_fail_markdown(void **state)
{
	(void)state;
	/* ln: A 100 -> 120 us (+20%), B 50 -> 75 us (+50% raw); normalised
	 * r = 75/120 = 0.625 against 50/100 = 0.5: +25%, still a regression */
	const struct fake_case slow[] = { { "ln", 120e3, 75e3, 30, true }, { "qk", 200e3, 80e3, 30, true } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(7, "smoke", "cpu0", slow, 2);
	struct gate_options o = opts(5);
	o.baseline_name = "nightly";
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_true(fabs(res.cases[0].raw_change - 0.5) < 1e-12);
	assert_true(fabs(res.cases[0].change - 0.25) < 1e-12);
	assert_true(fabs(res.cases[0].a_change - 0.2) < 1e-12);
	char *buf = verdict_md(b, r, &o, &res);
	assert_non_null(strstr(buf, "## gate: FAIL: run 7 against baseline `nightly` (run 1)"));
	assert_non_null(strstr(buf, "Scenario `smoke`, device cpu0, A arm `eager`, B arm `fused`.\n"));
	assert_non_null(strstr(buf, "| case | baseline B median \\[p10, p90\\] us | run B median \\[p10, p90\\] us | "
				   "raw B change \\[95% CI\\] | B/A change \\[95% CI\\] | noise floor | "
				   "change in us (floor 0.000) | p (block bootstrap) | bit-exact | verdict |"));
	assert_non_null(strstr(buf, "| `ln` | 50.000 ["));
	assert_non_null(strstr(buf, "| +50.00% ["));
	assert_non_null(strstr(buf, "| +25.00% ["));
	/* the judged change in us: +25% of the baseline's 50 us B */
	assert_true(fabs(res.cases[0].abs_change_ns - 12500) < 1e-6);
	assert_non_null(strstr(buf, "| 0.00% | +12.500 | 1.0e-03 | yes | **REGRESSED**; the A arm moved +20.00% too: the "
				   "machine may have changed |"));
	assert_non_null(strstr(buf, "exceeds 5.00% (test) and the noise floor, and that change in time, B/A change x "
				   "median(B, baseline), exceeds the absolute floor of 0.000 us (test), with p < 0.01 "
				   "(and, when the A arm itself moved"));
	assert_null(strstr(buf, "judged on raw B times"));
	free(buf);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

static void test_data_errors(void **state)
{
	(void)state;
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", BASE, 2);
	struct gate_options o = opts(5);
	struct gate_result res;
	struct ab_diag d;

	snprintf(r->scenario_name, sizeof r->scenario_name, "glm_1024");
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "run 2 measured scenario 'glm_1024', the baseline (run 1) 'smoke'");
	assert_int_equal(ab_rc_exit_status(AB_ERR_DATA), AB_EXIT_USAGE);
	snprintf(r->scenario_name, sizeof r->scenario_name, "smoke");

	snprintf(r->device.name, sizeof r->device.name, "NVIDIA H200");
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "run 2 ran on 'NVIDIA H200', the baseline (run 1) on 'cpu0'");
	snprintf(r->device.name, sizeof r->device.name, "cpu0");

	snprintf(r->status, sizeof r->status, "failed");
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "gated run 2 is 'failed', not 'ok'");
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(b->status, sizeof b->status, "running");
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "baseline run 1 is 'running', not 'ok'");
	snprintf(b->status, sizeof b->status, "ok");

	o.max_regression_pct = 0;
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_USAGE);
	o.max_regression_pct = 5;
	o.min_change_ns = -1;
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_USAGE);
	assert_string_equal(d.msg, "the absolute floor must be 0 ns or more, not -1");
	o.min_change_ns = NAN;
	assert_int_equal(gate_runs(b, r, &o, &res, &d), AB_ERR_USAGE);
	results_run_free(b);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_passes),
		cmocka_unit_test(test_planted_regression_fails),
		cmocka_unit_test(test_noise_within_threshold_passes),
		cmocka_unit_test(test_too_few_samples_inconclusive),
		cmocka_unit_test(test_quick_run_inconclusive),
		cmocka_unit_test(test_partial_run),
		cmocka_unit_test(test_lost_bit_exactness_fails),
		cmocka_unit_test(test_missing_case_fails),
		cmocka_unit_test(test_improvement_passes_and_is_reported),
		cmocka_unit_test(test_fail_markdown),
		cmocka_unit_test(test_data_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
