/*
 * compare.h - one scenario measured by two builds, case by case.
 *
 * For every case the B arm (the fused kernel) of run A is compared with the
 * B arm of run B: medians with their spread and sample counts, the ratio
 * median(B of run B) / median(B of run A) with a seeded bootstrap interval,
 * a two-sided Mann-Whitney U test, and whether the outputs' md5 agree. The
 * gate builds on the same per-case comparison; the report uses the arm
 * pooling helper for its speedups.
 *
 * An arm's samples are those of all its slots pooled (A1 and A2 for the A
 * arm of an ABA bracket), in slot order.
 *
 * A significant p alone does not make a difference: with hundreds of
 * samples a side a 1.5% shift of a shared machine reaches p < 1e-6.
 * compare_apply_floors holds a FASTER or SLOWER verdict to the gate's bars
 * (gate.h): the change must exceed the relative threshold and the noise
 * floor (the larger A-arm drift, |A_k - A1| / A1, of the two runs), and in
 * ns the absolute floor; otherwise the verdict is COMPARE_WITHIN_FLOORS
 * and says which bar held it.
 */
#ifndef AB_COMPARE_H
#define AB_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"
#include "common/results.h"
#include "analysis/stats.h"

/* One set of constants for every printer and the gate, so that the same
 * samples give the same interval and verdict everywhere. */
#define COMPARE_ALPHA 0.01        /* significance level of the Mann-Whitney test */
#define COMPARE_CI_LEVEL 0.95
#define COMPARE_RESAMPLES 2000
#define COMPARE_SEED UINT64_C(0x61626265) /* "abbe" */

enum compare_verdict {
	COMPARE_SAME,      /* no significant difference */
	COMPARE_FASTER,    /* run B's fused arm is faster (p < alpha) */
	COMPARE_SLOWER,
	COMPARE_MISSING_A, /* the case is only in run B */
	COMPARE_MISSING_B, /* the case is only in run A */
	COMPARE_WITHIN_FLOORS, /* p < alpha, but the change is within the gate's floors */
};

/* Which of the gate's bars held a significant change back. */
enum compare_hold {
	COMPARE_HELD_NONE,
	COMPARE_HELD_THRESHOLD, /* |change| <= the relative threshold */
	COMPARE_HELD_DRIFT,     /* |change| <= the noise floor (A-arm drift) */
	COMPARE_HELD_ABSOLUTE,  /* |change in ns| <= the absolute floor */
};

/* The gate's bars: the relative threshold and the absolute floor. */
struct compare_floors {
	double threshold;     /* a fraction (gate_max_regression_pct / 100), > 0 */
	double min_ns;        /* >= 0 */
	char threshold_source[96]; /* where each came from, printed: "device profile 'H200'" */
	char min_source[96];
};

/* Median, 10th and 90th percentile and count of one arm's pooled samples. */
struct compare_arm {
	double median_ns, p10_ns, p90_ns;
	int n;
};

struct compare_case {
	char name[64];
	struct compare_arm a, b;        /* the B arm in run A and in run B */
	struct stats_interval ratio; /* median(b) / median(a), COMPARE_CI_LEVEL bootstrap */
	double p_value;             /* two-sided Mann-Whitney; NAN when not computed */
	enum compare_verdict verdict;
	int md5_compared;           /* outputs present in both, matched by slot and tensor */
	int md5_differ;             /* of those, how many differ */
	double noise_floor;         /* max of the two runs' A-arm drifts; 0 when neither has two A slots */
	double change_ns;           /* median(b) - median(a) */
	enum compare_hold held;     /* set by compare_apply_floors */
};

struct compare_result {
	int n_cases;
	struct compare_case *cases;
	bool floored;                  /* compare_apply_floors ran */
	struct compare_floors floors;
	char db_a[128], db_b[128];     /* the databases' file names when they differ, else "" */
};

/* The samples of every slot of arm ('a' or 'b') of c, pooled into a
 * malloc'd array (free()); *n may be 0 (then *out is NULL). */
enum ab_rc compare_arm_samples(const struct results_case *c, char arm, double **out, int *n, struct ab_diag *d);

/* Summary of n samples. */
struct compare_arm compare_arm_summary(const double *x, int n);

/* "38.500 [37.912, 39.104] n=30" (us): median, p10-p90 and count, or "n/a";
 * the one format compare, gate and report print an arm in. */
void compare_print_arm(FILE *f, const struct compare_arm *a);

/* Compares the B arms of one case measured in two runs; either case may
 * be NULL (the verdict then says which is missing). */
enum ab_rc compare_case_pair(const struct results_case *a, const struct results_case *b, struct compare_case *out,
			 struct ab_diag *d);

/* Every case of run a (in its order), then those only in run b.
 * AB_ERR_DATA when the scenario names differ. Free with compare_result_free. */
enum ab_rc compare_runs(const struct results_run *a, const struct results_run *b, struct compare_result *out, struct ab_diag *d);
void compare_result_free(struct compare_result *r);

/* Holds every FASTER or SLOWER verdict of r to the floors (see above). */
void compare_apply_floors(struct compare_result *r, const struct compare_floors *fl);

const char *compare_verdict_str(enum compare_verdict v);

/* The markdown table of a comparison (stdout or a file). AB_ERR_IO when
 * the stream reports an error. */
enum ab_rc compare_print(FILE *f, const struct results_run *a, const struct results_run *b, const struct compare_result *r,
		     struct ab_diag *d);

#endif
