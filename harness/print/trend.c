/*
 * trend.c - the history's text table and trend charts.
 */
#include "print/trend.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"
#include "print/md.h"
#include "print/plot.h"

/* The figure of a point, or of a level, in the metric's format. */
static char *figure_of(const struct history *h, double point, double low, double high, bool with_ci, char *buf,
		       size_t len)
{
	char p[32], lo[32], hi[32];
	if (h->metric == HISTORY_SPEEDUP) {
		snprintf(p, sizeof p, "%.3fx", point);
		snprintf(lo, sizeof lo, "%.3f", low);
		snprintf(hi, sizeof hi, "%.3f", high);
	} else if (h->metric == HISTORY_GBPS) {
		snprintf(p, sizeof p, "%.1f GB/s", point);
		snprintf(lo, sizeof lo, "%.1f", low);
		snprintf(hi, sizeof hi, "%.1f", high);
	} else {
		struct md_unit u = md_time_unit(point);
		snprintf(p, sizeof p, "%s %s", md_time_in(point, &u, lo, sizeof lo), u.name);
		md_time_in(low, &u, lo, sizeof lo);
		md_time_in(high, &u, hi, sizeof hi);
	}
	if (!with_ci)
		snprintf(buf, len, "%s", p);
	else if (isnan(low) || isnan(high))
		snprintf(buf, len, "%s [n/a]", p);
	else
		snprintf(buf, len, "%s [%s, %s]", p, lo, hi);
	return buf;
}

char *trend_figure(const struct history *h, const struct history_point *p, char *buf, size_t len)
{
	return figure_of(h, p->v.point, p->v.low, p->v.high, true, buf, len);
}

static const char *metric_words(const struct history *h)
{
	if (h->metric == HISTORY_GBPS)
		return "fused (B) bandwidth, bytes / median";
	return h->metric == HISTORY_SPEEDUP ? "speedup median(A) / median(B)" : "fused (B) median";
}

void trend_step_text(const struct history *h, const struct history_series *s, int k, char *buf, size_t len)
{
	const struct steps_segment *a = &s->steps.segments[k - 1], *b = &s->steps.segments[k];
	const struct history_point *p = &s->points[b->start];
	char pct[32], from[48], to[48];
	snprintf(buf, len, "%s at run %lld (commit %s, %.10s%s%s): %s -> %s", md_pct(steps_change(&s->steps, k), pct, sizeof pct),
		 (long long)p->run_id, p->commit[0] ? p->commit : "unknown", p->started_at, p->label[0] ? ", label " : "",
		 p->label, figure_of(h, a->level, NAN, NAN, false, from, sizeof from),
		 figure_of(h, b->level, NAN, NAN, false, to, sizeof to));
}

/* The step starting at point i, or 0. */
static int step_at(const struct history_series *s, int i)
{
	for (int k = 1; k < s->steps.n_segments; k++)
		if (s->steps.segments[k].start == i)
			return k;
	return 0;
}

static bool is_outlier(const struct history_series *s, int i)
{
	for (int k = 0; k < s->steps.n_outliers; k++)
		if (s->steps.outliers[k] == i)
			return true;
	return false;
}

/* Appends ", TEXT" (or TEXT when buf is empty) to buf. */
static void note_add(char *buf, size_t len, const char *text)
{
	size_t used = strlen(buf);
	/* a note cut at the end of buf is still a note: the length is not checked */
	if (snprintf(buf + used, len - used, "%s%s", used ? ", " : "", text) < 0)
		buf[used] = '\0';
}

static void point_notes(const struct history_series *s, int i, char *buf, size_t len)
{
	const struct history_point *p = &s->points[i];
	char pct[32], text[160];
	int k = step_at(s, i);
	buf[0] = '\0';
	if (k) {
		snprintf(text, sizeof text, "<- step %s", md_pct(steps_change(&s->steps, k), pct, sizeof pct));
		note_add(buf, len, text);
	}
	if (is_outlier(s, i))
		note_add(buf, len, "outlier");
	if (p->baseline[0]) {
		snprintf(text, sizeof text, "baseline '%.64s'", p->baseline);
		note_add(buf, len, text);
	}
	if (p->quick)
		note_add(buf, len, "quick");
	if (p->partial)
		note_add(buf, len, "partial");
}

static void print_series(FILE *f, const struct history *h, const struct history_series *s)
{
	char fig[96], notes[160], text[400];
	fprintf(f, "%s / %s / %s (%s): %s, %d run%s\n", s->scenario, s->device, s->case_name, s->shape, metric_words(h),
		s->n, s->n == 1 ? "" : "s");
	fprintf(f, "  %-6s %-20s  %-18s %-24s %-28s %6s  %s\n", "run", "started (UTC)", "commit", "label",
		h->metric == HISTORY_SPEEDUP ? "speedup [95% interval]"
		: h->metric == HISTORY_GBPS ? "GB/s [95% interval]"
					    : "median [95% interval]",
		"n", "notes");
	for (int i = 0; i < s->n; i++) {
		const struct history_point *p = &s->points[i];
		point_notes(s, i, notes, sizeof notes);
		fprintf(f, "  %-6lld %-20s  %-18s %-24s %-28s %6d  %s\n", (long long)p->run_id, p->started_at,
			p->commit[0] ? p->commit : "-", p->label[0] ? p->label : "-", trend_figure(h, p, fig, sizeof fig),
			p->n, notes);
	}
	if (s->steps.n_segments <= 1)
		fprintf(f, "  steps: none beyond %.2f%% (noise %.2f%%)\n", h->min_step * 100, s->steps.sigma * 100);
	for (int k = 1; k < s->steps.n_segments; k++) {
		trend_step_text(h, s, k, text, sizeof text);
		fprintf(f, "  step: %s\n", text);
	}
	fputc('\n', f);
}

enum ab_rc trend_print_table(FILE *f, const struct history *h, struct ab_diag *d)
{
	fprintf(f, "# %s per run; steps by penalized L1 segmentation (asv-style), smallest step named %.2f%%\n\n",
		metric_words(h), h->min_step * 100);
	for (int i = 0; i < h->n_series; i++)
		print_series(f, h, &h->series[i]);
	if (ferror(f))
		return ab_fail(d, AB_ERR_IO, "cannot write the history");
	return AB_OK;
}

/* ------------------------------------------------------------------ */
/* charts                                                              */

/* "trend-smoke-CPU_fake_timer-ln_modulate": letters, digits, '-', '_'
 * and '.' kept, the rest '_'; "-N" appended when an earlier one is equal. */
static void make_stem(const struct history_series *s, int i, char (*stems)[TREND_STEM_MAX])
{
	char raw[TREND_STEM_MAX];
	snprintf(raw, sizeof raw, "trend-%.40s-%.40s-%.60s", s->scenario, s->device, s->case_name);
	for (char *c = raw; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			  *c == '-' || *c == '_' || *c == '.';
		*c = ok ? *c : '_';
	}
	snprintf(stems[i], TREND_STEM_MAX, "%s", raw);
	for (int j = 0; j < i; j++)
		if (!strcmp(stems[j], stems[i])) {
			snprintf(stems[i], TREND_STEM_MAX, "%.140s-%d", raw, i + 1);
			break;
		}
}

/* The arrays of one series' chart. */
struct trend_arrays {
	const char **commits, **dates;
	char (*buf)[2][24];
	double *value, *low, *high, *level;
	int *step_at;
	const char **step_text;
	char (*text)[96];
};

static void arrays_free(struct trend_arrays *a)
{
	free(a->commits);
	free(a->dates);
	free(a->buf);
	free(a->value);
	free(a->low);
	free(a->high);
	free(a->level);
	free(a->step_at);
	free(a->step_text);
	free(a->text);
}

static bool arrays_alloc(struct trend_arrays *a, int n, int n_steps)
{
	size_t m = (size_t)n + 1, k = (size_t)n_steps + 1;
	a->commits = calloc(m, sizeof *a->commits);
	a->dates = calloc(m, sizeof *a->dates);
	a->buf = calloc(m, sizeof *a->buf);
	a->value = calloc(m, sizeof *a->value);
	a->low = calloc(m, sizeof *a->low);
	a->high = calloc(m, sizeof *a->high);
	a->level = calloc(m, sizeof *a->level);
	a->step_at = calloc(k, sizeof *a->step_at);
	a->step_text = calloc(k, sizeof *a->step_text);
	a->text = calloc(k, sizeof *a->text);
	return a->commits && a->dates && a->buf && a->value && a->low && a->high && a->level && a->step_at &&
	       a->step_text && a->text;
}

/* Ticks: every k-th point (and the last) shows its commit and date, so
 * that at most about 16 labels share the axis. */
static void fill_ticks(const struct history_series *s, struct trend_arrays *a)
{
	int every = s->n > 16 ? (s->n + 15) / 16 : 1;
	for (int i = 0; i < s->n; i++) {
		bool show = i % every == 0 || i == s->n - 1;
		snprintf(a->buf[i][0], sizeof a->buf[i][0], "%.9s", show ? s->points[i].commit : "");
		snprintf(a->buf[i][1], sizeof a->buf[i][1], "%.10s", show ? s->points[i].started_at : "");
		a->commits[i] = a->buf[i][0];
		a->dates[i] = a->buf[i][1];
	}
}

/* Values in the chart's unit: us for times, x for speedups. */
static void fill_values(const struct history *h, const struct history_series *s, struct trend_arrays *a)
{
	double scale = h->metric == HISTORY_MEDIAN ? 1e3 : 1; /* ns -> us; x and GB/s as they are */
	for (int k = 0; k < s->steps.n_segments; k++)
		for (int i = s->steps.segments[k].start; i < s->steps.segments[k].end; i++)
			a->level[i] = s->steps.segments[k].level / scale;
	for (int i = 0; i < s->n; i++) {
		a->value[i] = s->points[i].v.point / scale;
		a->low[i] = s->points[i].v.low / scale;
		a->high[i] = s->points[i].v.high / scale;
	}
	for (int k = 1; k < s->steps.n_segments; k++) {
		char pct[32];
		const struct history_point *p = &s->points[s->steps.segments[k].start];
		a->step_at[k - 1] = s->steps.segments[k].start;
		snprintf(a->text[k - 1], sizeof a->text[k - 1], "step %s: run %lld, %.9s",
			 md_pct(steps_change(&s->steps, k), pct, sizeof pct), (long long)p->run_id, p->commit);
		a->step_text[k - 1] = a->text[k - 1];
	}
}

/* At least +-TREND_MIN_SPAN around the series' median, and everything
 * drawn: a flat series stays flat on the chart instead of its last-digit
 * noise filling the height (the step detector's min_step is the scale
 * that matters). */
#define TREND_MIN_SPAN 0.10

static void y_range(const struct history_series *s, const struct trend_arrays *a, double *lo, double *hi)
{
	double c = stats_median(a->value, s->n);
	*lo = c * (1 - TREND_MIN_SPAN);
	*hi = c * (1 + TREND_MIN_SPAN);
	for (int i = 0; i < s->n; i++) {
		*lo = fmin(*lo, isnan(a->low[i]) ? a->value[i] : fmin(a->low[i], a->value[i]));
		*hi = fmax(*hi, isnan(a->high[i]) ? a->value[i] : fmax(a->high[i], a->value[i]));
	}
	double pad = (*hi - *lo) * 0.12;
	*lo = fmax(0, *lo - pad * 1.5);
	*hi += pad * 3; /* a strip above the data for the step and baseline labels */
}

static int baseline_index(const struct history_series *s, const char **name)
{
	for (int i = s->n - 1; i >= 0; i--)
		if (s->points[i].baseline[0]) {
			*name = s->points[i].baseline;
			return i;
		}
	return -1;
}

static enum ab_rc write_chart(const char *dir, const struct history *h, const struct history_series *s,
			      const char *stem, struct ab_diag *d)
{
	struct trend_arrays a = { 0 };
	char title[300], bname[96];
	const char *base = "";
	enum ab_rc rc = AB_OK;
	if (!arrays_alloc(&a, s->n, s->steps.n_segments))
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the chart of '%s'", s->case_name);
	if (!rc) {
		fill_ticks(s, &a);
		fill_values(h, s, &a);
		int bi = baseline_index(s, &base);
		snprintf(bname, sizeof bname, "baseline '%s'", base);
		snprintf(title, sizeof title, "%.64s (%.40s), %.40s on %.80s: %s per run", s->case_name, s->shape, s->scenario,
			 s->device, metric_words(h));
		bool sp = h->metric == HISTORY_SPEEDUP, bw = h->metric == HISTORY_GBPS;
		struct plot_trend p = { title, sp ? "speedup (x)" : bw ? "fused bandwidth (GB/s)" : "time (us)",
					sp ? "speedup of the run" : bw ? "GB/s of the run" : "median of the run",
					s->n, a.commits, a.dates, a.value, a.low, a.high, a.level, bi, bname,
					s->steps.n_segments - 1, a.step_at, a.step_text, false, NAN, NAN };
		y_range(s, &a, &p.y_min, &p.y_max);
		rc = plot_write_trend(dir, stem, &p, d);
	}
	arrays_free(&a);
	return rc;
}

static void note(struct trend_outcome *o, const char *msg)
{
	if (!o->note[0])
		md_scrub_paths(msg, o->note, sizeof o->note);
}

enum ab_rc trend_write_charts(const char *dir, const struct history *h, bool no_plots, struct trend_outcome *out,
			      struct ab_diag *d)
{
	char gnuplot[PATH_MAX], why[256] = "charts turned off";
	memset(out, 0, sizeof *out);
	out->n_series = h->n_series;
	out->stem = calloc((size_t)h->n_series + 1, sizeof *out->stem);
	out->drawn = calloc((size_t)h->n_series + 1, sizeof *out->drawn);
	if (!out->stem || !out->drawn)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the history's charts");
	enum ab_rc rc = md_mkdirs(dir, d);
	bool have = !no_plots && plot_find_gnuplot(gnuplot, sizeof gnuplot, why, sizeof why);
	if (!have) {
		out->skipped = true;
		note(out, why);
	}
	for (int i = 0; !rc && i < h->n_series; i++) {
		struct ab_diag pd = { "" };
		make_stem(&h->series[i], i, out->stem);
		rc = write_chart(dir, h, &h->series[i], out->stem[i], d);
		if (rc || !have)
			continue;
		if (plot_render(gnuplot, dir, out->stem[i], &pd)) {
			out->n_failed++;
			note(out, pd.msg);
		} else {
			out->drawn[i] = true;
			out->n_drawn++;
		}
	}
	return rc;
}

void trend_outcome_free(struct trend_outcome *o)
{
	free(o->stem);
	free(o->drawn);
	memset(o, 0, sizeof *o);
}
