/*
 * stopping.c - the adaptive sample count of one slot (see stopping.h).
 *
 * Checks run after every kept sample, in this order, the first that holds
 * ending the slot:
 *   1. target_noise    - once min_samples and min_time are reached, the
 *                        relative noise (the rule's measure, stopping.h) is
 *                        strictly under target_noise (0 disables it);
 *   2. interval_stalled - median measure only, same precondition: two
 *                        doublings of n in a row that left the median's
 *                        interval above STOPPING_STALL_RATIO of what it was
 *                        (stopping.h says why);
 *      noise_converged - mean measure only, same precondition; each such
 *                        check pushes its noise
 *                        estimate into a window of the last STOPPING_HISTORY ones;
 *                        with a full window whose range (max - min) is under
 *                        1% of its mean (or exactly 0), more samples would not
 *                        lower the noise;
 *   3. max_samples     - n >= max_samples (when max_samples > 0), or the
 *                        median measure's scratch is full;
 *   4. max_time        - slot_elapsed_ns >= max_time_ms * 1e6 (when > 0).
 * Once a reason is set the state is frozen and every later call says stop.
 */
#include "run/stopping.h"

#include <math.h>
#include <string.h>

#include "common/stats.h"

void stopping_init(struct stopping_state *s, const struct scenario_sampling *rule, double *sorted, int cap)
{
	memset(s, 0, sizeof *s);
	s->rule = *rule;
	s->sorted = sorted;
	s->cap = sorted ? cap : 0;
	s->reason = STOPPING_NOT_YET;
	s->next_checkpoint = rule->min_samples > STOPPING_STALL_FROM ? rule->min_samples : STOPPING_STALL_FROM;
	s->checkpoint_noise = NAN;
}

static bool median_measure(const struct stopping_state *s)
{
	return s->rule.noise == SCENARIO_NOISE_MEDIAN;
}

/* Inserts v into the sorted scratch (one memmove: a slot keeps at most
 * max_samples values, a few thousand). */
static void sorted_insert(struct stopping_state *s, double v)
{
	int lo = 0, hi = s->n - 1; /* s->n already counts v */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (s->sorted[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->sorted + lo + 1, s->sorted + lo, (size_t)(s->n - 1 - lo) * sizeof *s->sorted);
	s->sorted[lo] = v;
}

static double median_noise(const struct stopping_state *s)
{
	struct stats_interval ci = stats_median_ci_sorted(s->sorted, s->n, stats_median_ci_rank(s->n, STOPPING_CI_LEVEL));
	if (isnan(ci.point) || !(ci.point > 0))
		return NAN;
	return (ci.high - ci.low) / (2 * ci.point);
}

double stopping_noise(const struct stopping_state *s)
{
	if (median_measure(s))
		return median_noise(s);
	if (s->n < 2)
		return NAN;
	double mean = s->sum / s->n;
	double var = (s->sum_sq - s->sum * mean) / (s->n - 1);
	if (var < 0) /* rounding of the one-pass formula */
		var = 0;
	return sqrt(var) / mean;
}

static bool stop_with(struct stopping_state *s, enum stopping_reason r)
{
	s->reason = r;
	return true;
}

/* Pushes a noise estimate into the window, dropping the oldest when full. */
static void history_push(struct stopping_state *s, double noise)
{
	if (s->n_history == STOPPING_HISTORY) {
		memmove(s->history, s->history + 1, (STOPPING_HISTORY - 1) * sizeof s->history[0]);
		s->n_history--;
	}
	s->history[s->n_history++] = noise;
}

static bool history_converged(const struct stopping_state *s)
{
	if (s->n_history < STOPPING_HISTORY)
		return false;
	double lo = s->history[0], hi = s->history[0], sum = 0;
	for (int i = 0; i < s->n_history; i++) {
		lo = fmin(lo, s->history[i]);
		hi = fmax(hi, s->history[i]);
		sum += s->history[i];
	}
	return hi - lo == 0 || hi - lo < 0.01 * (sum / s->n_history);
}

/* At each doubling checkpoint: whether the median's interval has stopped
 * shrinking (stopping.h, STOPPING_STALL_*). */
static bool interval_stalled(struct stopping_state *s, double noise)
{
	if (s->n < s->next_checkpoint)
		return false;
	if (!isnan(s->checkpoint_noise))
		s->stalls = noise > STOPPING_STALL_RATIO * s->checkpoint_noise ? s->stalls + 1 : 0;
	s->checkpoint_noise = noise;
	/* doubling from where we are: a slot held back by min_time reaches its
	 * first checkpoint late, and its next must still be twice as many */
	s->next_checkpoint = s->n > (1 << 29) ? s->n : 2 * s->n;
	return s->stalls >= STOPPING_STALLS;
}

/* Checks 1 and 2 of the file comment; false while the minimums are unmet. */
static bool noise_done(struct stopping_state *s)
{
	if (s->n < s->rule.min_samples || s->measured_ns < s->rule.min_time_ms * 1e6)
		return false;
	double noise = stopping_noise(s);
	if (isnan(noise))
		return false;
	if (noise < s->rule.target_noise)
		return stop_with(s, STOPPING_TARGET_NOISE);
	if (median_measure(s))
		return interval_stalled(s, noise) && stop_with(s, STOPPING_INTERVAL_STALLED);
	history_push(s, noise);
	if (history_converged(s))
		return stop_with(s, STOPPING_NOISE_CONVERGED);
	return false;
}

bool stopping_check_time(struct stopping_state *s, double slot_elapsed_ns)
{
	if (s->reason != STOPPING_NOT_YET)
		return true;
	if (s->rule.max_time_ms > 0 && slot_elapsed_ns >= s->rule.max_time_ms * 1e6)
		return stop_with(s, STOPPING_MAX_TIME);
	return false;
}

/* Whether the slot holds as many samples as it may: the rule's cap, or
 * the median measure's scratch full. */
static bool samples_full(const struct stopping_state *s)
{
	return (s->rule.max_samples > 0 && s->n >= s->rule.max_samples) || (median_measure(s) && s->n >= s->cap);
}

bool stopping_push(struct stopping_state *s, double sample_ns)
{
	if (median_measure(s) && s->n >= s->cap)
		return false;
	s->n++;
	s->sum += sample_ns;
	s->sum_sq += sample_ns * sample_ns;
	s->measured_ns += sample_ns;
	if (median_measure(s))
		sorted_insert(s, sample_ns);
	return true;
}

bool stopping_full(const struct stopping_state *s)
{
	return samples_full(s);
}

bool stopping_judge(struct stopping_state *s)
{
	return s->reason != STOPPING_NOT_YET || noise_done(s);
}

void stopping_end(struct stopping_state *s, enum stopping_reason r)
{
	if (s->reason == STOPPING_NOT_YET)
		s->reason = r;
}

bool stopping_add(struct stopping_state *s, double sample_ns, double slot_elapsed_ns)
{
	if (s->reason != STOPPING_NOT_YET)
		return true;
	if (!stopping_push(s, sample_ns))
		return stop_with(s, STOPPING_MAX_SAMPLES); /* the scratch is full: the caller's sample cap */
	if (noise_done(s))
		return true;
	if (samples_full(s))
		return stop_with(s, STOPPING_MAX_SAMPLES);
	return stopping_check_time(s, slot_elapsed_ns);
}

const char *stopping_reason_str(enum stopping_reason r)
{
	switch (r) {
	case STOPPING_NOT_YET: return "not_yet";
	case STOPPING_TARGET_NOISE: return "target_noise";
	case STOPPING_NOISE_CONVERGED: return "noise_converged";
	case STOPPING_MAX_SAMPLES: return "max_samples";
	case STOPPING_MAX_TIME: return "max_time";
	case STOPPING_INTERVAL_STALLED: return "interval_stalled";
	}
	return "unknown";
}
