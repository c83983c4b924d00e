/*
 * compare.c - the B arm of each case in two runs: the ratio of the medians
 * with its block-bootstrap interval and p (blockboot.h), verdict and md5
 * agreement.
 * The arms' pooled samples and spreads come from the runs' summaries.
 */
#include "analysis/compare.h"

#include "analysis/blockboot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void compare_md5_agreement(const struct results_case *a, const struct results_case *b, int *compared, int *differ)
{
	*compared = *differ = 0;
	for (int i = 0; i < a->n_slots; i++) {
		const struct results_slot *sa = &a->slots[i], *sb = results_case_slot(b, sa->label);
		for (int o = 0; sb && o < sa->n_outputs; o++) {
			for (int p = 0; p < sb->n_outputs; p++) {
				if (strcmp(sa->outputs[o].tensor, sb->outputs[p].tensor))
					continue;
				(*compared)++;
				*differ += strcmp(sa->outputs[o].md5, sb->outputs[p].md5) != 0;
			}
		}
	}
}

static enum compare_verdict verdict_of(const struct compare_case *c)
{
	if (!(c->p_value < COMPARE_ALPHA) || isnan(c->ratio.point) || c->ratio.point == 1)
		return COMPARE_SAME;
	return c->ratio.point > 1 ? COMPARE_SLOWER : COMPARE_FASTER;
}

/* The B arms of one case in two runs: the ratio of their medians with
 * its block-bootstrap interval and p (blockboot.h). */
static enum ab_rc compare_arms(const struct summary_case *ca, const struct summary_case *cb, struct compare_case *out,
			       struct ab_diag *d)
{
	struct blockboot_arm xa, xb = { 0 };
	struct blockboot_result r;
	out->a = ca->b.time;
	out->b = cb->b.time;
	enum ab_rc rc = blockboot_arm_init(&xa, ca->c, 'b', d);
	if (!rc)
		rc = blockboot_arm_init(&xb, cb->c, 'b', d);
	if (!rc && !(rc = blockboot_ratio(&xb, NULL, &xa, NULL, &r, d))) {
		out->ratio = r.ratio;
		out->p_value = r.p;
		out->p_floor = r.p_floor;
	}
	blockboot_arm_free(&xb);
	blockboot_arm_free(&xa);
	out->verdict = verdict_of(out);
	return rc;
}

enum ab_rc compare_case_pair(const struct summary_case *a, const struct summary_case *b, struct compare_case *out,
			     struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", a ? a->c->name : b ? b->c->name : "");
	out->ratio = (struct stats_interval){ NAN, NAN, NAN };
	out->p_value = NAN;
	out->a = out->b = (struct summary_spread){ NAN, NAN, NAN, 0 };
	out->p_floor = 1;
	out->bw_a = out->bw_b = (struct bandwidth_arm){ NAN, NAN, NAN };
	out->drifted_a = a && a->verdict == SUMMARY_CASE_DRIFTED;
	out->drifted_b = b && b->verdict == SUMMARY_CASE_DRIFTED;
	out->drift_a = a ? a->drift : NAN;
	out->drift_b = b ? b->drift : NAN;
	if (!a || !b) {
		out->verdict = a ? COMPARE_MISSING_B : COMPARE_MISSING_A;
		return AB_OK;
	}
	enum ab_rc rc = compare_arms(a, b, out, d);
	compare_md5_agreement(a->c, b->c, &out->md5_compared, &out->md5_differ);
	out->bw_a = a->b.bw;
	out->bw_b = b->b.bw;
	out->cache_resident = a->cache_resident || b->cache_resident;
	out->noise_floor = fmax(isnan(a->drift) ? 0 : a->drift, isnan(b->drift) ? 0 : b->drift);
	out->change_ns = out->b.median_ns - out->a.median_ns;
	return rc;
}

enum ab_rc compare_runs(const struct summary_run *a, const struct summary_run *b, struct compare_result *out,
			struct ab_diag *d)
{
	const struct results_run *ra = a->run, *rb = b->run;
	memset(out, 0, sizeof *out);
	if (strcmp(ra->scenario_name, rb->scenario_name))
		return ab_fail(d, AB_ERR_DATA, "runs %lld and %lld measured different scenarios ('%s' and '%s')",
			       (long long)ra->id, (long long)rb->id, ra->scenario_name, rb->scenario_name);
	out->cases = calloc((size_t)(a->n_cases + b->n_cases) + 1, sizeof *out->cases);
	if (!out->cases)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory comparing runs");
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < a->n_cases; i++)
		rc = compare_case_pair(&a->cases[i], summary_find(b, a->cases[i].c->name), &out->cases[out->n_cases++], d);
	for (int i = 0; !rc && i < b->n_cases; i++)
		if (!summary_find(a, b->cases[i].c->name))
			rc = compare_case_pair(NULL, &b->cases[i], &out->cases[out->n_cases++], d);
	if (rc)
		compare_result_free(out);
	return rc;
}

/* The bar that holds a significant change back, if any. */
static enum compare_hold hold_of(const struct compare_case *c, const struct compare_floors *fl)
{
	double change = fabs(c->ratio.point - 1);
	if (!(change > fl->threshold))
		return COMPARE_HELD_THRESHOLD;
	if (!(change > c->noise_floor))
		return COMPARE_HELD_DRIFT;
	if (!(fabs(c->change_ns) > fl->min_ns))
		return COMPARE_HELD_ABSOLUTE;
	return COMPARE_HELD_NONE;
}

void compare_apply_floors(struct compare_result *r, const struct compare_floors *fl)
{
	r->floored = true;
	r->floors = *fl;
	for (int i = 0; i < r->n_cases; i++) {
		struct compare_case *c = &r->cases[i];
		if (c->verdict != COMPARE_FASTER && c->verdict != COMPARE_SLOWER)
			continue;
		c->held = hold_of(c, fl);
		if (c->held != COMPARE_HELD_NONE)
			c->verdict = COMPARE_WITHIN_FLOORS;
	}
}

void compare_result_free(struct compare_result *r)
{
	free(r->cases);
	r->cases = NULL;
	r->n_cases = 0;
}

const char *compare_verdict_str(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME: return "no significant difference";
	case COMPARE_FASTER: return "faster";
	case COMPARE_SLOWER: return "slower";
	case COMPARE_MISSING_A: return "only in the second run";
	case COMPARE_MISSING_B: return "only in the first run";
	case COMPARE_WITHIN_FLOORS: return "no change beyond the floors";
	}
	return "?";
}
