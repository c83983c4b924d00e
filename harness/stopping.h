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

#include "scenario.h"

enum stop_reason {
	STOP_NOT_YET = 0,
	STOP_TARGET_NOISE,
	STOP_NOISE_CONVERGED,
	STOP_MAX_SAMPLES,
	STOP_MAX_TIME,
};

#define STOP_HISTORY 8

struct stop_state {
	struct scn_sampling rule;
	int n;
	double sum, sum_sq;       /* of samples, ns */
	double measured_ns;       /* sum of samples */
	double history[STOP_HISTORY]; /* last noise estimates */
	int n_history;
	enum stop_reason reason;
};

void stop_init(struct stop_state *s, const struct scn_sampling *rule);

/* Adds a kept sample; slot_elapsed_ns is the slot's wall time so far
 * (warm-up excluded, discarded samples included). Returns true when the
 * slot should stop; stop_reason() then says why. */
bool stop_add(struct stop_state *s, double sample_ns, double slot_elapsed_ns);

/* For a discarded sample: only the time cap applies. */
bool stop_check_time(struct stop_state *s, double slot_elapsed_ns);

/* Relative noise of the samples so far (stdev / mean), NAN under 2 samples. */
double stop_noise(const struct stop_state *s);

const char *stop_reason_str(enum stop_reason r);

#endif
