/*
 * gate_print.c - the markdown of two runs compared (compare) and of the
 * gate's verdict, which judges compare's case pairs: the runs, the rule in
 * words, a row per case with why a change was or was not called, the
 * gate's tally. Formats compare.c's and gate.c's figures; judges nothing.
 */
#include "print/printer.h"

#include <math.h>
#include <string.h>

#include "analysis/blockboot.h"
#include "print/md.h"

/* The gate's times are microseconds at 3 decimals whatever their size
 * ("%.3f" of ns / 1e3): one unit for a column, so that its rows compare. */
static const struct md_unit in_us = { "us", 1e3, 3 };

/* A p-value cell: "0.123", below 0.01 "6.8e-03" (a block bootstrap's p is
 * at least 2 / 2001: never 0), "n/a" for NAN. */
static const char *p_text(double p, char *buf, size_t len)
{
	snprintf(buf, len, p < 0.01 ? "%.1e" : "%.3f", p);
	return isnan(p) ? "n/a" : buf;
}

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

static void print_compare_row(FILE *f, const struct compare_case *c, const struct compare_floors *fl)
{
	char ratio[100], p[32], pct[32], md5[64];
	fputs("| ", f);
	md_case_name(f, c->name, c->own_arms, c->arm_a, c->arm_b);
	fputs(" | ", f);
	md_spread_time(f, &c->a);
	fputs(" | ", f);
	md_spread_time(f, &c->b);
	snprintf(ratio, sizeof ratio, "%.4f [%.4f, %.4f]", c->ratio.point, c->ratio.low, c->ratio.high);
	fprintf(f, " | %s | %s | %s", isnan(c->ratio.point) ? "n/a" : ratio, p_text(c->p_value, p, sizeof p),
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

enum ab_rc compare_print_table(const struct printer_job *job, struct ab_diag *d)
{
	static const char *const cols[] = { "case", "first: B median [p10, p90]", "second: B median [p10, p90]",
					    "ratio second/first [95% CI]", "p (block bootstrap)", "verdict",
					    "md5 equal" };
	FILE *f = job->f;
	const struct compare_result *r = job->compare;
	const struct compare_floors *fl = &r->floors;
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
	if (r->floored) /* the gate's floors a difference must clear */
		md_printf(f, " and the change clears the gate's floors: beyond %.2f%% (%s) and the noise floor (the "
			     "larger A-arm drift |A_k - A1| / A1 of the two runs), and in time beyond the absolute "
			     "floor of %.3f us (%s)",
			  fl->threshold * 100, fl->threshold_source, fl->min_ns / 1e3, fl->min_source);
	fputs(". md5 compares every output of every slot present in both runs.\n\n", f);
	md_table_head(f, 7, cols, "lrrrrlc");
	for (int i = 0; i < r->n_cases; i++)
		print_compare_row(f, &r->cases[i], fl);
	print_bandwidth_table(f, r);
	if (strcmp(a->device.name, b->device.name))
		fputs("\nThe runs were measured on different devices: the ratios mix build and hardware.\n", f);
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the comparison") : AB_OK;
}

/* ratio - 1, with the last-bit residue of dividing two equal ratios
 * (an ulp under 1) taken as 0, so that it prints +0.00%, not -0.00%. */
static double change_of(double ratio)
{
	double c = ratio - 1;
	return fabs(c) < 1e-12 ? 0 : c;
}

/* "+7.67% [+4.42%, +11.97%]": a ratio - 1 with its interval; "n/a" for NAN.
 * The cells' texts below write into buf, or return a constant. */
static const char *change_text(const struct stats_interval *ratio, char *buf, size_t len)
{
	char c[32], lo[32], hi[32];
	if (isnan(ratio->point))
		return "n/a";
	snprintf(buf, len, "%s [%s, %s]", md_pct(change_of(ratio->point), c, sizeof c),
		 md_pct(change_of(ratio->low), lo, sizeof lo), md_pct(change_of(ratio->high), hi, sizeof hi));
	return buf;
}

/* The normalised change, or why there is none. */
static const char *norm_change_text(const struct gate_case *g, char *buf, size_t len)
{
	if (g->basis == GATE_NORMALISED)
		return change_text(&g->norm_ratio, buf, len);
	return g->basis == GATE_RAW_VARIANT ? "n/a (A arm differs)" : "n/a (no A samples)";
}

static bool compared(const struct gate_case *g)
{
	return g->verdict != GATE_MISSING && g->verdict != GATE_NEW && g->verdict != GATE_NOT_MEASURED;
}

static const char *floor_text(const struct gate_case *g, char *buf, size_t len)
{
	bool known = compared(g) && (!isnan(g->drift_base) || !isnan(g->drift_run));
	return known ? md_share(g->noise_floor, buf, len) : "n/a";
}

/* The judged change in us of the baseline's B, signed: "+0.295"; under
 * half a ns (the residue of equal ratios) it prints 0.000, not -0.000. */
static const char *abs_change_text(const struct gate_case *g, char *buf, size_t len)
{
	double ns = fabs(g->abs_change_ns) < 0.5 ? 0 : g->abs_change_ns;
	if (!compared(g) || isnan(ns))
		return "n/a";
	snprintf(buf, len, "%s%.3f", ns > 0 ? "+" : "", ns / 1e3);
	return buf;
}

static void print_exact(FILE *f, const struct gate_case *g)
{
	if ((g->verdict == GATE_MISSING || g->verdict == GATE_NOT_MEASURED) && !g->cmp.b.n && !g->lost_exact)
		fputs("n/a", f);
	else if (g->lost_exact)
		md_printf(f, "**no**: %s", g->exact_note);
	else
		fputs(g->run_exact ? "yes" : "no (as in the baseline)", f);
}

/* " (slower beyond the threshold, WHY": why a slowdown beyond the threshold
 * still passed (print_verdict closes the parenthesis). */
static void print_pass_reason(FILE *f, const struct gate_case *g, double min_ns)
{
	char abs[32];
	fputs(" (slower beyond the threshold, ", f);
	if (!(g->p_value < COMPARE_ALPHA))
		fputs(g->underpowered ? "too few samples to call it" : "not significant", f);
	else if (!(g->change > g->noise_floor))
		fprintf(f, "within the A arm's drift of %.2f%%", g->noise_floor * 100);
	else if (!(g->abs_change_ns > min_ns))
		fprintf(f, "by %s us, within the absolute floor of %.3f us",
			md_time_in(g->abs_change_ns, &in_us, abs, sizeof abs), min_ns / 1e3);
	else
		fputs("against the A arm only, not in raw B time", f);
}

/* The verdict, then what it needs said: " (REASON)" after a verdict that
 * did not fail (why a slowdown beyond the threshold was not called, why
 * the case is inconclusive), a fallback to raw B times, and the A arm
 * moving between the runs beyond the threshold while B's raw or judged
 * change is beyond it too (the machine, not the kernel, may be what moved;
 * only said where A is the same kernel in both runs). */
static void print_verdict(FILE *f, const struct gate_case *g, const struct gate_result *r)
{
	char pct[32];
	double thr = r->max_regression_pct / 100;
	bool fail = g->verdict == GATE_REGRESSED || g->verdict == GATE_LOST_EXACT || g->verdict == GATE_MISSING;
	bool slower = (g->verdict == GATE_PASS || g->verdict == GATE_INCONCLUSIVE) && g->change > thr;
	bool few = g->verdict == GATE_INCONCLUSIVE;
	const char *mark = fail ? "**" : "";
	fprintf(f, "%s%s%s", mark, gate_verdict_str(g->verdict), mark);
	if (!compared(g))
		return;
	if (g->verdict == GATE_LOST_EXACT && g->time_regressed)
		fputs(", also regressed", f);
	if (slower)
		print_pass_reason(f, g, r->min_change_ns);
	if (few)
		md_printf(f, "%stoo few samples: %s has %d, the gate needs %d a slot", slower ? "; " : " (",
			  g->fewest_slot, g->fewest, r->min_samples);
	if (slower || few)
		fputs(")", f);
	if (g->basis == GATE_RAW_NO_A)
		fputs("; judged on raw B times: no A samples to normalise by", f);
	else if (g->basis != GATE_NORMALISED)
		md_printf(f, "; judged on raw B times: the A arm is `%s` in the baseline, `%s` in the run",
			  g->a_variant_base[0] ? g->a_variant_base : "(mixed)",
			  g->a_variant_run[0] ? g->a_variant_run : "(mixed)");
	if (g->a_moved && (fabs(g->raw_change) > thr || fabs(g->change) > thr))
		fprintf(f, "; the A arm moved %s%s: the machine may have changed", md_pct(g->a_change, pct, sizeof pct),
			g->a_change * g->raw_change > 0 ? " too" : "");
}

/* An arm's time as "38.500 [37.912, 39.104] n=30" (us): median, p10-p90
 * and count, or "n/a" without samples. */
static void print_spread(FILE *f, const struct summary_spread *s)
{
	char m[32], lo[32], hi[32];
	if (!s->n)
		fputs("n/a", f);
	else
		fprintf(f, "%s [%s, %s] n=%d", md_time_in(s->median_ns, &in_us, m, sizeof m),
			md_time_in(s->p10_ns, &in_us, lo, sizeof lo), md_time_in(s->p90_ns, &in_us, hi, sizeof hi),
			s->n);
}

static void print_row(FILE *f, const struct gate_case *g, const struct gate_result *r)
{
	char raw[100], norm[100], floor[32], abs[32], p[32];
	fputs("| ", f);
	md_case_name(f, g->name, g->cmp.own_arms, g->cmp.arm_a, g->cmp.arm_b);
	fputs(" | ", f);
	print_spread(f, &g->cmp.a);
	fputs(" | ", f);
	print_spread(f, &g->cmp.b);
	fprintf(f, " | %s | %s | %s | %s | %s | ", change_text(&g->cmp.ratio, raw, sizeof raw),
		norm_change_text(g, norm, sizeof norm), floor_text(g, floor, sizeof floor),
		abs_change_text(g, abs, sizeof abs), p_text(g->p_value, p, sizeof p));
	print_exact(f, g);
	fputs(" | ", f);
	print_verdict(f, g, r);
	fputs(" |\n", f);
}

/* ", A arm `eager`", with the baseline's when it differs. */
static void print_arm_name(FILE *f, const char *which, const char *run, const char *base)
{
	md_printf(f, ", %s arm `%s`", which, run[0] ? run : "per case");
	if (strcmp(run, base))
		md_printf(f, " (baseline: `%s`)", base);
}

/* What keeps the gate from passing, said before the table: a partial run
 * with the baseline's cases it did not measure, too few samples. */
static void print_evidence(FILE *f, const struct results_run *base, const struct results_run *run,
			   const struct gate_result *r)
{
	if (r->run_only[0]) {
		char only[300];
		snprintf(only, sizeof only, "run --only %s", r->run_only);
		md_printf(f, "Run %lld is **partial** (`%s`)", (long long)run->id, only);
		if (r->n_not_measured) {
			fprintf(f, ": it lacks %d of the baseline's cases (", r->n_not_measured);
			for (int i = 0, k = 0; i < r->n_cases; i++)
				if (r->cases[i].verdict == GATE_NOT_MEASURED)
					md_printf(f, "%s`%s`", k++ ? ", " : "", r->cases[i].name);
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
	fprintf(f, "## gate: %s: run %lld", gate_overall_str(gate_overall(r)), (long long)run->id);
	if (run->label[0])
		md_printf(f, " `%s`", run->label);
	if (o->baseline_name)
		md_printf(f, " against baseline `%s` (run %lld)\n\n", o->baseline_name, (long long)base->id);
	else
		fprintf(f, " against baseline run %lld\n\n", (long long)base->id);
	md_printf(f, "Scenario `%s`, device %s", run->scenario_name, run->device.name);
	print_arm_name(f, "A", run->arm_a, base->arm_a);
	print_arm_name(f, "B", run->arm_b, base->arm_b);
	fputs(".\n\n", f);
}

static void print_rule(FILE *f, const struct gate_options *o, const struct gate_result *r)
{
	md_printf(f, "Each case's B arm is judged against its own run's A arm, measured in the same bracket under the "
		   "same machine state: r = median(B) / median(A) (A slots pooled) in each run, B/A change = "
		   "r(run) / r(baseline) - 1 with its %.0f%% interval and a two-sided p from a block bootstrap "
		   "that resamples blocks of consecutive samples of both arms of both runs (%d resamples; "
		   "consecutive samples are not independent, so single samples are not the units; p is at "
		   "least 0.001 and at least what the number of blocks allows). That p says whether the two "
		   "runs differ beyond the sampling noise within each run, not whether the builds differ: the "
		   "variation between runs is what the threshold and the floors carry. A case fails when its "
		   "B/A change exceeds %.2f%% (%s) and the noise floor, and that change in time, B/A change x "
		   "median(B, baseline), exceeds the absolute floor of %.3f us (%s), with p < %g (and, when "
		   "the A arm itself moved between the runs by more than %.2f%% (%s: the device's own bar, "
		   "whatever the threshold, so that a case failing at a threshold fails at every smaller one), "
		   "the raw B change does too), when it lost bit-exactness, or when it is missing from the "
		   "run. The noise floor is the larger A-slot drift, max |A_k - A1| / A1, of the two runs: how "
		   "far the machine moved within a bracket; the absolute floor is what the timer cannot "
		   "resolve run to run. Raw B change = median(B, run) / median(B, baseline) - 1; a case whose "
		   "A arm is a different variant in the two runs is judged on it alone (with the "
		   "block-bootstrap p of the raw B samples), as its verdict says. Improvements never fail. A "
		   "case that did not fail but has a slot with fewer than %d samples, in either run, is "
		   "INCONCLUSIVE, not a pass; so is the whole gate when either run was made with --quick or "
		   "the run is partial (run --only) and lacks cases.\n",
		  SUMMARY_CI_LEVEL * 100, BLOCKBOOT_RESAMPLES, r->max_regression_pct,
		  o->threshold_source ? o->threshold_source : "threshold", r->min_change_ns / 1e3,
		  o->min_change_source ? o->min_change_source : "floor", COMPARE_ALPHA, r->machine_moved_pct,
		  o->machine_moved_source ? o->machine_moved_source : "threshold", r->min_samples);
}

static void print_tally(FILE *f, const struct gate_result *r)
{
	fprintf(f, "\n%d case%s checked: %d failed (%d regressed in time, %d lost bit-exactness", r->n_cases,
		r->n_cases == 1 ? "" : "s", r->n_failed, r->n_time_regressed, r->n_lost_exact);
	if (r->n_nondeterministic)
		fprintf(f, " (%d nondeterministic)", r->n_nondeterministic);
	fprintf(f, ", %d missing), %d faster, %d inconclusive, %d not measured.\n", r->n_missing, r->n_faster,
		r->n_inconclusive, r->n_not_measured);
	if (r->n_raw)
		fprintf(f, "%d case%s judged on raw B times: the A arm differs between the runs, so normalising by "
			   "it would compare different kernels.\n", r->n_raw, r->n_raw == 1 ? " was" : "s were");
}

enum ab_rc gate_print_verdict(const struct printer_job *job, struct ab_diag *d)
{
	FILE *f = job->f;
	const struct results_run *base = job->gate->base, *run = job->gate->run;
	const struct gate_options *o = job->gate->o;
	const struct gate_result *r = job->gate->r;
	char abs_col[64];
	snprintf(abs_col, sizeof abs_col, "change in us (floor %.3f)", r->min_change_ns / 1e3);
	const char *const cols[] = { "case", "baseline B median [p10, p90] us", "run B median [p10, p90] us",
				     "raw B change [95% CI]", "B/A change [95% CI]", "noise floor", abs_col,
				     "p (block bootstrap)", "bit-exact", "verdict" };
	print_headline(f, base, run, o, r);
	print_evidence(f, base, run, r);
	md_table_head(f, 10, cols, "lrrrrrrrll");
	for (int i = 0; i < r->n_cases; i++)
		print_row(f, &r->cases[i], r);
	print_tally(f, r);
	fputc('\n', f);
	print_rule(f, o, r);
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the gate's verdict") : AB_OK;
}

enum ab_rc gate_print_failing(const struct printer_job *job, struct ab_diag *d)
{
	const struct gate_result *r = job->gate->r;
	for (int i = 0; i < r->n_cases; i++)
		if (r->cases[i].verdict == GATE_REGRESSED)
			fprintf(job->f, "%s\n", r->cases[i].name);
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the failing cases") : AB_OK;
}
