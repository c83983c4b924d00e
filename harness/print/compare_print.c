/*
 * compare_print.c - the markdown of a two-run comparison. Formats the
 * figures of compare.c and the runs' headers; computes nothing.
 */
#include "print/compare_print.h"

#include <math.h>
#include <string.h>

#include "print/md.h"

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

static void print_row(FILE *f, const struct compare_case *c)
{
	char p[32], pct[32];
	fputs("| ", f);
	md_code(f, c->name);
	fputs(" | ", f);
	md_spread(f, &c->a);
	fputs(" | ", f);
	md_spread(f, &c->b);
	fputs(" | ", f);
	print_ratio(f, &c->ratio);
	fprintf(f, " | %s | %s", md_p(c->p_value, p, sizeof p), compare_verdict_str(c->verdict));
	if (c->verdict == COMPARE_FASTER || c->verdict == COMPARE_SLOWER)
		fprintf(f, " (%s)", md_pct(c->ratio.point - 1, pct, sizeof pct));
	fputs(" | ", f);
	print_md5(f, c);
	fputs(" |\n", f);
}

static void print_run_line(FILE *f, const char *which, const struct results_run *r)
{
	fprintf(f, "- %s: run %lld", which, (long long)r->id);
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

enum ab_rc compare_print_table(FILE *f, const struct summary_run *sa, const struct summary_run *sb,
			       const struct compare_result *r, struct ab_diag *d)
{
	static const char *const cols[] = { "case", "first: B median [p10, p90] us", "second: B median [p10, p90] us",
					    "ratio second/first [95% CI]", "p", "verdict", "md5 equal" };
	const struct results_run *a = sa->run, *b = sb->run;
	fprintf(f, "## compare: run %lld vs run %lld, scenario ", (long long)a->id, (long long)b->id);
	md_code(f, a->scenario_name);
	fputs("\n\n", f);
	print_run_line(f, "first", a);
	print_run_line(f, "second", b);
	fprintf(f, "\nThe B arm of each case in both runs, all B slots pooled. Ratio of the medians with its %.0f%% "
		   "bootstrap interval (%d resamples); p from a two-sided Mann-Whitney U test; a difference is "
		   "called when p < %g. md5 compares every output of every slot present in both runs.\n\n",
		SUMMARY_CI_LEVEL * 100, SUMMARY_RESAMPLES, COMPARE_ALPHA);
	md_table_head(f, 7, cols, "lrrrrlc");
	for (int i = 0; i < r->n_cases; i++)
		print_row(f, &r->cases[i]);
	if (strcmp(a->device.name, b->device.name))
		fputs("\nThe runs were measured on different devices: the ratios mix build and hardware.\n", f);
	if (ferror(f))
		return ab_fail(d, AB_ERR_IO, "cannot write the comparison");
	return AB_OK;
}
