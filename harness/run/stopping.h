/*
 * stopping.h - when a slot has enough samples.
 *
 * Modelled on nvbench's stopping criterion: keep sampling until at least
 * min_samples were taken AND at least min_time of measured time accumulated
 * AND the relative noise is under target_noise. Escapes: max_samples
 * reached, or the slot's wall time passed max_time; with the mean measure
 * also the noise estimate having converged (its value over the last checks
 * moved by less than 1% of itself: more samples would not make it
 * smaller). The reason that ended the slot is reported and stored.
 *
 * The noise is the scenario's noise_measure:
 *   median  the relative half-width of the median's 95% distribution-free
 *           confidence interval, (x(n+1-j) - x(j)) / (2 median) with the
 *           exact binomial rank j of stats_median_ci (common/stats.h: the
 *           interval the reports print), NAN under 6 samples. The default.
 *   mean    stdev / mean of the samples (the rule before; kept for one
 *           release so that the two can be measured on one machine).
 * Why the median's interval: the figure every report shows is the median,
 * and this says how well it is known, so target_noise = 0.005 means "the
 * median to +-0.5% at 95%". stdev / mean (and MAD / median alike) measure
 * the spread of the samples, not the uncertainty of the estimate: they do
 * not shrink as samples accrue, so a slot whose samples spread by 2% never
 * reached 0.5% and ran to max_samples (15 of 18 glm_1024 slots on the
 * H200), while the median of those samples was known far better. The
 * interval shrinks as 1/sqrt(n), needs no assumption about the
 * distribution (GPU timings are skewed, with a long right tail that
 * inflates the standard deviation but moves the median little), and shares
 * its order statistics with the median itself. It shrinks forever, so the
 * noise_converged escape (built for a measure that stops moving) does not
 * apply to it; and with a coarse timer its width can sit at exactly 0 for
 * a while, which the convergence test would misread as converged. What
 * it has instead is the stall check (STOPPING_STALL_*, below): an interval
 * that stops shrinking as samples double, which bimodal slots show.
 */
#ifndef AB_STOPPING_H
#define AB_STOPPING_H

#include <stdbool.h>

#include "config/scenario.h"

enum stopping_reason {
	STOPPING_NOT_YET = 0,
	STOPPING_TARGET_NOISE,
	STOPPING_NOISE_CONVERGED,
	STOPPING_MAX_SAMPLES,
	STOPPING_MAX_TIME,
	STOPPING_INTERVAL_STALLED,
};

#define STOPPING_HISTORY 8
#define STOPPING_CI_LEVEL 0.95 /* of the median's interval */

/* The median's interval stalled (median measure only): at checkpoints
 * n = c0, 2 c0, 4 c0, ... (c0 = max(min_samples, STOPPING_STALL_FROM)) its
 * relative half-width is compared with the last checkpoint's. Samples of
 * one mode shrink it by 1/sqrt(2) (0.71) a doubling; a slot whose samples
 * alternate between two modes (a launch-bound eager chain of the text
 * stream on the H200: 23 and 25 us) keeps it near the gap between them,
 * ratio about 1, for thousands of samples. Two doublings in a row that
 * leave it above STOPPING_STALL_RATIO of the last stop the slot: more
 * samples would buy next to nothing. Simulated (200 slots each, target
 * 0.5%): two 50/50 modes 8% apart stop at 200 samples (68%) instead of
 * the cap; one normal mode of 5% spread stops early in 0.5% of slots (at
 * 200 or 400 instead of about 550, its stored noise then over target). */
#define STOPPING_STALL_FROM 50
#define STOPPING_STALL_RATIO 0.9
#define STOPPING_STALLS 2

struct stopping_state {
	struct scenario_sampling rule;
	int n;
	double sum, sum_sq;       /* of samples, ns */
	double measured_ns;       /* sum of samples */
	double *sorted;           /* median measure: the samples so far, ascending */
	int cap;                  /* room in sorted */
	double history[STOPPING_HISTORY]; /* last noise estimates (mean measure) */
	int n_history;
	int next_checkpoint;      /* median measure: n of the next stall check */
	double checkpoint_noise;  /* the noise at the last one (NAN: none yet) */
	int stalls;               /* consecutive checkpoints that did not shrink it */
	enum stopping_reason reason;
};

/* sorted is the caller's scratch for the median measure, room for cap
 * samples (max_samples of the rule; with max_samples 0, as many as will be
 * added): reaching cap ends the slot as max_samples. The mean measure does
 * not use it (NULL and 0 are fine then). */
void stopping_init(struct stopping_state *s, const struct scenario_sampling *rule, double *sorted, int cap);

/* Adds a kept sample; slot_elapsed_ns is the slot's wall time so far
 * (warm-up excluded, discarded samples included). Returns true when the
 * slot should stop; stopping_reason() then says why. */
bool stopping_add(struct stopping_state *s, double sample_ns, double slot_elapsed_ns);

/* The same rule judged at chosen moments (a bracket measured in rounds,
 * run_case.h: every slot's rule is judged at the end of each round, so
 * that all slots stop after the same round). stopping_push adds a kept
 * sample without judging (false, nothing added, when the median measure's
 * scratch is full); stopping_full says whether the slot holds as many
 * samples as it may; stopping_judge applies checks 1 and 2 of stopping.c
 * to the samples so far (min_samples, min_time, target_noise, the stalled
 * interval), sets the reason and returns true when they are met, and true
 * ever after; stopping_end sets the reason the caller stopped for
 * (max_samples, max_time) unless one is set. */
bool stopping_push(struct stopping_state *s, double sample_ns);
bool stopping_full(const struct stopping_state *s);
bool stopping_judge(struct stopping_state *s);
void stopping_end(struct stopping_state *s, enum stopping_reason r);

/* For a discarded sample: only the time cap applies. */
bool stopping_check_time(struct stopping_state *s, double slot_elapsed_ns);

/* The rule's relative noise of the samples so far (see above): NAN under 2
 * samples (mean) or 6 (median). */
double stopping_noise(const struct stopping_state *s);

const char *stopping_reason_str(enum stopping_reason r);

#endif
