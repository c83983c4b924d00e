/*
 * compare.h - one scenario measured by two builds, case by case.
 *
 * For every case the B arm (the fused kernel) of run A is compared with the
 * B arm of run B: their pooled time (summary.h), the ratio median(B of run
 * B) / median(B of run A) with a seeded bootstrap interval (the summary's
 * constants), a two-sided Mann-Whitney U test, and whether the outputs' md5
 * agree. The gate builds on the same per-case comparison. Judging only:
 * print/compare_print.c formats the result.
 */
#ifndef AB_COMPARE_H
#define AB_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "common/stats.h"

/* Significance level of the Mann-Whitney test (compare and gate). */
#define COMPARE_ALPHA 0.01

enum compare_verdict {
	COMPARE_SAME,      /* no significant difference */
	COMPARE_FASTER,    /* run B's fused arm is faster (p < alpha) */
	COMPARE_SLOWER,
	COMPARE_MISSING_A, /* the case is only in run B */
	COMPARE_MISSING_B, /* the case is only in run A */
};

struct compare_case {
	char name[64];
	struct summary_spread a, b;  /* the B arm in run A and in run B */
	struct stats_interval ratio; /* median(b) / median(a), SUMMARY_CI_LEVEL bootstrap */
	double p_value;              /* two-sided Mann-Whitney; NAN when not computed */
	enum compare_verdict verdict;
	int md5_compared;            /* outputs present in both, matched by slot and tensor */
	int md5_differ;              /* of those, how many differ */
};

struct compare_result {
	int n_cases;
	struct compare_case *cases;
};

/* Compares the B arms of one case summarised in two runs; either may be
 * NULL (the verdict then says which is missing). */
void compare_case_pair(const struct summary_case *a, const struct summary_case *b, struct compare_case *out);

/* Every case of run a (in its order), then those only in run b.
 * AB_ERR_DATA when the scenario names differ. Free with compare_result_free. */
enum ab_rc compare_runs(const struct summary_run *a, const struct summary_run *b, struct compare_result *out,
			struct ab_diag *d);
void compare_result_free(struct compare_result *r);

const char *compare_verdict_str(enum compare_verdict v);

#endif
