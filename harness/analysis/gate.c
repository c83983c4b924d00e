/*
 * gate.c - the regression gate: per-case verdicts of a run against a
 * baseline run (print/gate_print.c formats them). Time is judged on B relative to its own bracket's A arm, and in ns
 * against an absolute floor (gate.h says why and gives the exact rule),
 * falling back to raw B times where the A arm is not the same kernel in
 * both runs.
 */
#include "analysis/gate.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blockboot.h"
#include "analysis/summary.h"
#include "common/stats.h"
#include "common/suggest.h"

static enum ab_rc check_status(const struct results_run *r, const char *what, struct ab_diag *d)
{
	if (strcmp(r->status, "ok"))
		return ab_fail(d, AB_ERR_DATA, "%s run %lld is '%s', not 'ok'", what, (long long)r->id, r->status);
	return AB_OK;
}

/* The mismatches that make a verdict meaningless: data errors, not fails. */
static enum ab_rc check_runs(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
			     struct ab_diag *d)
{
	enum ab_rc rc;
	if ((rc = check_status(base, "baseline", d)) != AB_OK || (rc = check_status(run, "gated", d)) != AB_OK)
		return rc;
	if (strcmp(base->scenario_name, run->scenario_name))
		return ab_fail(d, AB_ERR_DATA, "run %lld measured scenario '%s', the baseline (run %lld) '%s'",
			       (long long)run->id, run->scenario_name, (long long)base->id, base->scenario_name);
	if (strcmp(base->device.name, run->device.name))
		return ab_fail(d, AB_ERR_DATA, "run %lld ran on '%s', the baseline (run %lld) on '%s'",
			       (long long)run->id, run->device.name, (long long)base->id, base->device.name);
	if (!(o->max_regression_pct > 0) || !isfinite(o->max_regression_pct))
		return ab_fail(d, AB_ERR_USAGE, "the regression threshold must be a positive percentage, not %g",
			       o->max_regression_pct);
	if (!(o->min_change_ns >= 0) || !isfinite(o->min_change_ns))
		return ab_fail(d, AB_ERR_USAGE, "the absolute floor must be 0 ns or more, not %g", o->min_change_ns);
	return AB_OK;
}

/* Whether a partial run (run --only, recorded as only_cases) measured the
 * case: its name, or a glob pattern matching it. */
static bool run_selects(const struct results_run *r, const char *name)
{
	return !r->only_cases[0] || !strcmp(r->only_cases, name) || !fnmatch(r->only_cases, name, 0);
}

static bool selected(const struct gate_options *o, const char *name)
{
	if (o->only && strcmp(o->only, name))
		return false;
	for (int i = 0; i < o->n_exclude; i++)
		if (!strcmp(o->exclude[i], name))
			return false;
	return true;
}

static const struct results_output *find_output(const struct results_slot *s, const char *tensor)
{
	for (int i = 0; s && i < s->n_outputs; i++)
		if (!strcmp(s->outputs[i].tensor, tensor))
			return &s->outputs[i];
	return NULL;
}

static const char *first_a_label(const struct results_case *c)
{
	for (int i = 0; i < c->n_slots; i++)
		if (c->slots[i].arm == 'a')
			return c->slots[i].label;
	return "A1";
}

static void lose(struct gate_case *g, const char *slot, const char *tensor, const char *why)
{
	if (!g->lost_exact)
		snprintf(g->exact_note, sizeof g->exact_note, "%s '%s' %s", slot, tensor, why);
	g->lost_exact = true;
}

/* "not byte-equal to A1", with the output's divergence when the run
 * stored one: ": 1155266 of 4194304 elements (27.54%), max 1 ULP". */
static void not_equal_text(const struct results_case *r, const struct results_slot *s, const char *tensor, char *buf,
			   size_t len)
{
	int n = snprintf(buf, len, "not byte-equal to %s", first_a_label(r));
	for (int k = 0; k < s->n_div && n > 0 && (size_t)n < len; k++) {
		const struct results_divergence *v = &s->div[k];
		if (strcmp(v->tensor, tensor) || strcmp(v->role, "output"))
			continue;
		n += snprintf(buf + n, len - (size_t)n, ": %lld of %lld elements (%.2f%%)", (long long)v->n_diff,
			      (long long)v->elems, v->elems ? 100.0 * (double)v->n_diff / (double)v->elems : 0.0);
		if (n > 0 && (size_t)n < len && v->n_diff > v->n_class + v->n_nan_bits)
			snprintf(buf + n, len - (size_t)n, ", max %lld ULP", (long long)v->max_ulp);
		else if (n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, ", NaN/Inf where the other is not");
		return;
	}
}

/* The run's slots against the rule "B byte-equal to A" and against the
 * baseline's bit-exact outputs; a slot whose outputs changed between its
 * calls (nondeterministic) fails too. */
static void judge_run_slots(const struct results_case *b, const struct results_case *r, struct gate_case *g)
{
	char why[128];
	for (int i = 0; i < r->n_slots; i++) {
		const struct results_slot *s = &r->slots[i];
		for (int k = 0; k < s->n_outputs; k++) {
			const struct results_output *o = &s->outputs[k];
			const struct results_output *bo = find_output(results_case_slot(b, s->label), o->tensor);
			if (o->bit_exact)
				continue;
			g->run_exact = false;
			not_equal_text(r, s, o->tensor, why, sizeof why);
			if (s->arm == 'b')
				lose(g, s->label, o->tensor, why);
			else if (bo && bo->bit_exact)
				lose(g, s->label, o->tensor, "no longer bit-exact");
		}
		if (s->check.calls_differ > 0) {
			snprintf(why, sizeof why, "nondeterministic: %d of %d calls differed", s->check.calls_differ,
				 s->check.calls_checked);
			g->run_exact = false;
			g->nondeterministic = true;
			lose(g, s->label, s->check.differ_tensor, why);
		}
	}
}

/* Bit-exact outputs of the baseline that the run no longer has at all. */
static void judge_missing_outputs(const struct results_case *b, const struct results_case *r, struct gate_case *g)
{
	for (int i = 0; i < b->n_slots; i++) {
		const struct results_slot *bs = &b->slots[i], *rs = results_case_slot(r, bs->label);
		for (int k = 0; rs && k < bs->n_outputs; k++)
			if (bs->outputs[k].bit_exact && !find_output(rs, bs->outputs[k].tensor))
				lose(g, bs->label, bs->outputs[k].tensor, "missing from the run");
	}
}

/* Why a case cannot be normalised, or GATE_NORMALISED when it can. */
static enum gate_basis basis_of(const struct gate_case *g, const struct summary_case *b, const struct summary_case *r)
{
	double mb = b->a.time.n ? b->a.time.median_ns : NAN, mr = r->a.time.n ? r->a.time.median_ns : NAN;
	if (!g->a_variant_base[0] || !g->a_variant_run[0] || strcmp(g->a_variant_base, g->a_variant_run))
		return GATE_RAW_VARIANT;
	if (!(mb > 0) || !(mr > 0) || !isfinite(mb) || !isfinite(mr))
		return GATE_RAW_NO_A;
	return GATE_NORMALISED;
}

/* The bracket-normalised comparison: r = median(B) / median(A) in each
 * run, and r_run / r_base with its interval and p from a block bootstrap
 * that resamples both arms of both runs (blockboot.h), so that A's own
 * sampling error is in the interval too. */
static enum ab_rc normalise(const struct summary_case *b, const struct summary_case *r, struct gate_case *g,
			    struct ab_diag *d)
{
	struct blockboot_arm ab = { 0 }, bb = { 0 }, ar = { 0 }, br = { 0 };
	struct blockboot_result res;
	enum ab_rc rc = blockboot_arm_init(&ab, b->c, 'a', d);
	rc = rc ? rc : blockboot_arm_init(&bb, b->c, 'b', d);
	rc = rc ? rc : blockboot_arm_init(&ar, r->c, 'a', d);
	rc = rc ? rc : blockboot_arm_init(&br, r->c, 'b', d);
	if (!rc && !(rc = blockboot_ratio(&br, &ar, &bb, &ab, &res, d))) {
		g->r_base = bb.median / ab.median;
		g->r_run = br.median / ar.median;
		g->norm_change = g->r_run / g->r_base - 1;
		g->norm_ratio = res.ratio;
		g->norm_p = res.p;
	}
	blockboot_arm_free(&ab);
	blockboot_arm_free(&bb);
	blockboot_arm_free(&ar);
	blockboot_arm_free(&br);
	return rc;
}

/* Fills the time fields of a case present in both runs: the basis, the
 * normalised figures when it is normalised, the judged change (relative
 * and in ns of the baseline's B) and p, the noise floor and the A arm's
 * own move. */
static enum ab_rc judge_time(const struct summary_case *b, const struct summary_case *r, struct gate_case *g,
			     struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	snprintf(g->a_variant_base, sizeof g->a_variant_base, "%s", b->a.variant);
	snprintf(g->a_variant_run, sizeof g->a_variant_run, "%s", r->a.variant);
	g->basis = basis_of(g, b, r);
	g->a_change = (r->a.time.n ? r->a.time.median_ns : NAN) / (b->a.time.n ? b->a.time.median_ns : NAN) - 1;
	if (g->basis == GATE_NORMALISED && b->b.time.n && r->b.time.n)
		rc = normalise(b, r, g, d);
	if (rc == AB_OK) {
		bool norm = g->basis == GATE_NORMALISED;
		g->change = norm ? g->norm_change : g->raw_change;
		g->abs_change_ns = g->change * g->cmp.a.median_ns;
		g->p_value = norm ? g->norm_p : g->cmp.p_value;
		g->drift_base = b->drift;
		g->drift_run = r->drift;
		g->noise_floor = fmax(isnan(g->drift_base) ? 0 : g->drift_base, isnan(g->drift_run) ? 0 : g->drift_run);
	}
	return rc;
}

/* The bars a time verdict must clear: the relative threshold (a
 * fraction) and the absolute floor (ns). */
struct limits {
	double thr, min_ns;
	int min_samples; /* fewest samples a slot needs for its case to pass */
	double moved;    /* the A arm's move (a fraction) beyond which the machine changed */
};

/* A change (a fraction of median(B, baseline)) beyond the bars in
 * direction dir (+1 slower, -1 faster), significant: beyond the threshold
 * and the bracket's noise floor, and in ns beyond the absolute floor. */
static bool beyond(const struct gate_case *g, double change, double p, const struct limits *L, int dir)
{
	double ns = change * g->cmp.a.median_ns;
	return dir * change > fmax(L->thr, g->noise_floor) && dir * ns > L->min_ns && p < COMPARE_ALPHA;
}

/* The time verdict in direction dir. Normalised, B/A must clear the bars;
 * when the A arm itself moved beyond the threshold the machine changed,
 * one pair cannot say whether A or B followed it, so raw B must clear the
 * bars too. In a fallback, raw B alone. */
static bool time_moved(const struct gate_case *g, const struct limits *L, int dir)
{
	bool raw = beyond(g, g->raw_change, g->cmp.p_value, L, dir);
	if (g->basis != GATE_NORMALISED)
		return raw;
	return beyond(g, g->norm_change, g->norm_p, L, dir) && (!g->a_moved || raw);
}

static enum gate_verdict verdict_of(const struct gate_case *g, const struct limits *L)
{
	if (g->cmp.verdict == COMPARE_MISSING_B)
		return GATE_MISSING;
	if (g->cmp.verdict == COMPARE_MISSING_A)
		return GATE_NEW;
	if (g->lost_exact)
		return GATE_LOST_EXACT;
	if (g->time_regressed)
		return GATE_REGRESSED;
	if (time_moved(g, L, -1))
		return GATE_FASTER;
	return GATE_PASS;
}

/* The slot with the fewest samples of case c into g, when fewer than
 * g's so far ("run B", "baseline A1"). */
static void fewest_of(const struct results_case *c, const char *which, struct gate_case *g)
{
	for (int i = 0; c && i < c->n_slots; i++) {
		if (g->fewest_slot[0] && c->slots[i].n_samples >= g->fewest)
			continue;
		g->fewest = c->slots[i].n_samples;
		snprintf(g->fewest_slot, sizeof g->fewest_slot, "%s %s", which, c->slots[i].label);
	}
}

static void clear_time(struct gate_case *g)
{
	g->basis = GATE_NORMALISED;
	g->raw_change = g->cmp.ratio.point - 1;
	g->r_base = g->r_run = g->norm_change = g->norm_p = NAN;
	g->norm_ratio = (struct stats_interval){ NAN, NAN, NAN };
	g->change = g->raw_change;
	g->abs_change_ns = NAN;
	g->p_value = g->cmp.p_value;
	g->drift_base = g->drift_run = g->a_change = NAN;
	g->noise_floor = 0;
}

/* Judges one case; b or r may be NULL (missing, new). */
static enum ab_rc judge_case(const struct summary_case *b, const struct summary_case *r, const struct limits *L,
			     struct gate_case *g, struct ab_diag *d)
{
	enum ab_rc rc;
	memset(g, 0, sizeof *g);
	if ((rc = compare_case_pair(b, r, &g->cmp, d)) != AB_OK)
		return rc;
	snprintf(g->name, sizeof g->name, "%s", g->cmp.name);
	clear_time(g);
	g->run_exact = r != NULL;
	if (b && r) {
		judge_run_slots(b->c, r->c, g);
		judge_missing_outputs(b->c, r->c, g);
		if (g->cmp.a.n > 0 && g->cmp.b.n == 0)
			g->cmp.verdict = COMPARE_MISSING_B; /* the run kept no B samples of it */
		if ((rc = judge_time(b, r, g, d)) != AB_OK)
			return rc;
		g->a_moved = g->basis == GATE_NORMALISED && fabs(g->a_change) > L->moved;
		g->time_regressed = time_moved(g, L, +1);
		g->underpowered = g->cmp.p_floor >= COMPARE_ALPHA;
		fewest_of(b->c, "baseline", g);
		fewest_of(r->c, "run", g);
	}
	g->verdict = verdict_of(g, L);
	if ((g->verdict == GATE_PASS || g->verdict == GATE_FASTER) && g->fewest < L->min_samples)
		g->verdict = GATE_INCONCLUSIVE;
	return AB_OK;
}

static void count(struct gate_result *r, const struct gate_case *g)
{
	r->n_time_regressed += g->time_regressed;
	r->n_lost_exact += g->lost_exact;
	r->n_nondeterministic += g->nondeterministic;
	r->n_missing += g->verdict == GATE_MISSING;
	r->n_faster += g->verdict == GATE_FASTER;
	r->n_raw += g->basis != GATE_NORMALISED && g->verdict != GATE_MISSING && g->verdict != GATE_NEW;
	r->n_failed += g->verdict == GATE_REGRESSED || g->verdict == GATE_LOST_EXACT || g->verdict == GATE_MISSING;
	r->n_inconclusive += g->verdict == GATE_INCONCLUSIVE;
	r->n_not_measured += g->verdict == GATE_NOT_MEASURED;
}

/* Fills out->cases: the baseline's selected cases in order, then the
 * run's selected cases that the baseline lacks. */
static enum ab_rc judge_all(const struct summary_run *base, const struct summary_run *run,
			    const struct gate_options *o, struct gate_result *out, struct ab_diag *d)
{
	const struct limits L = { o->max_regression_pct / 100, o->min_change_ns, out->min_samples,
				  out->machine_moved_pct / 100 };
	enum ab_rc rc = AB_OK;

	for (int i = 0; rc == AB_OK && i < base->n_cases; i++) {
		const struct summary_case *b = &base->cases[i];
		const char *name = b->c->name;
		if (!selected(o, name))
			continue;
		struct gate_case *g = &out->cases[out->n_cases++];
		rc = judge_case(b, summary_find(run, name), &L, g, d);
		if (g->verdict == GATE_MISSING && !summary_find(run, name) && !run_selects(run->run, name))
			g->verdict = GATE_NOT_MEASURED;
	}
	for (int i = 0; rc == AB_OK && i < run->n_cases; i++) {
		const struct summary_case *r = &run->cases[i];
		if (selected(o, r->c->name) && !summary_find(base, r->c->name))
			rc = judge_case(NULL, r, &L, &out->cases[out->n_cases++], d);
	}
	for (int i = 0; rc == AB_OK && i < out->n_cases; i++)
		count(out, &out->cases[i]);
	return rc;
}

/* "case 'ln_modulat' is not in the baseline (run 3) (did you mean
 * 'ln_modulate'?)": --only names a case the baseline lacks. */
static enum ab_rc unknown_case(const struct summary_run *base, const char *name, struct ab_diag *d)
{
	const char **names = calloc((size_t)base->n_cases + 1, sizeof *names);
	char hint[SUGGEST_LIST_MAX + 64] = "";
	for (int i = 0; names && i < base->n_cases; i++)
		names[i] = base->cases[i].c->name;
	if (names)
		suggest_hint(name, names, base->n_cases, "its cases", NULL, 0, hint, sizeof hint);
	free(names);
	return ab_fail(d, AB_ERR_DATA, "case '%s' is not in the baseline (run %lld)%s", name, (long long)base->run->id,
		       hint);
}

enum ab_rc gate_check(const struct summary_run *base, const struct summary_run *run, const struct gate_options *o,
		      struct gate_result *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	enum ab_rc rc = check_runs(base->run, run->run, o, d);
	if (rc != AB_OK)
		return rc;
	if (o->only && !summary_find(base, o->only))
		return unknown_case(base, o->only, d);
	out->max_regression_pct = o->max_regression_pct;
	out->machine_moved_pct = o->machine_moved_pct > 0 && isfinite(o->machine_moved_pct) ? o->machine_moved_pct
											     : o->max_regression_pct;
	out->min_change_ns = o->min_change_ns;
	out->min_samples = o->min_samples > 0 ? o->min_samples : GATE_MIN_SAMPLES;
	out->run_quick = run->run->quick;
	out->base_quick = base->run->quick;
	snprintf(out->run_only, sizeof out->run_only, "%s", run->run->only_cases);
	out->cases = calloc((size_t)(base->n_cases + run->n_cases) + 1, sizeof *out->cases);
	if (!out->cases)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory gating run %lld", (long long)run->run->id);
	rc = judge_all(base, run, o, out, d);
	if (rc != AB_OK)
		gate_result_free(out);
	return rc;
}

void gate_result_free(struct gate_result *r)
{
	free(r->cases);
	r->cases = NULL;
	r->n_cases = 0;
}

bool gate_inconclusive(const struct gate_result *r)
{
	return r->run_quick || r->base_quick || r->n_inconclusive || r->n_not_measured;
}

enum gate_overall gate_overall(const struct gate_result *r)
{
	if (r->n_failed)
		return GATE_OVERALL_FAIL;
	return gate_inconclusive(r) ? GATE_OVERALL_INCONCLUSIVE : GATE_OVERALL_PASS;
}

const char *gate_overall_str(enum gate_overall v)
{
	switch (v) {
	case GATE_OVERALL_FAIL: return "FAIL";
	case GATE_OVERALL_INCONCLUSIVE: return "INCONCLUSIVE";
	case GATE_OVERALL_PASS: break;
	}
	return "PASS";
}

int gate_exit_status(const struct gate_result *r)
{
	switch (gate_overall(r)) {
	case GATE_OVERALL_FAIL: return AB_EXIT_VERDICT;
	case GATE_OVERALL_INCONCLUSIVE: return AB_EXIT_INCONCLUSIVE;
	case GATE_OVERALL_PASS: break;
	}
	return AB_EXIT_OK;
}

const char *gate_verdict_str(enum gate_verdict v)
{
	switch (v) {
	case GATE_PASS: return "pass";
	case GATE_FASTER: return "faster (reported, passes)";
	case GATE_NEW: return "new (not in the baseline)";
	case GATE_REGRESSED: return "REGRESSED";
	case GATE_LOST_EXACT: return "LOST BIT-EXACTNESS";
	case GATE_MISSING: return "MISSING from the run";
	case GATE_INCONCLUSIVE: return "INCONCLUSIVE";
	case GATE_NOT_MEASURED: return "not measured (partial run)";
	}
	return "?";
}
