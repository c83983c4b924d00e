/*
 * stopping.h - when a slot has enough samples.
 *
 * Modelled on nvbench's stopping criterion: keep sampling until at least
 * min_samples were taken AND at least min_time of measured time accumulated
 * AND the relative noise (standard deviation over mean of the samples) is
 * under target_noise. Escapes: the noise estimate itself has converged (its
 * value over the last checks moved by less than 1% of itself: more samples
 * would not make it smaller), max_samples reached, or the slot's wall time
 * passed max_time. The reason that ended the slot is reported and stored.
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
};

#define STOPPING_HISTORY 8

struct stopping_state {
	struct scenario_sampling rule;
	int n;
	double sum, sum_sq;       /* of samples, ns */
	double measured_ns;       /* sum of samples */
	double history[STOPPING_HISTORY]; /* last noise estimates */
	int n_history;
	enum stopping_reason reason;
};

void stopping_init(struct stopping_state *s, const struct scenario_sampling *rule);

/* Adds a kept sample; slot_elapsed_ns is the slot's wall time so far
 * (warm-up excluded, discarded samples included). Returns true when the
 * slot should stop; stopping_reason() then says why. */
bool stopping_add(struct stopping_state *s, double sample_ns, double slot_elapsed_ns);

/* For a discarded sample: only the time cap applies. */
bool stopping_check_time(struct stopping_state *s, double slot_elapsed_ns);

/* Relative noise of the samples so far (stdev / mean), NAN under 2 samples. */
double stopping_noise(const struct stopping_state *s);

const char *stopping_reason_str(enum stopping_reason r);

#endif
