/*
 * steps.h - step detection in a series of per-run figures (a case's fused
 * median night after night): where did it move, and by how much.
 *
 * The method is E-divisive means with a Student's t significance test, as
 * Apache Otava (ex Hunter, "Hunter: Using Change Point Detection to Hunt
 * for Performance Regressions", Fleming et al. 2023) and MongoDB's
 * signal-processing library use it, on y = log(value):
 *
 *   split   E-divisive (Matteson and James 2014): in a stretch of the
 *           series, the split tau that maximises the energy statistic
 *             Q = n1 n2 / (n1 + n2) x (2 mean|x - y| - mean|x - x'| - mean|y - y'|)
 *           (x the points before tau, y those from it; alpha 1) is the
 *           candidate, with at least STEPS_MIN_RUNS points on each side.
 *           The best candidate over all stretches is tested (below) and,
 *           when significant at STEPS_SPLIT_PVALUE, splits its stretch;
 *           a stretch whose candidate fails is left whole.
 *   merge   Hunter's: each change point is tested again between its two
 *           neighbouring segments; the weakest is removed (the largest p
 *           over STEPS_MAX_PVALUE first, else the smallest change under
 *           min_step, else the smallest change whose two sides' runs'
 *           intervals overlap) and its neighbours tested again, until
 *           every change point passes.
 *
 * The noise model of the test: Welch's t on the two sides' log values,
 * each side's variance the largest of its own (the runs' scatter around
 * their level), the series' noise from the data (1.4826 x the median
 * absolute difference at lags 1 to STEPS_MAX_LAG / sqrt 2, the largest:
 * robust to the steps themselves, and not fooled low by nightly runs that
 * resemble their neighbours; three runs that happen to agree do not make
 * a tight side), the runs' sampling noise (the median half-width of their
 * 95% intervals / 1.96, in log units, when the caller has intervals: a run
 * cannot be trusted to better than its own interval) and
 * STEPS_SIGMA_FLOOR squared (a guard for noiseless series: the fake timer
 * repeats its samples exactly). Nightly runs resemble their neighbours:
 * the lag-1 autocorrelation phi of an AR(1), read from the differences
 * ((d3 / d1)^2 = 1 + phi + phi^2, with 14 runs or more), makes n runs weigh
 * as n (1 - phi) / (1 + phi) in the test (the variance of a mean of
 * autocorrelated values), phi at most STEPS_MAX_PHI. Then, as a step must be one a reader
 * can see in the runs themselves: the median upper bound of the lower
 * side's runs must lie below the median lower bound of the higher side's
 * (a run without an interval counts its value), and the change (the
 * segments' medians) must reach min_step. Every segment holds at least
 * STEPS_MIN_RUNS points: a step is never called on fewer runs on either
 * side of it (a pair of runs is what compare judges).
 *
 * Points further from their segment's level than min_step and
 * STEPS_OUTLIER_SIGMAS sigmas are listed as outliers (a wild night; a
 * newest run that moved alone: a step, if it is one, once 3 runs show it).
 *
 * Levels are the segments' medians of the values; a step's change is the
 * level after over the level before, minus 1. Everything is deterministic
 * (no permutations); n up to STEPS_MAX_POINTS (O(n^2) a split).
 *
 * Whether a step is a regression is not decided here: runs of one commit
 * are A/A runs, and a step between two of them is noise unless something
 * else recorded moved (analysis/history.h says so).
 *
 * tests/unit/test_steps.c plants steps with known answers: a +5% step
 * under 1% noise found where it was planted, no step in pure noise,
 * outliers, too few runs, overlapping intervals, autocorrelated noise.
 */
#ifndef AB_STEPS_H
#define AB_STEPS_H

#include <stdbool.h>

#include "common/diag.h"

#define STEPS_SIGMA_FLOOR 1e-4   /* 0.01% in log terms: a guard for noiseless series, not a noise */
#define STEPS_MAX_POINTS 500
#define STEPS_MIN_RUNS 3         /* points on each side of a step, at least */
#define STEPS_SPLIT_PVALUE 0.01  /* the split's test (Otava's first pass: 10x the final) */
#define STEPS_MAX_PVALUE 0.001   /* every step that stays passes this */
#define STEPS_OUTLIER_SIGMAS 4.0
#define STEPS_MAX_LAG 3          /* the differences the series' noise is estimated from */
#define STEPS_MAX_PHI 0.8        /* the autocorrelation allowed for: n runs weigh as n / 9 at most */

struct steps_segment {
	int start, end;   /* points [start, end) */
	double level;     /* the median of the segment's values (not logs) */
	double change;    /* steps_change of the step into it; NAN for the first */
	double pvalue;    /* Welch's test of the step into it against the segment before; NAN for the first */
};

struct steps_result {
	int n_segments;
	struct steps_segment *segments;  /* in order; the steps are at segments[k].start, k >= 1 */
	int n_outliers;
	int *outliers;                   /* indexes of single-point excursions */
	double sigma;                    /* the noise model's: the series' robust noise, the runs' own noise
					  * or the floor, the largest (log units) */
	double phi;                      /* the lag-1 autocorrelation allowed for (0 to STEPS_MAX_PHI) */
};

/* Segments the n values (all > 0 and finite; AB_ERR_DATA otherwise, or
 * with more than STEPS_MAX_POINTS), each with its 95% interval [low[i],
 * high[i]] (NAN, or low and high NULL: none). min_step >= 0. Free with
 * steps_free. */
enum ab_rc steps_detect_ci(const double *values, const double *low, const double *high, int n, double min_step,
			  struct steps_result *out, struct ab_diag *d);

/* steps_detect_ci without intervals. */
enum ab_rc steps_detect(const double *values, int n, double min_step, struct steps_result *out, struct ab_diag *d);
void steps_free(struct steps_result *r);

/* The relative change of step k (1 <= k < n_segments): level k over level
 * k - 1, minus 1. */
double steps_change(const struct steps_result *r, int k);

/* The two-sided p of a t statistic with df degrees of freedom (Student's
 * t distribution: the regularized incomplete beta function); 1 when df is
 * not positive or t is NAN. Exposed for its test. */
double steps_t_pvalue(double t, double df);

#endif
