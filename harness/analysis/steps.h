/*
 * steps.h - step detection in a series of per-run figures (a case's fused
 * median night after night): where did it move, and by how much.
 *
 * The method is asv's (airspeed velocity's step_detect): a penalized
 * least-absolute-deviation segmentation, solved exactly by dynamic
 * programming over every segmentation (optimal partitioning, Jackson et al.
 * 2005). On y = log(value), each segment costs the sum of |y_i - median of
 * its segment| (L1, so one wild night moves no level), and each segment
 * adds a penalty
 *
 *     beta = STEPS_PENALTY x sigma x ln(n + 1)
 *
 * where sigma is the series' own noise, from the data: the largest of the
 * robust estimates from differences at lags 1 to STEPS_MAX_LAG (1.4826 x
 * median |y_i+k - y_i| / sqrt(2): a step moves a few differences, not the
 * median of them; nightly runs are autocorrelated, neighbours alike, and
 * lag 1 alone would read low; lag k is used when n - k >= 4k, so that
 * the k differences a step spoils are at most a quarter of them) and of
 * the runs' own sampling noise (the
 * median half-width of their 95% intervals / 1.96, in log units, when the
 * caller has intervals), floored only at STEPS_SIGMA_FLOOR so that a
 * noiseless series (the fake timer repeats its samples exactly) is not cut
 * at every last bit. Every segment holds at least STEPS_MIN_RUNS points:
 * a step is never called on fewer runs on either side of it (a pair of
 * runs is what compare judges). Then clean-ups, repeated until none
 * applies:
 *
 *   - adjacent segments whose levels differ by less than min_step (a
 *     relative change, e.g. 0.05) are merged: a step too small to matter
 *     is not named, however sure it is;
 *   - adjacent segments whose runs' intervals overlap are merged: the
 *     median of the upper bounds of the lower side's runs must lie below
 *     the median of the lower bounds of the higher side's (a run without
 *     an interval counts its value), so a step is never called where the
 *     runs themselves cannot tell the levels apart.
 *
 * Points further from their segment's level than min_step and
 * STEPS_OUTLIER_SIGMAS sigmas are listed as outliers (a wild night; a
 * newest run that moved alone: a step, if it is one, once 3 runs show it).
 *
 * Levels are the segments' medians of the values; a step's change is the
 * level after over the level before, minus 1. Everything is deterministic;
 * n up to STEPS_MAX_POINTS (the exact solution is O(n^3) in the worst case).
 *
 * Measured on 500 simulated series of 40 points each (Gaussian noise,
 * min_step 5%): with sd 1% no false step, and a +10% step at point 20
 * found at point 20 in 500 of 500; with sd 3%, 5% and 8% still no false
 * step (the penalty grows with the noise). tests/unit/test_steps.c plants
 * steps with known answers.
 */
#ifndef AB_STEPS_H
#define AB_STEPS_H

#include <stdbool.h>

#include "common/diag.h"

#define STEPS_PENALTY 3.0
#define STEPS_SIGMA_FLOOR 1e-4   /* 0.01% in log terms: a guard for noiseless series, not a noise */
#define STEPS_MAX_POINTS 500
#define STEPS_MIN_RUNS 3         /* points on each side of a step, at least */
#define STEPS_MAX_LAG 3          /* the differences the noise is estimated from */
#define STEPS_OUTLIER_SIGMAS 4.0

struct steps_segment {
	int start, end;   /* points [start, end) */
	double level;     /* the median of the segment's values (not logs) */
	double change;    /* steps_change of the step into it; NAN for the first */
};

struct steps_result {
	int n_segments;
	struct steps_segment *segments;  /* in order; the steps are at segments[k].start, k >= 1 */
	int n_outliers;
	int *outliers;                   /* indexes of single-point excursions */
	double sigma;                    /* the noise estimate used (log units) */
	double penalty;                  /* beta */
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

#endif
