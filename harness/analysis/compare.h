/*
 * compare.h - one scenario measured by two builds, case by case.
 *
 * For every case the B arm (the fused kernel) of run A is compared with the
 * B arm of run B: their pooled time (summary.h), the ratio median(B of run
 * B) / median(B of run A) with its interval and two-sided p from a block
 * bootstrap over each slot's consecutive samples (blockboot.h: the samples
 * of a slot are not independent, and a test that takes them as such gave
 * an A/A pair p = 8.9e-12), and whether the outputs' md5 agree. The gate
 * builds on the same per-case comparison. Each run's own verdict on the
 * case (summary.h) comes along: a case drifted in either run is marked.
 * Judging only: print/gate_print.c formats the result.
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

#include "analysis/summary.h"
#include "common/diag.h"
#include "common/stats.h"

/* Significance level of the p (compare and gate). */
#define COMPARE_ALPHA 0.01

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
	double threshold;          /* a fraction (gate_max_regression_pct / 100), > 0 */
	double min_ns;             /* >= 0 */
	char threshold_source[96]; /* where each came from, printed: "device profile 'H200'" */
	char min_source[96];
};

struct compare_case {
	char name[64];
	/* The case's arms (of the second run, else the first); own_arms when
	 * they are not that run's own [arms] (a case with arms of its own). */
	char arm_a[32], arm_b[32];
	bool own_arms;
	struct summary_spread a, b;  /* the B arm in run A and in run B */
	struct stats_interval ratio; /* median(b) / median(a), SUMMARY_CI_LEVEL block-bootstrap interval */
	double p_value;              /* two-sided block-bootstrap p (blockboot.h); NAN when not computed */
	double p_floor;              /* the smallest p the runs' blocks allow (blockboot_p_floor) */
	bool drifted_a, drifted_b;   /* the case's verdict in run A, in run B, is drifted (not trusted) */
	double drift_a, drift_b;     /* its A-arm drift in each run; NAN under two A slots */
	bool cache_resident;         /* its working set fits the cache of either run's device */
	enum compare_verdict verdict;
	int md5_compared;            /* outputs present in both, matched by slot and tensor */
	int md5_differ;              /* of those, how many differ */
	struct bandwidth_arm bw_a, bw_b; /* the B arm's GB/s in run A and run B, each against its run's copy */
	double noise_floor;          /* max of the two runs' A-arm drifts; 0 when neither has two A slots */
	double change_ns;            /* median(b) - median(a) */
	enum compare_hold held;      /* set by compare_apply_floors */
};

struct compare_result {
	int n_cases;
	struct compare_case *cases;
	bool floored;                  /* compare_apply_floors ran */
	struct compare_floors floors;
	char db_a[128], db_b[128];     /* the databases' file names when they differ, else "" */
};

/* Outputs present in both cases (same slot label, same tensor) and how
 * many of those have different md5s. */
void compare_md5_agreement(const struct results_case *a, const struct results_case *b, int *compared, int *differ);

/* Compares the B arms of one case summarised in two runs; either may be
 * NULL (the verdict then says which is missing). AB_ERR_NOMEM. */
enum ab_rc compare_case_pair(const struct summary_case *a, const struct summary_case *b, struct compare_case *out,
			     struct ab_diag *d);

/* Every case of run a (in its order), then those only in run b.
 * AB_ERR_DATA when the scenario names differ. Free with compare_result_free. */
enum ab_rc compare_runs(const struct summary_run *a, const struct summary_run *b, struct compare_result *out,
			struct ab_diag *d);
void compare_result_free(struct compare_result *r);

/* Holds every FASTER or SLOWER verdict of r to the floors (see above). */
void compare_apply_floors(struct compare_result *r, const struct compare_floors *fl);

const char *compare_verdict_str(enum compare_verdict v);

#endif
