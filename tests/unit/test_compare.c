/*
 * test_compare.c - two runs of one scenario, case by case: medians, ratio
 * and interval, Mann-Whitney verdict, md5 agreement, missing cases, and the
 * markdown table; the gate's floors held to a compare (an A/A-like +1.56%
 * with p < 1e-6 is no change beyond the threshold, a change inside the A
 * arm's drift or under the absolute floor neither; a +20% one is slower).
 *
 * Runs are built by hand from a fixed sample pattern (fake_run, the fake
 * timer of fixtures.h). Expected values follow from the construction, not from the code
 * under test: a run whose B samples are the baseline's times 1.2 has a
 * median ratio of exactly 1.2, and 30 samples against 30 with every one of
 * one side above every one of the other give a Mann-Whitney p far under
 * 1e-6 (z = 449.5 / sqrt(4575) = 6.6 before the tie correction).
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

#include "analysis/compare.h"
#include "print/printer.h"
#include "fixtures.h"

/* compare_runs on the runs' summaries (the result holds copies of the
 * figures, so the summaries go at once). */
static enum ab_rc compare_two(const struct results_run *a, const struct results_run *b, struct compare_result *res,
			      struct ab_diag *d)
{
	struct summary_run *sa = fx_summary(a, SUMMARY_NO_INTERVALS), *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	enum ab_rc rc = compare_runs(sa, sb, res, d);
	fx_summary_free(sa);
	fx_summary_free(sb);
	return rc;
}

static void test_same_runs(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100e3, 50e3, 30, true } };
	struct results_run *a = fake_run(1, "smoke", "cpu0", fc, 1), *b = fake_run(2, "smoke", "cpu0", fc, 1);
	struct compare_result res;
	struct ab_diag d;
	assert_int_equal(compare_two(a, b, &res, &d), AB_OK);
	assert_int_equal(res.n_cases, 1);
	struct compare_case *c = &res.cases[0];
	assert_true(c->ratio.point == 1.0);
	assert_true(c->ratio.low <= 1.0 && c->ratio.high >= 1.0);
	assert_true(c->p_value == 1.0); /* identical samples: U at its mean */
	assert_int_equal(c->verdict, COMPARE_SAME);
	assert_int_equal(c->a.n, 30);
	assert_true(c->a.median_ns == c->b.median_ns);
	assert_int_equal(c->md5_compared, 3);
	assert_int_equal(c->md5_differ, 0);
	compare_result_free(&res);
	results_run_free(a);
	results_run_free(b);
}

static void test_slower_and_faster(void **state)
{
	(void)state;
	const struct fake_case fa[] = { { "slow", 100e3, 50e3, 30, true }, { "fast", 100e3, 50e3, 30, true } };
	const struct fake_case fb[] = { { "slow", 100e3, 60e3, 30, true }, { "fast", 100e3, 40e3, 30, true } };
	struct results_run *a = fake_run(1, "smoke", "cpu0", fa, 2), *b = fake_run(2, "smoke", "cpu0", fb, 2);
	struct compare_result res;
	struct ab_diag d;
	assert_int_equal(compare_two(a, b, &res, &d), AB_OK);
	struct compare_case *s = &res.cases[0], *f = &res.cases[1];
	assert_string_equal(s->name, "slow");
	assert_true(fabs(s->ratio.point - 1.2) < 1e-12);
	assert_true(s->ratio.low > 1.17 && s->ratio.low <= 1.2 && s->ratio.high >= 1.2 && s->ratio.high < 1.23);
	assert_true(s->p_value < 0.005);
	assert_int_equal(s->verdict, COMPARE_SLOWER);
	assert_true(fabs(s->b.median_ns / s->a.median_ns - 1.2) < 1e-12);
	assert_true(fabs(f->ratio.point - 0.8) < 1e-12);
	assert_true(f->p_value < 0.005);
	assert_int_equal(f->verdict, COMPARE_FASTER);
	compare_result_free(&res);
	results_run_free(a);
	results_run_free(b);
}

/* Refills a slot around base (the fake pattern, +-1%). */
static void reslot(struct results_slot *s, double base)
{
	for (int i = 0; i < s->n_samples; i++)
		s->samples_ns[i] = fake_sample(base, i);
	fake_slot_stats(s);
}

static void test_floors(void **state)
{
	(void)state;
	const struct fake_case fa[] = { { "aa", 100e3, 50e3, 30, true }, { "drift", 100e3, 50e3, 30, true },
					{ "short", 10e3, 4e3, 30, true }, { "slow", 100e3, 50e3, 30, true } };
	const struct fake_case fb[] = { { "aa", 100e3, 50.78e3, 30, true }, { "drift", 100e3, 60e3, 30, true },
					{ "short", 10e3, 4.4e3, 30, true }, { "slow", 100e3, 60e3, 30, true } };
	struct results_run *a = fake_run(1, "smoke", "cpu0", fa, 4), *b = fake_run(2, "smoke", "cpu0", fb, 4);
	reslot(&b->cases[1].slots[2], 125e3); /* A2 25% above A1: the run's drift is 25% */
	struct compare_result res;
	struct ab_diag d;
	struct summary_run *sa = fx_summary(a, SUMMARY_NO_INTERVALS), *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	assert_int_equal(compare_runs(sa, sb, &res, &d), AB_OK);
	for (int i = 0; i < 4; i++) {
		assert_true(res.cases[i].p_value < 0.005);
		assert_int_equal(res.cases[i].verdict, COMPARE_SLOWER);
	}
	assert_true(fabs(res.cases[0].ratio.point - 1.0156) < 1e-12);
	assert_true(fabs(res.cases[1].noise_floor - 0.25) < 1e-12);
	assert_true(fabs(res.cases[2].change_ns - 400) < 1e-9);
	const struct compare_floors fl = { 0.05, 500, "test", "test" };
	compare_apply_floors(&res, &fl);
	assert_int_equal(res.cases[0].verdict, COMPARE_WITHIN_FLOORS);
	assert_int_equal(res.cases[0].held, COMPARE_HELD_THRESHOLD);
	assert_int_equal(res.cases[1].verdict, COMPARE_WITHIN_FLOORS);
	assert_int_equal(res.cases[1].held, COMPARE_HELD_DRIFT);
	assert_int_equal(res.cases[2].verdict, COMPARE_WITHIN_FLOORS);
	assert_int_equal(res.cases[2].held, COMPARE_HELD_ABSOLUTE);
	assert_int_equal(res.cases[3].verdict, COMPARE_SLOWER);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer_job pj = { .f = f, .summary = sa, .second = sb, .compare = &res };
	assert_int_equal(compare_print_table(&pj, &d), AB_OK);
	fclose(f);
	assert_non_null(strstr(buf, "| no change beyond the floors (+1.56%, within the 5.00% threshold) |"));
	assert_non_null(strstr(buf, "| no change beyond the floors (+20.00%, within the A arm's drift of 25.00%) |"));
	assert_non_null(strstr(buf, "| no change beyond the floors (+10.00%, +400 ns, within the absolute floor of 500 ns) |"));
	assert_non_null(strstr(buf, "| slower (+20.00%) |"));
	assert_non_null(strstr(buf, "clears the gate's floors: beyond 5.00% (test)"));
	free(buf);
	compare_result_free(&res);
	fx_summary_free(sa);
	fx_summary_free(sb);
	results_run_free(a);
	results_run_free(b);
}

static void test_missing_and_md5(void **state)
{
	(void)state;
	const struct fake_case fa[] = { { "x", 100e3, 50e3, 10, true }, { "y", 100e3, 50e3, 10, true } };
	const struct fake_case fb[] = { { "x", 100e3, 50e3, 10, false }, { "z", 100e3, 50e3, 10, true } };
	struct results_run *a = fake_run(1, "smoke", "cpu0", fa, 2), *b = fake_run(2, "smoke", "cpu0", fb, 2);
	struct compare_result res;
	struct ab_diag d;
	assert_int_equal(compare_two(a, b, &res, &d), AB_OK);
	assert_int_equal(res.n_cases, 3);
	assert_string_equal(res.cases[0].name, "x");
	assert_int_equal(res.cases[0].md5_compared, 3);
	assert_int_equal(res.cases[0].md5_differ, 1); /* the B output of run b */
	assert_string_equal(res.cases[1].name, "y");
	assert_int_equal(res.cases[1].verdict, COMPARE_MISSING_B);
	assert_true(isnan(res.cases[1].ratio.point));
	assert_string_equal(res.cases[2].name, "z");
	assert_int_equal(res.cases[2].verdict, COMPARE_MISSING_A);
	compare_result_free(&res);
	results_run_free(a);
	results_run_free(b);
}

static void test_scenario_mismatch(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100e3, 50e3, 10, true } };
	struct results_run *a = fake_run(3, "smoke", "cpu0", fc, 1), *b = fake_run(4, "glm_1024", "cpu0", fc, 1);
	struct compare_result res;
	struct ab_diag d;
	assert_int_equal(compare_two(a, b, &res, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "runs 3 and 4 measured different scenarios ('smoke' and 'glm_1024')");
	assert_int_equal(ab_rc_exit_status(AB_ERR_DATA), 2);
	results_run_free(a);
	results_run_free(b);
}

static void test_markdown(void **state)
{
	(void)state;
	const struct fake_case fa[] = { { "a|b", 100e3, 50e3, 30, true } };
	const struct fake_case fb[] = { { "a|b", 100e3, 60e3, 30, true } };
	struct results_run *a = fake_run(1, "smoke", "cpu0", fa, 1), *b = fake_run(2, "smoke", "cpu1", fb, 1);
	struct compare_result res;
	struct ab_diag d;
	char *buf = NULL;
	size_t len = 0;
	struct summary_run *sa = fx_summary(a, SUMMARY_NO_INTERVALS), *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	assert_int_equal(compare_runs(sa, sb, &res, &d), AB_OK);
	FILE *f = open_memstream(&buf, &len);
	struct printer_job pj = { .f = f, .summary = sa, .second = sb, .compare = &res };
	assert_int_equal(compare_print_table(&pj, &d), AB_OK);
	fclose(f);
	fx_summary_free(sa);
	fx_summary_free(sb);
	assert_non_null(strstr(buf, "## compare: run 1 vs run 2, scenario `smoke`"));
	/* the fake B median at 50e3 is 50000 * (1 + 0.002 * m) for the pattern's
	 * median m; the cell prints it in a scaled unit, us with two decimals */
	char want[160];
	snprintf(want, sizeof want, "| `a\\|b` | %.2f us [", res.cases[0].a.median_ns / 1e3);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "n=30 | 1.2000 ["));
	assert_non_null(strstr(buf, "| slower (+20.00%) | yes (3 outputs) |"));
	assert_non_null(strstr(buf, "different devices"));
	assert_non_null(strstr(buf, "| `a\\|b` | n/a |")); /* no bytes recorded: no bandwidth */
	free(buf);
	compare_result_free(&res);
	results_run_free(a);
	results_run_free(b);
}

/* The B arm's bytes over its median: 50e3 bytes in run 1's B median
 * (about 50 us) is about 1 GB/s; run 2 measured a copy bandwidth of 4 GB/s
 * (run 1 none, its empty device name finding no profile with one). */
static void test_bandwidth(void **state)
{
	(void)state;
	const struct fake_case fa[] = { { "x", 100e3, 50e3, 30, true } };
	const struct fake_case fb[] = { { "x", 100e3, 25e3, 30, true } };
	struct results_run *a = fake_run(1, "smoke", "", fa, 1), *b = fake_run(2, "smoke", "", fb, 1);
	struct compare_result res;
	struct ab_diag d;
	a->cases[0].bytes_b = b->cases[0].bytes_b = 50000;
	b->device.copy_gbps = 4;
	struct summary_run *sa = fx_summary(a, SUMMARY_NO_INTERVALS), *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	assert_int_equal(compare_runs(sa, sb, &res, &d), AB_OK);
	const struct compare_case *c = &res.cases[0];
	assert_true(c->bw_a.bytes == 50000 && c->bw_a.gbps == 50000 / c->a.median_ns);
	assert_true(isnan(c->bw_a.pct_copy));
	assert_true(c->bw_b.gbps == 50000 / c->b.median_ns);
	assert_true(fabs(c->bw_b.pct_copy - 100 * c->bw_b.gbps / 4) < 1e-12);
	assert_true(fabs(c->bw_b.gbps - 2.0) < 0.02);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer_job pj = { .f = f, .summary = sa, .second = sb, .compare = &res };
	assert_int_equal(compare_print_table(&pj, &d), AB_OK);
	fclose(f);
	char want[96];
	snprintf(want, sizeof want, "| `x` | %.1f / %.1f |", c->bw_a.gbps, c->bw_b.gbps);
	assert_non_null(strstr(buf, want));
	free(buf);
	fx_summary_free(sa);
	fx_summary_free(sb);
	compare_result_free(&res);
	results_run_free(a);
	results_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_same_runs),
		cmocka_unit_test(test_slower_and_faster),
		cmocka_unit_test(test_floors),
		cmocka_unit_test(test_missing_and_md5),
		cmocka_unit_test(test_scenario_mismatch),
		cmocka_unit_test(test_markdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
