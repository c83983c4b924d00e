/*
 * gate.c - the regression gate: per-case verdicts of a run against a
 * baseline run, their markdown table and the list of cases to re-measure.
 */
#include "gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"
#include "stats.h"

static enum ab_rc check_status(const struct res_run *r, const char *what, struct ab_diag *d)
{
	if (strcmp(r->status, "ok"))
		return ab_fail(d, AB_ERR_DATA, "%s run %lld is '%s', not 'ok'", what, (long long)r->id, r->status);
	return AB_OK;
}

/* The mismatches that make a verdict meaningless: data errors, not fails. */
static enum ab_rc check_runs(const struct res_run *base, const struct res_run *run, const struct gate_options *o,
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
	return AB_OK;
}

static const struct res_case *find_case(const struct res_run *r, const char *name)
{
	for (int i = 0; i < r->n_cases; i++)
		if (!strcmp(r->cases[i].name, name))
			return &r->cases[i];
	return NULL;
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

static const struct res_output *find_output(const struct res_slot *s, const char *tensor)
{
	for (int i = 0; s && i < s->n_outputs; i++)
		if (!strcmp(s->outputs[i].tensor, tensor))
			return &s->outputs[i];
	return NULL;
}

static const char *first_a_label(const struct res_case *c)
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
static void judge_run_slots(const struct res_case *b, const struct res_case *r, struct gate_case *g)
{
	char why[64];
	snprintf(why, sizeof why, "not byte-equal to %s", first_a_label(r));
	for (int i = 0; i < r->n_slots; i++) {
		const struct res_slot *s = &r->slots[i];
		for (int k = 0; k < s->n_outputs; k++) {
			const struct res_output *o = &s->outputs[k];
			const struct res_output *bo = find_output(res_case_slot(b, s->label), o->tensor);
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
static void judge_missing_outputs(const struct res_case *b, const struct res_case *r, struct gate_case *g)
{
	for (int i = 0; i < b->n_slots; i++) {
		const struct res_slot *bs = &b->slots[i], *rs = res_case_slot(r, bs->label);
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

/* Median of the run's A arm over the baseline's, minus 1. */
static double a_arm_change(const struct res_case *b, const struct res_case *r)
{
	double *xb = NULL, *xr = NULL, ch = NAN;
	int nb = 0, nr = 0;
	if (!cmp_arm_samples(b, 'a', &xb, &nb, NULL) && !cmp_arm_samples(r, 'a', &xr, &nr, NULL) && nb && nr)
		ch = stat_median(xr, nr) / stat_median(xb, nb) - 1;
	free(xb);
	free(xr);
	return ch;
}

static enum gate_verdict verdict_of(const struct gate_case *g, double thr)
{
	if (g->cmp.verdict == CMP_MISSING_B)
		return GATE_MISSING;
	if (g->cmp.verdict == CMP_MISSING_A)
		return GATE_NEW;
	if (g->lost_exact)
		return GATE_LOST_EXACT;
	if (g->time_regressed)
		return GATE_REGRESSED;
	if (g->change < -thr && g->cmp.p_value < CMP_ALPHA)
		return GATE_FASTER;
	return GATE_PASS;
}

/* Judges one case; b or r may be NULL (missing, new). */
static enum ab_rc judge_case(const struct res_case *b, const struct res_case *r, double thr, struct gate_case *g,
			     struct ab_diag *d)
{
	memset(g, 0, sizeof *g);
	enum ab_rc rc = cmp_case_pair(b, r, &g->cmp, d);
	if (rc != AB_OK)
		return rc;
	snprintf(g->name, sizeof g->name, "%s", g->cmp.name);
	g->change = g->cmp.ratio.point - 1;
	g->a_change = NAN;
	g->run_exact = r != NULL;
	if (b && r) {
		judge_run_slots(b, r, g);
		judge_missing_outputs(b, r, g);
		if (g->cmp.a.n > 0 && g->cmp.b.n == 0)
			g->cmp.verdict = CMP_MISSING_B; /* the run kept no B samples of it */
		g->time_regressed = g->change > thr && g->cmp.p_value < CMP_ALPHA;
		g->underpowered = best_p(g->cmp.a.n, g->cmp.b.n) >= CMP_ALPHA;
		g->a_change = a_arm_change(b, r);
	}
	g->verdict = verdict_of(g, thr);
	return AB_OK;
}

static void count(struct gate_result *r, const struct gate_case *g)
{
	r->n_time_regressed += g->time_regressed;
	r->n_lost_exact += g->lost_exact;
	r->n_missing += g->verdict == GATE_MISSING;
	r->n_faster += g->verdict == GATE_FASTER;
	r->n_failed += g->verdict == GATE_REGRESSED || g->verdict == GATE_LOST_EXACT || g->verdict == GATE_MISSING;
}

/* Fills out->cases: the baseline's selected cases in order, then the
 * run's selected cases that the baseline lacks. */
static enum ab_rc judge_all(const struct res_run *base, const struct res_run *run, const struct gate_options *o,
			    struct gate_result *out, struct ab_diag *d)
{
	double thr = o->max_regression_pct / 100;
	enum ab_rc rc = AB_OK;

	for (int i = 0; rc == AB_OK && i < base->n_cases; i++) {
		const struct res_case *b = &base->cases[i];
		if (selected(o, b->name))
			rc = judge_case(b, find_case(run, b->name), thr, &out->cases[out->n_cases++], d);
	}
	for (int i = 0; rc == AB_OK && i < run->n_cases; i++) {
		const struct res_case *r = &run->cases[i];
		if (selected(o, r->name) && !find_case(base, r->name))
			rc = judge_case(NULL, r, thr, &out->cases[out->n_cases++], d);
	}
	for (int i = 0; rc == AB_OK && i < out->n_cases; i++)
		count(out, &out->cases[i]);
	return rc;
}

enum ab_rc gate_check(const struct res_run *base, const struct res_run *run, const struct gate_options *o,
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

int gate_exit_status(const struct gate_result *r)
{
	return r->n_failed ? AB_EXIT_VERDICT : AB_EXIT_OK;
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
	}
	return "?";
}

/* ---- printing ---- */

static void print_arm(FILE *f, const struct cmp_arm *a)
{
	char m[32], lo[32], hi[32];
	if (!a->n)
		fputs("n/a", f);
	else
		fprintf(f, "%s [%s, %s] n=%d", md_us(a->median_ns, m, sizeof m), md_us(a->p10_ns, lo, sizeof lo),
			md_us(a->p90_ns, hi, sizeof hi), a->n);
}

static void print_change(FILE *f, const struct gate_case *g)
{
	char c[32], lo[32], hi[32];
	if (isnan(g->change)) {
		fputs("n/a", f);
		return;
	}
	fprintf(f, "%s [%s, %s]", md_pct(g->change, c, sizeof c), md_pct(g->cmp.ratio.low - 1, lo, sizeof lo),
		md_pct(g->cmp.ratio.high - 1, hi, sizeof hi));
}

static void print_exact(FILE *f, const struct gate_case *g)
{
	if (g->verdict == GATE_MISSING && !g->cmp.b.n && !g->lost_exact)
		fputs("n/a", f);
	else if (g->lost_exact) {
		fputs("**no**: ", f);
		md_cell(f, g->exact_note);
	} else
		fputs(g->run_exact ? "yes" : "no (as in the baseline)", f);
}

static void print_verdict(FILE *f, const struct gate_case *g, double thr)
{
	bool fail = g->verdict == GATE_REGRESSED || g->verdict == GATE_LOST_EXACT || g->verdict == GATE_MISSING;
	const char *mark = fail ? "**" : "";
	fprintf(f, "%s%s%s", mark, gate_verdict_str(g->verdict), mark);
	if (g->verdict == GATE_LOST_EXACT && g->time_regressed)
		fputs(", also regressed", f);
	if (g->verdict == GATE_PASS && g->change > thr)
		fprintf(f, " (slower beyond the threshold, %s)",
			g->underpowered ? "too few samples to call it" : "not significant");
	if ((g->verdict == GATE_REGRESSED || g->change > thr) && fabs(g->a_change) > thr) {
		char pct[32];
		fprintf(f, "; the A arm moved %s too: the machine may have changed", md_pct(g->a_change, pct, sizeof pct));
	}
}

static void print_row(FILE *f, const struct gate_case *g, double thr)
{
	char p[32];
	fputs("| ", f);
	md_code(f, g->name);
	fputs(" | ", f);
	print_arm(f, &g->cmp.a);
	fputs(" | ", f);
	print_arm(f, &g->cmp.b);
	fputs(" | ", f);
	print_change(f, g);
	fprintf(f, " | %s | ", md_p(g->cmp.p_value, p, sizeof p));
	print_exact(f, g);
	fputs(" | ", f);
	print_verdict(f, g, thr);
	fputs(" |\n", f);
}

static void print_headline(FILE *f, const struct res_run *base, const struct res_run *run,
			   const struct gate_options *o, const struct gate_result *r)
{
	fprintf(f, "## gate: %s: run %lld", r->n_failed ? "FAIL" : "PASS", (long long)run->id);
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
	fputs(", B arm ", f);
	md_code(f, run->arm_b);
	fputs(".\n\n", f);
}

static void print_rule(FILE *f, const struct gate_options *o, const struct gate_result *r)
{
	fprintf(f, "A case fails when its B arm is slower than the baseline's by more than %.2f%% (", r->max_regression_pct);
	md_cell(f, o->threshold_source ? o->threshold_source : "threshold");
	fprintf(f, ") and a two-sided Mann-Whitney U test gives p < %g, when it lost bit-exactness, or when "
		   "it is missing from the run. Change = median(run) / median(baseline) - 1 with its %.0f%% "
		   "bootstrap interval; improvements never fail.\n\n", CMP_ALPHA, CMP_CI_LEVEL * 100);
}

static void print_tally(FILE *f, const struct gate_result *r)
{
	fprintf(f, "\n%d case%s checked: %d failed (%d regressed in time, %d lost bit-exactness, %d missing), "
		   "%d faster.\n", r->n_cases, r->n_cases == 1 ? "" : "s", r->n_failed, r->n_time_regressed,
		r->n_lost_exact, r->n_missing, r->n_faster);
}

enum ab_rc gate_print(FILE *f, const struct res_run *base, const struct res_run *run, const struct gate_options *o,
		      const struct gate_result *r, struct ab_diag *d)
{
	static const char *const cols[] = { "case", "baseline B median [p10, p90] us", "run B median [p10, p90] us",
					    "change [95% CI]", "p", "bit-exact", "verdict" };
	print_headline(f, base, run, o, r);
	print_rule(f, o, r);
	md_table_head(f, 7, cols, "lrrrrll");
	for (int i = 0; i < r->n_cases; i++)
		print_row(f, &r->cases[i], r->max_regression_pct / 100);
	print_tally(f, r);
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
