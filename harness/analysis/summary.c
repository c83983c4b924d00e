/*
 * summary.c - per-case figures (pooled medians, speedup CI, drift,
 * exactness) and the model-level projection.
 */
#include "analysis/summary.h"

#include "analysis/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sum_exactness(const struct results_case *c, struct summary_case *s)
{
	s->b_byte_equal = s->a_deterministic = s->ref_ok = true;
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *sl = &c->slots[i];
		for (int o = 0; o < sl->n_outputs; o++) {
			if (!sl->outputs[o].bit_exact) {
				if (sl->arm == 'b')
					s->b_byte_equal = false;
				else
					s->a_deterministic = false;
			}
			if (!sl->outputs[o].ref_ok)
				s->ref_ok = false;
		}
	}
}

double summary_a_drift(const struct results_case *c)
{
	const struct results_slot *first = NULL;
	double drift = NAN;
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *sl = &c->slots[i];
		if (sl->arm != 'a')
			continue;
		if (!first)
			first = sl;
		else if (isnan(drift) || stats_drift(first->median_ns, sl->median_ns) > drift)
			drift = stats_drift(first->median_ns, sl->median_ns);
	}
	return drift;
}

/* Pooled medians of both arms and, when with_ci, the bootstrap interval of
 * their ratio (the costly part: the projection needs the medians alone). */
static bool sum_arms(const struct results_case *c, struct summary_case *s, bool with_ci)
{
	double *a = NULL, *b = NULL;
	if (compare_arm_samples(c, 'a', &a, &s->n_a, NULL) || compare_arm_samples(c, 'b', &b, &s->n_b, NULL)) {
		free(a);
		return false;
	}
	s->median_a_ns = stats_median(a, s->n_a);
	s->median_b_ns = stats_median(b, s->n_b);
	s->speedup.point = s->speedup.low = s->speedup.high = NAN;
	bool enough = s->n_a >= SUMMARY_MIN_SAMPLES && s->n_b >= SUMMARY_MIN_SAMPLES;
	if (with_ci && s->n_a > 0 && s->n_b > 0)
		s->speedup = stats_speedup_ci(a, s->n_a, b, s->n_b, 0.95, enough ? SUMMARY_BOOTSTRAP_RESAMPLES : 0,
					      SUMMARY_BOOTSTRAP_SEED);
	free(a);
	free(b);
	s->saving_per_forward_ns = c->count * (s->median_a_ns - s->median_b_ns);
	return true;
}

bool summary_case(const struct results_case *c, struct summary_case *s)
{
	memset(s, 0, sizeof *s);
	if (!sum_arms(c, s, true))
		return false;
	s->drift = summary_a_drift(c);
	sum_exactness(c, s);
	s->improved = summary_beyond_noise(&s->speedup, s->drift);
	return true;
}

bool summary_beyond_noise(const struct stats_interval *speedup, double drift)
{
	return speedup->low > 1 && speedup->point - 1 > (isnan(drift) ? 0 : drift);
}

bool summary_projection(const struct results_run *r, struct summary_projection *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < r->n_cases; i++) {
		struct summary_case s = { 0 };
		if (!sum_arms(&r->cases[i], &s, false))
			return false;
		p->per_forward_ns += s.saving_per_forward_ns;
		p->eager_per_step_ns += r->cases[i].count * s.median_a_ns * r->forwards_per_step;
	}
	p->per_step_ns = p->per_forward_ns * r->forwards_per_step;
	p->per_image_ns = p->per_step_ns * r->steps;
	return true;
}

const char *summary_format_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}
