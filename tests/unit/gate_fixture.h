/*
 * gate_fixture.h - what the gate's unit tests (test_gate.c,
 * test_gate_alarms.c) share: the two-case baseline BASE of fake runs, a
 * threshold without an absolute floor, gate_check on the runs' summaries,
 * and its markdown verdict as a string.
 *
 * Each tests/unit/test_X.c is built alone against build/libabbench.a, so
 * these are static inline functions (a test file that uses only some of
 * them gets no unused-function warning). Include it after <cmocka.h>.
 */
#ifndef AB_TEST_GATE_FIXTURE_H
#define AB_TEST_GATE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "analysis/gate.h"
#include "print/printer.h"
#include "fixtures.h"

/* gate_check on the runs' summaries (the gate's results hold copies of the
 * figures it needs, so the summaries go at once). */
static inline enum ab_rc gate_runs(const struct results_run *base, const struct results_run *run,
				   const struct gate_options *o, struct gate_result *res, struct ab_diag *d)
{
	struct summary_run *sb = fx_summary(base, SUMMARY_NO_INTERVALS), *sr = fx_summary(run, SUMMARY_NO_INTERVALS);
	enum ab_rc rc = gate_check(sb, sr, o, res, d);
	fx_summary_free(sb);
	fx_summary_free(sr);
	return rc;
}

static const struct fake_case BASE[] = {
	{ "ln", 100e3, 50e3, 30, true },
	{ "qk", 200e3, 80e3, 30, true },
};

/* A threshold of pct percent and no absolute floor (0 ns). */
static inline struct gate_options opts(double pct)
{
	struct gate_options o = { .max_regression_pct = pct, .threshold_source = "test", .min_change_ns = 0,
				  .min_change_source = "test" };
	return o;
}

/* Gates run against base; returns the exit status, result kept in *res. */
static inline int gate(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
		       struct gate_result *res)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = gate_runs(base, run, o, res, &d);
	if (rc != AB_OK)
		fail_msg("gate_check: %s", d.msg);
	return gate_exit_status(res);
}

/* The markdown verdict as a malloc'd string. */
static inline char *verdict_md(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
			       const struct gate_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct printer_job pj = { .f = f, .gate = &(struct printer_gate){ base, run, o, res } };
	assert_int_equal(gate_print_verdict(&pj, NULL), AB_OK);
	fclose(f);
	return buf;
}

#endif
