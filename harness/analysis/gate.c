/*
 * gate.c - the regression gate: per-case verdicts of a run against a
 * baseline run, their markdown table and the list of cases to re-measure.
 * Time is judged on B relative to its own bracket's A arm, and in ns
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

#include "print/md.h"
#include "analysis/summary.h"
#include "analysis/stats.h"

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

static const struct results_case *find_case(const struct results_run *r, const char *name)
{
	for (int i = 0; i < r->n_cases; i++)
		if (!strcmp(r->cases[i].name, name))
			return &r->cases[i];
	return NULL;
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

/* The run's slots against the rule "B byte-equal to A" and against the
 * baseline's bit-exact outputs. */
static void judge_run_slots(const struct results_case *b, const struct results_case *r, struct gate_case *g)
{
	char why[64];
	snprintf(why, sizeof why, "not byte-equal to %s", first_a_label(r));
	for (int i = 0; i < r->n_slots; i++) {
		const struct results_slot *s = &r->slots[i];
		for (int k = 0; k < s->n_outputs; k++) {
			const struct results_output *o = &s->outputs[k];
			const struct results_output *bo = find_output(results_case_slot(b, s->label), o->tensor);
			if (o->bit_exact)
				continue;
			g->run_exact = false;
			if (s->arm == 'b')
				lose(g, s->label, o->tensor, why);
			else if (bo && bo->bit_exact)
				lose(g, s->label, o->tensor, "no longer bit-exact");
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

/* The smallest two-sided p the normal-approximation Mann-Whitney test can
 * give for na and nb samples (complete separation, no ties): with 3 and 3
 * samples it is 0.08, so such a case can never be called a regression. */
static double best_p(int na, int nb)
{
	if (na <= 0 || nb <= 0)
		return 1;
	double mu = na * (double)nb / 2, var = na * (double)nb * (na + nb + 1) / 12;
	return erfc((mu - 0.5) / sqrt(var) / sqrt(2));
}

/* The variant of c's A slots into buf; "" when it has none or they
 * disagree: then median(A) does not stand for one kernel. */
static void a_variant(const struct results_case *c, char *buf, size_t len)
{
	const char *v = NULL;
	for (int i = 0; i < c->n_slots; i++) {
		if (c->slots[i].arm != 'a')
			continue;
		if (v && strcmp(v, c->slots[i].variant)) {
			v = "";
			break;
		}
		v = c->slots[i].variant;
	}
	snprintf(buf, len, "%s", v ? v : "");
}


/* One run's pooled samples of a case: B (divided by median(A) once
 * normalised) and median(A). */
struct arm_pool {
	double *a, *b;
	int na, nb;
	double med_a; /* NAN without A samples */
};

static enum ab_rc pool_case(const struct results_case *c, struct arm_pool *p, struct ab_diag *d)
{
	memset(p, 0, sizeof *p);
	enum ab_rc rc = compare_arm_samples(c, 'a', &p->a, &p->na, d);
	if (rc == AB_OK)
		rc = compare_arm_samples(c, 'b', &p->b, &p->nb, d);
	p->med_a = p->na ? stats_median(p->a, p->na) : NAN;
	return rc;
}

static void pool_free(struct arm_pool *p)
{
	free(p->a);
	free(p->b);
}

/* Why a case cannot be normalised, or GATE_NORMALISED when it can. */
static enum gate_basis basis_of(const struct gate_case *g, const struct arm_pool *pb, const struct arm_pool *pr)
{
	if (!g->a_variant_base[0] || !g->a_variant_run[0] || strcmp(g->a_variant_base, g->a_variant_run))
		return GATE_RAW_VARIANT;
	if (!(pb->med_a > 0) || !(pr->med_a > 0) || !isfinite(pb->med_a) || !isfinite(pr->med_a))
		return GATE_RAW_NO_A;
	return GATE_NORMALISED;
}

/* The bracket-normalised comparison: each run's B samples divided by its
 * own median(A), then compared as the raw ones are. Scales the pools. */
static void normalise(struct arm_pool *pb, struct arm_pool *pr, struct gate_case *g)
{
	for (int i = 0; i < pb->nb; i++)
		pb->b[i] /= pb->med_a;
	for (int i = 0; i < pr->nb; i++)
		pr->b[i] /= pr->med_a;
	g->r_base = stats_median(pb->b, pb->nb);
	g->r_run = stats_median(pr->b, pr->nb);
	g->norm_change = g->r_run / g->r_base - 1;
	g->norm_ratio = stats_speedup_ci(pr->b, pr->nb, pb->b, pb->nb, COMPARE_CI_LEVEL, COMPARE_RESAMPLES, COMPARE_SEED);
	g->norm_p = stats_mann_whitney(pr->b, pr->nb, pb->b, pb->nb).p_value;
}

/* Fills the time fields of a case present in both runs: the basis, the
 * normalised figures when it is normalised, the judged change (relative
 * and in ns of the baseline's B) and p, the noise floor and the A arm's
 * own move. */
static enum ab_rc judge_time(const struct results_case *b, const struct results_case *r, struct gate_case *g,
			     struct ab_diag *d)
{
	struct arm_pool pb, pr;
	enum ab_rc rc = pool_case(b, &pb, d);
	if (rc == AB_OK)
		rc = pool_case(r, &pr, d);
	else
		memset(&pr, 0, sizeof pr);
	if (rc == AB_OK) {
		a_variant(b, g->a_variant_base, sizeof g->a_variant_base);
		a_variant(r, g->a_variant_run, sizeof g->a_variant_run);
		g->basis = basis_of(g, &pb, &pr);
		g->a_change = pr.med_a / pb.med_a - 1;
		if (g->basis == GATE_NORMALISED && pb.nb && pr.nb)
			normalise(&pb, &pr, g);
		bool norm = g->basis == GATE_NORMALISED;
		g->change = norm ? g->norm_change : g->raw_change;
		g->abs_change_ns = g->change * g->cmp.a.median_ns;
		g->p_value = norm ? g->norm_p : g->cmp.p_value;
		g->drift_base = summary_a_drift(b);
		g->drift_run = summary_a_drift(r);
		g->noise_floor = fmax(isnan(g->drift_base) ? 0 : g->drift_base, isnan(g->drift_run) ? 0 : g->drift_run);
	}
	pool_free(&pb);
	pool_free(&pr);
	return rc;
}

/* The bars a time verdict must clear: the relative threshold (a
 * fraction) and the absolute floor (ns). */
struct limits {
	double thr, min_ns;
	int min_samples; /* fewest samples a slot needs for its case to pass */
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
static enum ab_rc judge_case(const struct results_case *b, const struct results_case *r, const struct limits *L,
			     struct gate_case *g, struct ab_diag *d)
{
	memset(g, 0, sizeof *g);
	enum ab_rc rc = compare_case_pair(b, r, &g->cmp, d);
	if (rc != AB_OK)
		return rc;
	snprintf(g->name, sizeof g->name, "%s", g->cmp.name);
	clear_time(g);
	g->run_exact = r != NULL;
	if (b && r) {
		judge_run_slots(b, r, g);
		judge_missing_outputs(b, r, g);
		if (g->cmp.a.n > 0 && g->cmp.b.n == 0)
			g->cmp.verdict = COMPARE_MISSING_B; /* the run kept no B samples of it */
		if ((rc = judge_time(b, r, g, d)) != AB_OK)
			return rc;
		g->a_moved = g->basis == GATE_NORMALISED && fabs(g->a_change) > L->thr;
		g->time_regressed = time_moved(g, L, +1);
		g->underpowered = best_p(g->cmp.a.n, g->cmp.b.n) >= COMPARE_ALPHA;
		fewest_of(b, "baseline", g);
		fewest_of(r, "run", g);
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
	r->n_missing += g->verdict == GATE_MISSING;
	r->n_faster += g->verdict == GATE_FASTER;
	r->n_raw += g->basis != GATE_NORMALISED && g->verdict != GATE_MISSING && g->verdict != GATE_NEW;
	r->n_failed += g->verdict == GATE_REGRESSED || g->verdict == GATE_LOST_EXACT || g->verdict == GATE_MISSING;
	r->n_inconclusive += g->verdict == GATE_INCONCLUSIVE;
	r->n_not_measured += g->verdict == GATE_NOT_MEASURED;
}

/* Fills out->cases: the baseline's selected cases in order, then the
 * run's selected cases that the baseline lacks. */
static enum ab_rc judge_all(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
			    struct gate_result *out, struct ab_diag *d)
{
	const struct limits L = { o->max_regression_pct / 100, o->min_change_ns, out->min_samples };
	enum ab_rc rc = AB_OK;

	for (int i = 0; rc == AB_OK && i < base->n_cases; i++) {
		const struct results_case *b = &base->cases[i];
		if (!selected(o, b->name))
			continue;
		struct gate_case *g = &out->cases[out->n_cases++];
		rc = judge_case(b, find_case(run, b->name), &L, g, d);
		if (g->verdict == GATE_MISSING && !find_case(run, b->name) && !run_selects(run, b->name))
			g->verdict = GATE_NOT_MEASURED;
	}
	for (int i = 0; rc == AB_OK && i < run->n_cases; i++) {
		const struct results_case *r = &run->cases[i];
		if (selected(o, r->name) && !find_case(base, r->name))
			rc = judge_case(NULL, r, &L, &out->cases[out->n_cases++], d);
	}
	for (int i = 0; rc == AB_OK && i < out->n_cases; i++)
		count(out, &out->cases[i]);
	return rc;
}

enum ab_rc gate_check(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
		      struct gate_result *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	enum ab_rc rc = check_runs(base, run, o, d);
	if (rc != AB_OK)
		return rc;
	if (o->only && !find_case(base, o->only))
		return ab_fail(d, AB_ERR_DATA, "case '%s' is not in the baseline (run %lld)", o->only,
			       (long long)base->id);
	out->max_regression_pct = o->max_regression_pct;
	out->min_change_ns = o->min_change_ns;
	out->min_samples = o->min_samples > 0 ? o->min_samples : GATE_MIN_SAMPLES;
	out->run_quick = run->quick;
	out->base_quick = base->quick;
	snprintf(out->run_only, sizeof out->run_only, "%s", run->only_cases);
	out->cases = calloc((size_t)(base->n_cases + run->n_cases) + 1, sizeof *out->cases);
	if (!out->cases)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory gating run %lld", (long long)run->id);
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

int gate_exit_status(const struct gate_result *r)
{
	if (r->n_failed)
		return AB_EXIT_VERDICT;
	return gate_inconclusive(r) ? AB_EXIT_INCONCLUSIVE : AB_EXIT_OK;
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

/* ---- printing ---- */

/* ratio - 1, with the last-bit residue of dividing two equal ratios
 * (an ulp under 1) taken as 0, so that it prints +0.00%, not -0.00%. */
static double change_of(double ratio)
{
	double c = ratio - 1;
	return fabs(c) < 1e-12 ? 0 : c;
}

/* "+7.67% [+4.42%, +11.97%]": a ratio - 1 with its interval; "n/a" for NAN. */
static void print_change(FILE *f, const struct stats_interval *ratio)
{
	char c[32], lo[32], hi[32];
	if (isnan(ratio->point)) {
		fputs("n/a", f);
		return;
	}
	fprintf(f, "%s [%s, %s]", md_pct(change_of(ratio->point), c, sizeof c),
		md_pct(change_of(ratio->low), lo, sizeof lo), md_pct(change_of(ratio->high), hi, sizeof hi));
}

/* The normalised change, or why there is none. */
static void print_norm_change(FILE *f, const struct gate_case *g)
{
	if (g->basis == GATE_NORMALISED)
		print_change(f, &g->norm_ratio);
	else
		fputs(g->basis == GATE_RAW_VARIANT ? "n/a (A arm differs)" : "n/a (no A samples)", f);
}

static bool compared(const struct gate_case *g)
{
	return g->verdict != GATE_MISSING && g->verdict != GATE_NEW && g->verdict != GATE_NOT_MEASURED;
}

static void print_floor(FILE *f, const struct gate_case *g)
{
	if (!compared(g) || (isnan(g->drift_base) && isnan(g->drift_run)))
		fputs("n/a", f);
	else
		fprintf(f, "%.2f%%", g->noise_floor * 100);
}

/* The judged change in us of the baseline's B, signed: "+0.295"; under
 * half a ns (the residue of equal ratios) it prints 0.000, not -0.000. */
static void print_abs_change(FILE *f, const struct gate_case *g)
{
	char us[32];
	double ns = fabs(g->abs_change_ns) < 0.5 ? 0 : g->abs_change_ns;
	if (!compared(g) || isnan(ns))
		fputs("n/a", f);
	else
		fprintf(f, "%s%s", ns > 0 ? "+" : "", md_us(ns, us, sizeof us));
}

static void print_exact(FILE *f, const struct gate_case *g)
{
	if ((g->verdict == GATE_MISSING || g->verdict == GATE_NOT_MEASURED) && !g->cmp.b.n && !g->lost_exact)
		fputs("n/a", f);
	else if (g->lost_exact) {
		fputs("**no**: ", f);
		md_cell(f, g->exact_note);
	} else
		fputs(g->run_exact ? "yes" : "no (as in the baseline)", f);
}

/* Why a slowdown beyond the threshold still passed. */
static void print_pass_reason(FILE *f, const struct gate_case *g, double min_ns)
{
	char us[32], floor_us[32];
	fputs("slower beyond the threshold, ", f);
	if (!(g->p_value < COMPARE_ALPHA))
		fputs(g->underpowered ? "too few samples to call it" : "not significant", f);
	else if (!(g->change > g->noise_floor))
		fprintf(f, "within the A arm's drift of %.2f%%", g->noise_floor * 100);
	else if (!(g->abs_change_ns > min_ns))
		fprintf(f, "by %s us, within the absolute floor of %s us", md_us(g->abs_change_ns, us, sizeof us),
			md_us(min_ns, floor_us, sizeof floor_us));
	else
		fputs("against the A arm only, not in raw B time", f);
}

/* A fallback to raw B times, said in the verdict. */
static void print_fallback(FILE *f, const struct gate_case *g)
{
	if (g->basis == GATE_RAW_NO_A) {
		fputs("; judged on raw B times: no A samples to normalise by", f);
		return;
	}
	fputs("; judged on raw B times: the A arm is ", f);
	md_code(f, g->a_variant_base[0] ? g->a_variant_base : "(mixed)");
	fputs(" in the baseline, ", f);
	md_code(f, g->a_variant_run[0] ? g->a_variant_run : "(mixed)");
	fputs(" in the run", f);
}

/* The A arm moved between the runs beyond the threshold while B's raw or
 * judged change is beyond it too: the machine, not the kernel, may be
 * what moved. Only said where A is the same kernel in both runs. */
static void print_a_moved(FILE *f, const struct gate_case *g, double thr)
{
	char pct[32];
	if (!g->a_moved)
		return;
	if (!(fabs(g->raw_change) > thr) && !(fabs(g->change) > thr))
		return;
	bool same_way = g->a_change * g->raw_change > 0;
	fprintf(f, "; the A arm moved %s%s: the machine may have changed", md_pct(g->a_change, pct, sizeof pct),
		same_way ? " too" : "");
}

/* Why a case that did not fail is inconclusive. */
static void print_too_few(FILE *f, const struct gate_case *g, int min_samples)
{
	fprintf(f, "too few samples: %s has %d, the gate needs %d a slot", g->fewest_slot, g->fewest, min_samples);
}

/* " (REASON)" after a verdict that did not fail: why a slowdown beyond
 * the threshold was not called, and why the case is inconclusive. */
static void print_reasons(FILE *f, const struct gate_case *g, double thr, double min_ns, int min_samples)
{
	bool slower = (g->verdict == GATE_PASS || g->verdict == GATE_INCONCLUSIVE) && g->change > thr;
	bool few = g->verdict == GATE_INCONCLUSIVE;
	if (!slower && !few)
		return;
	fputs(" (", f);
	if (slower)
		print_pass_reason(f, g, min_ns);
	if (slower && few)
		fputs("; ", f);
	if (few)
		print_too_few(f, g, min_samples);
	fputs(")", f);
}

static void print_verdict(FILE *f, const struct gate_case *g, double thr, double min_ns, int min_samples)
{
	bool fail = g->verdict == GATE_REGRESSED || g->verdict == GATE_LOST_EXACT || g->verdict == GATE_MISSING;
	const char *mark = fail ? "**" : "";
	fprintf(f, "%s%s%s", mark, gate_verdict_str(g->verdict), mark);
	if (!compared(g))
		return;
	if (g->verdict == GATE_LOST_EXACT && g->time_regressed)
		fputs(", also regressed", f);
	print_reasons(f, g, thr, min_ns, min_samples);
	if (g->basis != GATE_NORMALISED)
		print_fallback(f, g);
	print_a_moved(f, g, thr);
}

static void print_row(FILE *f, const struct gate_case *g, const struct gate_result *r)
{
	char p[32];
	fputs("| ", f);
	md_code(f, g->name);
	fputs(" | ", f);
	compare_print_arm(f, &g->cmp.a);
	fputs(" | ", f);
	compare_print_arm(f, &g->cmp.b);
	fputs(" | ", f);
	print_change(f, &g->cmp.ratio);
	fputs(" | ", f);
	print_norm_change(f, g);
	fputs(" | ", f);
	print_floor(f, g);
	fputs(" | ", f);
	print_abs_change(f, g);
	fprintf(f, " | %s | ", md_p(g->p_value, p, sizeof p));
	print_exact(f, g);
	fputs(" | ", f);
	print_verdict(f, g, r->max_regression_pct / 100, r->min_change_ns, r->min_samples);
	fputs(" |\n", f);
}

/* ", A arm `eager`", with the baseline's when it differs. */
static void print_arm_name(FILE *f, const char *which, const char *run, const char *base)
{
	fprintf(f, ", %s arm ", which);
	md_code(f, run);
	if (strcmp(run, base)) {
		fputs(" (baseline: ", f);
		md_code(f, base);
		fputs(")", f);
	}
}

static const char *gate_headline_word(const struct gate_result *r)
{
	if (r->n_failed)
		return "FAIL";
	return gate_inconclusive(r) ? "INCONCLUSIVE" : "PASS";
}

/* The cases of the baseline a partial run did not measure, as a list. */
static void print_not_measured(FILE *f, const struct gate_result *r)
{
	int k = 0;
	for (int i = 0; i < r->n_cases; i++) {
		if (r->cases[i].verdict != GATE_NOT_MEASURED)
			continue;
		fputs(k++ ? ", " : "", f);
		md_code(f, r->cases[i].name);
	}
}

/* What keeps the gate from passing, said before the table. */
static void print_evidence(FILE *f, const struct results_run *base, const struct results_run *run,
			   const struct gate_result *r)
{
	if (r->run_only[0]) {
		char only[300];
		snprintf(only, sizeof only, "run --only %s", r->run_only);
		fprintf(f, "Run %lld is **partial** (", (long long)run->id);
		md_code(f, only);
		fputs(")", f);
		if (r->n_not_measured) {
			fprintf(f, ": it lacks %d of the baseline's cases (", r->n_not_measured);
			print_not_measured(f, r);
			fputs("). Gate it with `--only` on the measured case, or run every case.", f);
		} else
			fputs(": every case gated here was measured.", f);
		fputs("\n\n", f);
	}
	if (!r->run_quick && !r->base_quick && !r->n_inconclusive)
		return;
	fputs("**Too little evidence to pass:**", f);
	if (r->run_quick)
		fprintf(f, " run %lld was made with `--quick` (3 to 10 samples a slot);", (long long)run->id);
	if (r->base_quick)
		fprintf(f, " the baseline, run %lld, was made with `--quick`;", (long long)base->id);
	if (r->n_inconclusive)
		fprintf(f, " %d case%s %s a slot under %d samples;", r->n_inconclusive, r->n_inconclusive == 1 ? "" : "s",
			r->n_inconclusive == 1 ? "has" : "have", r->min_samples);
	fputs(" measure again without `--quick`, with more samples (the scenario's `min_samples`), before "
	      "trusting a pass.\n\n", f);
}

static void print_headline(FILE *f, const struct results_run *base, const struct results_run *run,
			   const struct gate_options *o, const struct gate_result *r)
{
	fprintf(f, "## gate: %s: run %lld", gate_headline_word(r), (long long)run->id);
	if (run->label[0]) {
		fputs(" ", f);
		md_code(f, run->label);
	}
	fputs(" against baseline ", f);
	if (o->baseline_name) {
		md_code(f, o->baseline_name);
		fprintf(f, " (run %lld)\n\n", (long long)base->id);
	} else
		fprintf(f, "run %lld\n\n", (long long)base->id);
	fputs("Scenario ", f);
	md_code(f, run->scenario_name);
	fputs(", device ", f);
	md_cell(f, run->device.name);
	print_arm_name(f, "A", run->arm_a, base->arm_a);
	print_arm_name(f, "B", run->arm_b, base->arm_b);
	fputs(".\n\n", f);
}

static void print_rule(FILE *f, const struct gate_options *o, const struct gate_result *r)
{
	char us[32];
	fprintf(f, "Each case's B arm is judged against its own run's A arm, measured in the same bracket under the "
		   "same machine state: r = median(B) / median(A) (A slots pooled) in each run, B/A change = "
		   "r(run) / r(baseline) - 1 with its %.0f%% bootstrap interval, p from a two-sided Mann-Whitney U "
		   "test on each run's B samples divided by that run's median(A). A case fails when its B/A change "
		   "exceeds %.2f%% (", COMPARE_CI_LEVEL * 100, r->max_regression_pct);
	md_cell(f, o->threshold_source ? o->threshold_source : "threshold");
	fprintf(f, ") and the noise floor, and that change in time, B/A change x median(B, baseline), exceeds "
		   "the absolute floor of %s us (", md_us(r->min_change_ns, us, sizeof us));
	md_cell(f, o->min_change_source ? o->min_change_source : "floor");
	fprintf(f, "), with p < %g (and, when the A arm itself moved between the runs by more than that "
		   "threshold, the raw B change does too), when it lost bit-exactness, or when it is missing from "
		   "the run. The noise floor is the larger A-slot drift, max |A_k - A1| / A1, of the two runs: how "
		   "far the machine moved within a bracket; the absolute floor is what the timer cannot resolve "
		   "run to run. Raw B change = median(B, run) / median(B, baseline) - 1; a case whose A arm is a "
		   "different variant in the two runs is judged on it alone (with the Mann-Whitney p of the raw "
		   "samples), as its verdict says. Improvements never fail. A case that did not fail but has a slot "
		   "with fewer than %d samples, in either run, is INCONCLUSIVE, not a pass; so is the whole gate "
		   "when either run was made with --quick or the run is partial (run --only) and lacks cases.\n",
		COMPARE_ALPHA, r->min_samples);
}

static void print_tally(FILE *f, const struct gate_result *r)
{
	fprintf(f, "\n%d case%s checked: %d failed (%d regressed in time, %d lost bit-exactness, %d missing), "
		   "%d faster, %d inconclusive, %d not measured.\n", r->n_cases, r->n_cases == 1 ? "" : "s", r->n_failed,
		r->n_time_regressed, r->n_lost_exact, r->n_missing, r->n_faster, r->n_inconclusive, r->n_not_measured);
	if (r->n_raw)
		fprintf(f, "%d case%s judged on raw B times: the A arm differs between the runs, so normalising by "
			   "it would compare different kernels.\n", r->n_raw, r->n_raw == 1 ? " was" : "s were");
}

enum ab_rc gate_print(FILE *f, const struct results_run *base, const struct results_run *run, const struct gate_options *o,
		      const struct gate_result *r, struct ab_diag *d)
{
	char abs_col[64], us[32];
	snprintf(abs_col, sizeof abs_col, "change in us (floor %s)", md_us(r->min_change_ns, us, sizeof us));
	const char *const cols[] = { "case", "baseline B median [p10, p90] us", "run B median [p10, p90] us",
				     "raw B change [95% CI]", "B/A change [95% CI]", "noise floor", abs_col, "p",
				     "bit-exact", "verdict" };
	print_headline(f, base, run, o, r);
	print_evidence(f, base, run, r);
	md_table_head(f, 10, cols, "lrrrrrrrll");
	for (int i = 0; i < r->n_cases; i++)
		print_row(f, &r->cases[i], r);
	print_tally(f, r);
	fputc('\n', f);
	print_rule(f, o, r);
	if (ferror(f))
		return ab_fail(d, AB_ERR_IO, "cannot write the gate's verdict");
	return AB_OK;
}

enum ab_rc gate_print_failing(FILE *f, const struct gate_result *r, struct ab_diag *d)
{
	for (int i = 0; i < r->n_cases; i++)
		if (r->cases[i].verdict == GATE_REGRESSED)
			fprintf(f, "%s\n", r->cases[i].name);
	if (ferror(f))
		return ab_fail(d, AB_ERR_IO, "cannot write the failing cases");
	return AB_OK;
}
