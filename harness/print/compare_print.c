/*
 * compare_print.c - the markdown of a two-run comparison. Formats the
 * figures of compare.c and the runs' headers; computes nothing.
 */
#include "print/printer.h"

#include <math.h>
#include <string.h>

#include "analysis/blockboot.h"
#include "print/md.h"

/* The md5 cell: whether every output compared is equal. */
static const char *md5_text(const struct compare_case *c, char *buf, size_t len)
{
	if (!c->md5_compared)
		return "n/a";
	if (!c->md5_differ)
		snprintf(buf, len, "yes (%d outputs)", c->md5_compared);
	else
		snprintf(buf, len, "**no** (%d of %d differ)", c->md5_differ, c->md5_compared);
	return buf;
}

/* " (+1.56%, within the 15.00% threshold)": why a significant change was
 * not called. */
static void print_held(FILE *f, const struct compare_case *c, const struct compare_floors *fl)
{
	char pct[32], us[32], floor_us[32];
	fprintf(f, " (%s, ", md_pct(c->ratio.point - 1, pct, sizeof pct));
	if (c->held == COMPARE_HELD_THRESHOLD)
		fprintf(f, "within the %.2f%% threshold)", fl->threshold * 100);
	else if (c->held == COMPARE_HELD_DRIFT)
		fprintf(f, "within the A arm's drift of %.2f%%)", c->noise_floor * 100);
	else
		fprintf(f, "%s%s, within the absolute floor of %s)", c->change_ns > 0 ? "+" : "",
			md_time(c->change_ns, us, sizeof us), md_time(fl->min_ns, floor_us, sizeof floor_us));
}

static void print_row(FILE *f, const struct compare_case *c, const struct compare_floors *fl)
{
	char ratio[100], p[32], pct[32], md5[64];
	fputs("| ", f);
	md_case_name(f, c->name, c->own_arms, c->arm_a, c->arm_b);
	fputs(" | ", f);
	md_spread_time(f, &c->a);
	fputs(" | ", f);
	md_spread_time(f, &c->b);
	snprintf(ratio, sizeof ratio, "%.4f [%.4f, %.4f]", c->ratio.point, c->ratio.low, c->ratio.high);
	fprintf(f, " | %s | %s | %s", isnan(c->ratio.point) ? "n/a" : ratio, md_p(c->p_value, p, sizeof p),
		compare_verdict_str(c->verdict));
	if (c->verdict == COMPARE_FASTER || c->verdict == COMPARE_SLOWER)
		fprintf(f, " (%s)", md_pct(c->ratio.point - 1, pct, sizeof pct));
	if (c->verdict == COMPARE_WITHIN_FLOORS)
		print_held(f, c, fl);
	if (c->drifted_a || c->drifted_b)
		fprintf(f, "; drifted in the %s run (A arm %.2f%%%s): not trusted", c->drifted_a ? "first" : "second",
			100 * (c->drifted_a ? c->drift_a : c->drift_b),
			c->drifted_a && c->drifted_b ? ", and in the second" : "");
	fprintf(f, " | %s |\n", md5_text(c, md5, sizeof md5));
}

/* The B arms' bandwidth, a table of its own below the verdicts: "1234.5 /
 * 1250.1 (29.4% / 29.8%)"; "(cache-resident)" where the case's working set
 * fits a run's cache (its % is not computed: md_bw_pct). */
static void print_bandwidth_table(FILE *f, const struct compare_result *r)
{
	static const char *const cols[] = { "case", "B GB/s first / second (% of copy)" };
	fputs("\nBandwidth: the bytes each run's B arm moves over its median, and their share of that run's device "
	      "copy bandwidth (measured, else the device profile's).\n\n", f);
	md_table_head(f, 2, cols, "lr");
	for (int i = 0; i < r->n_cases; i++) {
		const struct compare_case *c = &r->cases[i];
		md_printf(f, "| `%s` | ", c->name);
		if (isnan(c->bw_a.gbps) || isnan(c->bw_b.gbps))
			fputs("n/a", f);
		else if (!isnan(c->bw_a.pct_copy) && !isnan(c->bw_b.pct_copy))
			fprintf(f, "%.1f / %.1f (%.1f%% / %.1f%%)", c->bw_a.gbps, c->bw_b.gbps, c->bw_a.pct_copy,
				c->bw_b.pct_copy);
		else
			fprintf(f, "%.1f / %.1f%s", c->bw_a.gbps, c->bw_b.gbps,
				c->cache_resident ? " (cache-resident)" : "");
		fputs(" |\n", f);
	}
}

static void print_run_line(FILE *f, const char *which, const struct results_run *r, const char *db)
{
	fprintf(f, "- %s: run %lld", which, (long long)r->id);
	if (db[0])
		md_printf(f, " of `%s`", db);
	if (r->label[0])
		md_printf(f, " label `%s`", r->label);
	md_printf(f, ", commit `%s`, device %s, B arm `%s`, started %s\n", r->git_commit[0] ? r->git_commit : "unknown",
		  r->device.name, r->arm_b[0] ? r->arm_b : "per case", r->started_at);
}

/* The gate's floors a difference must clear, as a clause of the rule. */
static void print_floors(FILE *f, const struct compare_floors *fl)
{
	md_printf(f, " and the change clears the gate's floors: beyond %.2f%% (%s) and the noise floor (the larger "
		     "A-arm drift |A_k - A1| / A1 of the two runs), and in time beyond the absolute floor of %.3f "
		     "us (%s)",
		  fl->threshold * 100, fl->threshold_source, fl->min_ns / 1e3, fl->min_source);
}

enum ab_rc compare_print_table(const struct printer_job *job, struct ab_diag *d)
{
	static const char *const cols[] = { "case", "first: B median [p10, p90]", "second: B median [p10, p90]",
					    "ratio second/first [95% CI]", "p (block bootstrap)", "verdict", "md5 equal" };
	FILE *f = job->f;
	const struct compare_result *r = job->compare;
	const struct results_run *a = job->summary->run, *b = job->second->run;
	md_printf(f, "## compare: run %lld vs run %lld, scenario `%s`\n\n", (long long)a->id, (long long)b->id,
		  a->scenario_name);
	print_run_line(f, "first", a, r->db_a);
	print_run_line(f, "second", b, r->db_b);
	fprintf(f, "\nThe B arm of each case in both runs, all B slots pooled. Ratio of the medians with its %.0f%% "
		   "interval and a two-sided p, both from a block bootstrap (%d resamples of blocks of consecutive "
		   "samples, about the cube root of a slot's count long: consecutive samples are not independent, "
		   "so single samples are not the units; p is at least 0.001 and at least what the number of blocks "
		   "allows). p says whether the two runs differ beyond the sampling noise within each run, not "
		   "whether two builds differ: run-to-run variation is what the floors below carry. A difference "
		   "is called when p < %g", SUMMARY_CI_LEVEL * 100, BLOCKBOOT_RESAMPLES, COMPARE_ALPHA);
	if (r->floored)
		print_floors(f, &r->floors);
	fputs(". md5 compares every output of every slot present in both runs.\n\n", f);
	md_table_head(f, 7, cols, "lrrrrlc");
	for (int i = 0; i < r->n_cases; i++)
		print_row(f, &r->cases[i], &r->floors);
	print_bandwidth_table(f, r);
	if (strcmp(a->device.name, b->device.name))
		fputs("\nThe runs were measured on different devices: the ratios mix build and hardware.\n", f);
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the comparison") : AB_OK;
}
