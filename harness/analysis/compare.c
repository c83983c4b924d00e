/*
 * compare.c - the B arm of each case in two runs: medians, ratio with its
 * bootstrap interval, Mann-Whitney p, verdict and md5 agreement.
 */
#include "analysis/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "print/md.h"

enum ab_rc compare_arm_samples(const struct results_case *c, char arm, double **out, int *n, struct ab_diag *d)
{
	int total = 0, k = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < c->n_slots; i++)
		if (c->slots[i].arm == arm)
			total += c->slots[i].n_samples;
	if (!total)
		return AB_OK;
	double *x = malloc((size_t)total * sizeof *x);
	if (!x)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory pooling samples of '%s'", c->name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		if (s->arm != arm)
			continue;
		memcpy(x + k, s->samples_ns, (size_t)s->n_samples * sizeof *x);
		k += s->n_samples;
	}
	*out = x;
	*n = total;
	return AB_OK;
}

struct compare_arm compare_arm_summary(const double *x, int n)
{
	struct compare_arm a = { stats_median(x, n), stats_quantile(x, n, 0.1), stats_quantile(x, n, 0.9), n };
	return a;
}

/* Counts outputs present in both cases (same slot label, same tensor) and
 * how many of them have different md5s. */
static void md5_agreement(const struct results_case *a, const struct results_case *b, struct compare_case *out)
{
	for (int i = 0; i < a->n_slots; i++) {
		const struct results_slot *sa = &a->slots[i], *sb = results_case_slot(b, sa->label);
		for (int o = 0; sb && o < sa->n_outputs; o++) {
			for (int p = 0; p < sb->n_outputs; p++) {
				if (strcmp(sa->outputs[o].tensor, sb->outputs[p].tensor))
					continue;
				out->md5_compared++;
				out->md5_differ += strcmp(sa->outputs[o].md5, sb->outputs[p].md5) != 0;
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

/* The statistics of two pooled B arms. */
static void compare_samples(const double *xa, int na, const double *xb, int nb, struct compare_case *out)
{
	out->a = compare_arm_summary(xa, na);
	out->b = compare_arm_summary(xb, nb);
	out->ratio = stats_speedup_ci(xb, nb, xa, na, COMPARE_CI_LEVEL, COMPARE_RESAMPLES, COMPARE_SEED);
	out->p_value = na > 0 && nb > 0 ? stats_mann_whitney(xb, nb, xa, na).p_value : NAN;
	out->verdict = verdict_of(out);
}

enum ab_rc compare_case_pair(const struct results_case *a, const struct results_case *b, struct compare_case *out,
			 struct ab_diag *d)
{
	double *xa = NULL, *xb = NULL;
	int na = 0, nb = 0;
	enum ab_rc rc;

	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", a ? a->name : b ? b->name : "");
	out->ratio = (struct stats_interval){ NAN, NAN, NAN };
	out->p_value = NAN;
	out->a = out->b = (struct compare_arm){ NAN, NAN, NAN, 0 };
	if (!a || !b) {
		out->verdict = a ? COMPARE_MISSING_B : COMPARE_MISSING_A;
		return AB_OK;
	}
	if ((rc = compare_arm_samples(a, 'b', &xa, &na, d)) == AB_OK &&
	    (rc = compare_arm_samples(b, 'b', &xb, &nb, d)) == AB_OK) {
		compare_samples(xa, na, xb, nb, out);
		md5_agreement(a, b, out);
		double da = summary_a_drift(a), db = summary_a_drift(b);
		out->noise_floor = fmax(isnan(da) ? 0 : da, isnan(db) ? 0 : db);
		out->change_ns = out->b.median_ns - out->a.median_ns;
	}
	free(xa);
	free(xb);
	return rc;
}

static const struct results_case *find_case(const struct results_run *r, const char *name)
{
	for (int i = 0; i < r->n_cases; i++)
		if (!strcmp(r->cases[i].name, name))
			return &r->cases[i];
	return NULL;
}

enum ab_rc compare_runs(const struct results_run *a, const struct results_run *b, struct compare_result *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	if (strcmp(a->scenario_name, b->scenario_name))
		return ab_fail(d, AB_ERR_DATA, "runs %lld and %lld measured different scenarios ('%s' and '%s')",
			       (long long)a->id, (long long)b->id, a->scenario_name, b->scenario_name);
	out->cases = calloc((size_t)(a->n_cases + b->n_cases) + 1, sizeof *out->cases);
	if (!out->cases)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory comparing runs");
	enum ab_rc rc = AB_OK;
	for (int i = 0; rc == AB_OK && i < a->n_cases; i++)
		rc = compare_case_pair(&a->cases[i], find_case(b, a->cases[i].name), &out->cases[out->n_cases++], d);
	for (int i = 0; rc == AB_OK && i < b->n_cases; i++)
		if (!find_case(a, b->cases[i].name))
			rc = compare_case_pair(NULL, &b->cases[i], &out->cases[out->n_cases++], d);
	if (rc != AB_OK)
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

/* "38.500 [37.912, 39.104] n=30": median, p10-p90 spread and count. */
void compare_print_arm(FILE *f, const struct compare_arm *a)
{
	char m[32], lo[32], hi[32];
	if (!a->n) {
		fputs("n/a", f);
		return;
	}
	fprintf(f, "%s [%s, %s] n=%d", md_us(a->median_ns, m, sizeof m), md_us(a->p10_ns, lo, sizeof lo),
		md_us(a->p90_ns, hi, sizeof hi), a->n);
}

static void print_ratio(FILE *f, const struct stats_interval *r)
{
	if (isnan(r->point))
		fputs("n/a", f);
	else
		fprintf(f, "%.4f [%.4f, %.4f]", r->point, r->low, r->high);
}

static void print_md5(FILE *f, const struct compare_case *c)
{
	if (!c->md5_compared)
		fputs("n/a", f);
	else if (!c->md5_differ)
		fprintf(f, "yes (%d outputs)", c->md5_compared);
	else
		fprintf(f, "**no** (%d of %d differ)", c->md5_differ, c->md5_compared);
}

/* " (+1.56%, within the 15.00% threshold)": why a significant change was
 * not called. */
static void print_held(FILE *f, const struct compare_case *c, const struct compare_floors *fl)
{
	char pct[32], us[32], floor_us[32];
	fprintf(f, " (%s, ", md_pct(c->ratio.point - 1, pct, sizeof pct));
	switch (c->held) {
	case COMPARE_HELD_THRESHOLD:
		fprintf(f, "within the %.2f%% threshold)", fl->threshold * 100);
		break;
	case COMPARE_HELD_DRIFT:
		fprintf(f, "within the A arm's drift of %.2f%%)", c->noise_floor * 100);
		break;
	default:
		fprintf(f, "%s us, within the absolute floor of %s us)", md_us(c->change_ns, us, sizeof us),
			md_us(fl->min_ns, floor_us, sizeof floor_us));
	}
}

static void print_row(FILE *f, const struct compare_case *c, const struct compare_floors *fl)
{
	char p[32], pct[32];
	fputs("| ", f);
	md_code(f, c->name);
	fputs(" | ", f);
	compare_print_arm(f, &c->a);
	fputs(" | ", f);
	compare_print_arm(f, &c->b);
	fputs(" | ", f);
	print_ratio(f, &c->ratio);
	fprintf(f, " | %s | %s", md_p(c->p_value, p, sizeof p), compare_verdict_str(c->verdict));
	if (c->verdict == COMPARE_FASTER || c->verdict == COMPARE_SLOWER)
		fprintf(f, " (%s)", md_pct(c->ratio.point - 1, pct, sizeof pct));
	if (c->verdict == COMPARE_WITHIN_FLOORS)
		print_held(f, c, fl);
	fputs(" | ", f);
	print_md5(f, c);
	fputs(" |\n", f);
}

static void print_run_line(FILE *f, const char *which, const struct results_run *r, const char *db)
{
	fprintf(f, "- %s: run %lld", which, (long long)r->id);
	if (db[0]) {
		fputs(" of ", f);
		md_code(f, db);
	}
	if (r->label[0]) {
		fputs(" label ", f);
		md_code(f, r->label);
	}
	fputs(", commit ", f);
	md_code(f, r->git_commit[0] ? r->git_commit : "unknown");
	fputs(", device ", f);
	md_cell(f, r->device.name);
	fputs(", B arm ", f);
	md_code(f, r->arm_b);
	fprintf(f, ", started %s\n", r->started_at);
}

enum ab_rc compare_print(FILE *f, const struct results_run *a, const struct results_run *b, const struct compare_result *r,
		     struct ab_diag *d)
{
	static const char *const cols[] = { "case", "first: B median [p10, p90] us", "second: B median [p10, p90] us",
					    "ratio second/first [95% CI]", "p", "verdict", "md5 equal" };
	fprintf(f, "## compare: run %lld vs run %lld, scenario ", (long long)a->id, (long long)b->id);
	md_code(f, a->scenario_name);
	fputs("\n\n", f);
	print_run_line(f, "first", a, r->db_a);
	print_run_line(f, "second", b, r->db_b);
	fprintf(f, "\nThe B arm of each case in both runs, all B slots pooled. Ratio of the medians with its %.0f%% "
		   "bootstrap interval (%d resamples); p from a two-sided Mann-Whitney U test; a difference is "
		   "called when p < %g", COMPARE_CI_LEVEL * 100, COMPARE_RESAMPLES, COMPARE_ALPHA);
	if (r->floored) {
		char us[32];
		fprintf(f, " and the change clears the gate's floors: beyond %.2f%% (", r->floors.threshold * 100);
		md_cell(f, r->floors.threshold_source);
		fputs(") and the noise floor (the larger A-arm drift |A_k - A1| / A1 of the two runs), and in time "
		      "beyond the absolute floor of ", f);
		fprintf(f, "%s us (", md_us(r->floors.min_ns, us, sizeof us));
		md_cell(f, r->floors.min_source);
		fputc(')', f);
	}
	fputs(". md5 compares every output of every slot present in both runs.\n\n", f);
	md_table_head(f, 7, cols, "lrrrrlc");
	for (int i = 0; i < r->n_cases; i++)
		print_row(f, &r->cases[i], &r->floors);
	if (strcmp(a->device.name, b->device.name))
		fputs("\nThe runs were measured on different devices: the ratios mix build and hardware.\n", f);
	if (ferror(f))
		return ab_fail(d, AB_ERR_IO, "cannot write the comparison");
	return AB_OK;
}
