/*
 * trend.c - the history's text table and trend charts. The figures, the
 * steps and their changes, a series' median and each point relative to it
 * come computed (analysis/history.h); this file formats and arranges them.
 * Strings from the database reach the terminal through escape_t.
 */
#include "print/trend.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "print/escape.h"
#include "print/md.h"
#include "print/plot.h"

/* What each metric is called: in the table's heading and column, on a
 * chart's y axis and in its key; and its unit on a chart, in its own:
 * us for times (ns / 1e3), x and GB/s as they are. */
static const struct metric_names {
	const char *words, *column, *ylabel, *value_name;
	double unit;
} metric_names[] = {
	[HISTORY_MEDIAN] = { "fused (B) median", "median [95% interval]", "time (us)", "median of the run", 1e3 },
	[HISTORY_SPEEDUP] = { "speedup median(A) / median(B)", "speedup [95% interval]", "speedup (x)",
			      "speedup of the run", 1 },
	[HISTORY_GBPS] = { "fused (B) bandwidth, bytes / median", "GB/s [95% interval]", "fused bandwidth (GB/s)",
			   "GB/s of the run", 1 },
};

/* The figure of a point, or of a level, in the metric's format. */
static char *figure_of(const struct history *h, double point, double low, double high, bool with_ci, char *buf,
		       size_t len)
{
	char p[32], lo[32], hi[32];
	if (h->metric == HISTORY_MEDIAN) {
		struct md_unit u = md_time_unit(point);
		snprintf(p, sizeof p, "%s %s", md_time_in(point, &u, lo, sizeof lo), u.name);
		md_time_in(low, &u, lo, sizeof lo);
		md_time_in(high, &u, hi, sizeof hi);
	} else {
		bool sp = h->metric == HISTORY_SPEEDUP;
		snprintf(p, sizeof p, sp ? "%.3fx" : "%.1f GB/s", point);
		snprintf(lo, sizeof lo, sp ? "%.3f" : "%.1f", low);
		snprintf(hi, sizeof hi, sp ? "%.3f" : "%.1f", high);
	}
	if (!with_ci)
		snprintf(buf, len, "%s", p);
	else if (isnan(low) || isnan(high))
		snprintf(buf, len, "%s [n/a]", p);
	else
		snprintf(buf, len, "%s [%s, %s]", p, lo, hi);
	return buf;
}

char *trend_level(const struct history *h, double level, char *buf, size_t len)
{
	return figure_of(h, level, NAN, NAN, false, buf, len);
}

/* "4.06 us [4.05, 4.07]" or "3.993x [n/a]": a point's figure. */
static char *point_figure(const struct history *h, const struct history_point *p, char *buf, size_t len)
{
	return figure_of(h, p->v.point, p->v.low, p->v.high, true, buf, len);
}

const char *trend_step_kind_words(const struct history *h, const struct history_series *s, int k, char *buf,
				  size_t len)
{
	const char *changed;
	enum history_step_kind kind = history_step_kind(h, s, k, &changed); /* changed "" when noise */
	snprintf(buf, len, "%s%s%s%s", kind == HISTORY_STEP_SAME_COMMIT ? "same commit: noise"
		 : kind == HISTORY_STEP_IMPROVEMENT ? "an improvement" : "a regression",
		 changed[0] ? " (same commit, " : "", changed, changed[0] ? " changed)" : "");
	return buf;
}

/* A point's notes, ", " between them: the step starting there, an
 * outlier, the baseline naming its run, a quick or partial run. */
static void point_notes(const struct history *h, const struct history_series *s, int i, char *buf, size_t len)
{
	const struct history_point *p = &s->points[i];
	char pct[32], step[160] = "", base[160] = "";
	bool outlier = false;
	int k = 1; /* the step starting at i, if any */
	while (k < s->steps.n_segments && s->steps.segments[k].start != i)
		k++;
	if (k < s->steps.n_segments)
		snprintf(step, sizeof step, "<- step %s%s", md_pct(s->steps.segments[k].change, pct, sizeof pct),
			 history_step_kind(h, s, k, NULL) == HISTORY_STEP_SAME_COMMIT ? " (same commit: noise)" : "");
	for (int j = 0; j < s->steps.n_outliers; j++)
		outlier |= s->steps.outliers[j] == i;
	if (p->baseline[0])
		snprintf(base, sizeof base, "baseline '%.64s'", p->baseline);
	const char *notes[] = { step, outlier ? "outlier" : "", base, p->quick ? "quick" : "",
				p->partial ? "partial" : "" };
	size_t used = 0;
	buf[0] = '\0';
	/* a note cut at the end of buf is still a note: the length is not checked */
	for (size_t j = 0; j < sizeof notes / sizeof notes[0] && used < len; j++)
		if (notes[j][0])
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", notes[j]);
}

static void print_series(FILE *f, const struct history *h, const struct history_series *s)
{
	char fig[96], notes[160], text[400];
	struct escape_pool e = { .next = 0 };
	fprintf(f, "%s / %s / %s (%s): %s, %d run%s\n", escape_t(&e, s->scenario), escape_t(&e, s->device),
		escape_t(&e, s->case_name), escape_t(&e, s->shape), metric_names[h->metric].words, s->n,
		s->n == 1 ? "" : "s");
	fprintf(f, "  %-6s %-20s  %-18s %-24s %-28s %6s  %s\n", "run", "started (UTC)", "commit", "label",
		metric_names[h->metric].column, "n", "notes");
	for (int i = 0; i < s->n; i++) {
		const struct history_point *p = &s->points[i];
		point_notes(h, s, i, notes, sizeof notes);
		e.next = 0;
		fprintf(f, "  %-6lld %-20s  %-18s %-24s %-28s %6d  %s\n", (long long)p->run_id, escape_t(&e, p->started_at),
			escape_t(&e, p->commit[0] ? p->commit : "-"), escape_t(&e, p->label[0] ? p->label : "-"),
			point_figure(h, p, fig, sizeof fig), p->n, escape_t(&e, notes));
	}
	if (s->steps.n_segments <= 1)
		fprintf(f, "  steps: none beyond %.2f%% (noise %.2f%%)\n", h->min_step * 100, s->steps.sigma * 100);
	/* a step in words: "+25.00% at run 7 (commit abc, 2026-11-03, label
	 * nightly-2026-11-03): 4.06 us -> 5.07 us, a regression" */
	for (int k = 1; k < s->steps.n_segments; k++) {
		const struct steps_segment *a = &s->steps.segments[k - 1], *b = &s->steps.segments[k];
		const struct history_point *p = &s->points[b->start];
		char pct[32], from[48], to[48], kind[64];
		snprintf(text, sizeof text, "%s at run %lld (commit %s, %.10s%s%s): %s -> %s, %s",
			 md_pct(b->change, pct, sizeof pct), (long long)p->run_id, p->commit[0] ? p->commit : "unknown",
			 p->started_at, p->label[0] ? ", label " : "", p->label,
			 trend_level(h, a->level, from, sizeof from), trend_level(h, b->level, to, sizeof to),
			 trend_step_kind_words(h, s, k, kind, sizeof kind));
		fprintf(f, "  step: %s\n", escape_t(&e, text));
	}
	fputc('\n', f);
}

enum ab_rc trend_print(const struct printer_job *job, struct ab_diag *d)
{
	const struct history *h = job->history;
	fprintf(job->f, "# %s per run; steps by E-divisive means (Welch's t, p < %g, %d runs a side), smallest step "
			"named %.2f%%; a step between runs of one commit is noise\n\n",
		metric_names[h->metric].words, STEPS_MAX_PVALUE, STEPS_MIN_RUNS, h->min_step * 100);
	for (int i = 0; i < h->n_series; i++)
		print_series(job->f, h, &h->series[i]);
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the history") : AB_OK;
}

/* ---- charts ---- */

/* "trend-smoke-CPU_fake_timer-ln_modulate", "trend-...-sweep-NAME" for a
 * sweep's chart (escape_stem); "-N" appended when an earlier one is equal. */
static void make_stem(const struct history_series *s, bool sweep, int i, char (*stems)[TREND_STEM_MAX])
{
	char raw[TREND_STEM_MAX], clean[TREND_STEM_MAX];
	snprintf(raw, sizeof raw, "trend-%.40s-%.40s-%s%.*s", s->scenario, s->device, sweep ? "sweep-" : "",
		 sweep ? 54 : 60, sweep ? s->sweep : s->case_name);
	escape_stem(raw, clean, sizeof clean);
	snprintf(stems[i], TREND_STEM_MAX, "%s", clean);
	for (int j = 0; j < i; j++)
		if (!strcmp(stems[j], stems[i])) {
			snprintf(stems[i], TREND_STEM_MAX, "%.140s-%d", clean, i + 1);
			break;
		}
}

/* The arrays a chart's plot_trend (one series) or plot_trends (a sweep's
 * lines) points into: per run (x) its tick, per line and run its value and
 * hover text, per step its mark. */
struct chart_arrays {
	const struct history_point **xs; /* [n] a point of each run */
	const char **commits, **dates, **runs;
	char (*tick)[3][24];
	double *value;                   /* [line * n + x] */
	double *low, *high, *level;      /* [n]: one series' */
	const char **hover;              /* [line * n + x] */
	char *hover_buf;                 /* hover_len bytes each */
	size_t hover_len;
	const char **names;              /* [lines] */
	char (*name_buf)[48];
	int *step_at;                    /* [steps] */
	bool *step_better, *step_noise;
	const char **step_text;
	char (*text)[96];
	struct allocs mem;               /* every array above */
};

static bool chart_alloc(struct chart_arrays *a, int n, int lines, int steps, size_t hover_len)
{
	size_t m = (size_t)n + 1, l = (size_t)lines + 1, k = (size_t)steps + 1;
	a->hover_len = hover_len;
	a->xs = allocs_calloc(&a->mem, m, sizeof *a->xs);
	a->commits = allocs_calloc(&a->mem, m, sizeof *a->commits);
	a->dates = allocs_calloc(&a->mem, m, sizeof *a->dates);
	a->runs = allocs_calloc(&a->mem, m, sizeof *a->runs);
	a->tick = allocs_calloc(&a->mem, m, sizeof *a->tick);
	a->value = allocs_calloc(&a->mem, m * l, sizeof *a->value);
	a->low = allocs_calloc(&a->mem, m, sizeof *a->low);
	a->high = allocs_calloc(&a->mem, m, sizeof *a->high);
	a->level = allocs_calloc(&a->mem, m, sizeof *a->level);
	a->hover = allocs_calloc(&a->mem, m * l, sizeof *a->hover);
	a->hover_buf = allocs_calloc(&a->mem, m * l, hover_len);
	a->names = allocs_calloc(&a->mem, l, sizeof *a->names);
	a->name_buf = allocs_calloc(&a->mem, l, sizeof *a->name_buf);
	a->step_at = allocs_calloc(&a->mem, k, sizeof *a->step_at);
	a->step_better = allocs_calloc(&a->mem, k, sizeof *a->step_better);
	a->step_noise = allocs_calloc(&a->mem, k, sizeof *a->step_noise);
	a->step_text = allocs_calloc(&a->mem, k, sizeof *a->step_text);
	a->text = allocs_calloc(&a->mem, k, sizeof *a->text);
	return !a->mem.failed;
}

/* Hover text j, from a printf format. */
static void __attribute__((format(printf, 3, 4))) hover_set(struct chart_arrays *a, size_t j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->hover_buf + j * a->hover_len, a->hover_len, fmt, ap);
	va_end(ap);
	a->hover[j] = a->hover_buf + j * a->hover_len;
}

/* Ticks: every k-th of the n runs back from the newest shows its run id,
 * commit and date with the time (one commit's nightly runs look alike
 * without the id and the time), so that at most about TREND_PNG_TICKS
 * labels share a 1000 px PNG's axis, TREND_SVG_TICKS a dashboard card's
 * (each label ~70 px wide there). */
#define TREND_SVG_TICKS 8
#define TREND_PNG_TICKS 12
static void fill_ticks(struct chart_arrays *a, int n, bool svg)
{
	int most = svg ? TREND_SVG_TICKS : TREND_PNG_TICKS;
	int every = n > most ? (n + most - 1) / most : 1;
	for (int i = 0; i < n; i++) {
		bool show = (n - 1 - i) % every == 0; /* counted from the newest run, which always has its label */
		const char *t = a->xs[i]->started_at;
		char (*b)[24] = a->tick[i];
		snprintf(b[0], sizeof b[0], "%.7s", show ? a->xs[i]->commit : "");
		if (show && strlen(t) >= 16)
			snprintf(b[1], sizeof b[1], "%.5s %.5s", t + 5, t + 11);
		else
			snprintf(b[1], sizeof b[1], "%.10s", show ? t : "");
		if (show)
			snprintf(b[2], sizeof b[2], "r%lld", (long long)a->xs[i]->run_id);
		a->commits[i] = b[0];
		a->dates[i] = b[1];
		a->runs[i] = b[2];
	}
}

/* One series' values, levels and steps, and what each point's hover shows:
 * "run 22, commit c996322, 2026-11-09 02:00, label nightly: 4.06 us [4.05,
 * 4.07], n=20; step +25.00%" (the table's row, in one line). */
static void fill_values(const struct history *h, const struct history_series *s, struct chart_arrays *a)
{
	double scale = metric_names[h->metric].unit;
	for (int k = 0; k < s->steps.n_segments; k++)
		for (int i = s->steps.segments[k].start; i < s->steps.segments[k].end; i++)
			a->level[i] = s->steps.segments[k].level / scale;
	for (int i = 0; i < s->n; i++) {
		const struct history_point *p = &s->points[i];
		char fig[96], notes[160];
		a->value[i] = p->v.point / scale;
		a->low[i] = p->v.low / scale;
		a->high[i] = p->v.high / scale;
		point_notes(h, s, i, notes, sizeof notes);
		hover_set(a, (size_t)i, "run %lld, commit %.40s, %.10s %.5s%s%.40s: %.60s, n=%d%s%.100s",
			  (long long)p->run_id, p->commit[0] ? p->commit : "unknown", p->started_at,
			  strlen(p->started_at) >= 16 ? p->started_at + 11 : "", p->label[0] ? ", label " : "",
			  p->label, point_figure(h, p, fig, sizeof fig), p->n, notes[0] ? "; " : "", notes);
	}
	for (int k = 1; k < s->steps.n_segments; k++) {
		char pct[32];
		const struct history_point *p = &s->points[s->steps.segments[k].start];
		enum history_step_kind kind = history_step_kind(h, s, k, NULL);
		a->step_at[k - 1] = s->steps.segments[k].start;
		snprintf(a->text[k - 1], sizeof a->text[k - 1], "%s %s: run %lld, %.9s",
			 kind == HISTORY_STEP_SAME_COMMIT ? "same commit: noise"
			 : kind == HISTORY_STEP_IMPROVEMENT ? "improvement" : "regression",
			 md_pct(s->steps.segments[k].change, pct, sizeof pct), (long long)p->run_id, p->commit);
		a->step_text[k - 1] = a->text[k - 1];
		a->step_better[k - 1] = kind == HISTORY_STEP_IMPROVEMENT;
		a->step_noise[k - 1] = kind == HISTORY_STEP_SAME_COMMIT;
	}
}

/* ---- drawing ---- */

struct charting {
	const char *dir;
	const struct history *h;
	struct trend_outcome *out;
	bool svg, have;          /* SVGs (a dashboard's); gnuplot found */
	char gnuplot[PATH_MAX];
};

static void note(struct trend_outcome *o, const char *msg)
{
	if (!o->drawn.note[0])
		md_scrub_paths(msg, o->drawn.note, sizeof o->drawn.note);
}

/* Chart k written (one: a series', else many: a sweep's), drawn, and on a
 * drawn SVG its points' hover values; a chart that cannot be drawn is a
 * note, a PNG that cannot be written fails the command. */
static enum ab_rc draw(struct charting *C, int k, const struct plot_trend *one, const struct plot_trends *many,
		       struct ab_diag *d)
{
	const char *stem = C->out->chart_stem[k];
	struct ab_diag pd = { "" };
	enum ab_rc rc = one ? plot_write_trend(C->dir, stem, one, d) : plot_write_trends(C->dir, stem, many, d);
	if (rc || !C->have)
		return rc;
	rc = C->svg ? plot_render_svg(C->gnuplot, C->dir, stem, &pd) : plot_render(C->gnuplot, C->dir, stem, &pd);
	if (rc == AB_ERR_IO || rc == AB_ERR_NOMEM) {
		*d = pd;
		return rc;
	}
	if (rc) {
		C->out->drawn.n_failed++;
		note(C->out, pd.msg);
		return AB_OK;
	}
	C->out->chart_drawn[k] = true;
	C->out->drawn.n_drawn++;
	return one ? plot_hover_trend(C->dir, stem, one, d) : plot_hover_trends(C->dir, stem, many, d);
}

/* At least +-TREND_MIN_SPAN around the series' median, and everything
 * drawn: a flat series stays flat on the chart instead of its last-digit
 * noise filling the height (the step detector's min_step is the scale
 * that matters). */
#define TREND_MIN_SPAN 0.10

static void y_range(const struct history *h, const struct history_series *s, const struct chart_arrays *a, double *lo,
		    double *hi)
{
	double c = s->median / metric_names[h->metric].unit;
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

/* Series s's chart, chart k, its baseline the newest point a baseline
 * names. */
static enum ab_rc write_chart(struct charting *C, const struct history_series *s, int k, struct ab_diag *d)
{
	const struct history *h = C->h;
	struct chart_arrays a = { 0 };
	char title[300], bname[96];
	int bi = s->n - 1;
	if (!chart_alloc(&a, s->n, 1, s->steps.n_segments, 320)) {
		allocs_free(&a.mem);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the chart of '%s'", s->case_name);
	}
	for (int i = 0; i < s->n; i++)
		a.xs[i] = &s->points[i];
	fill_ticks(&a, s->n, C->svg);
	fill_values(h, s, &a);
	while (bi >= 0 && !s->points[bi].baseline[0])
		bi--;
	snprintf(bname, sizeof bname, "baseline '%s'", bi >= 0 ? s->points[bi].baseline : "");
	/* on a dashboard card, whose heading names the case, scenario and device: the figure alone */
	if (C->svg)
		snprintf(title, sizeof title, "%s per run", metric_names[h->metric].words);
	else
		snprintf(title, sizeof title, "%.64s (%.40s), %.40s on %.80s: %s per run", s->case_name, s->shape,
			 s->scenario, s->device, metric_names[h->metric].words);
	struct plot_trend p = {
		.title = title, .ylabel = metric_names[h->metric].ylabel,
		.value_name = metric_names[h->metric].value_name, .n = s->n, .commits = a.commits, .dates = a.dates,
		.value = a.value, .low = a.low, .high = a.high, .level = a.level, .baseline = bi,
		.baseline_name = bname, .n_steps = s->steps.n_segments - 1, .step_at = a.step_at,
		.step_better = a.step_better, .step_noise = a.step_noise, .step_text = a.step_text, .svg = C->svg,
		.run_ids = a.runs, .hover = a.hover,
	};
	y_range(h, s, &a, &p.y_min, &p.y_max);
	enum ab_rc rc = draw(C, k, &p, NULL, d);
	allocs_free(&a.mem);
	return rc;
}

/* ---- one chart per sweep, past TREND_CHARTS_MAX series ---- */

/* The chart of a sweep's series (members, ascending along the axis): each
 * point relative to its series' median, in percent. */
static enum ab_rc write_sweep_chart(struct charting *C, const int *members, int n_members, int k, struct ab_diag *d)
{
	const struct history *h = C->h;
	const struct history_series *s0 = &h->series[members[0]];
	struct chart_arrays a = { 0 };
	char title[300];
	int n_points = 0;
	for (int m = 0; m < n_members; m++)
		n_points += h->series[members[m]].n;
	if (!chart_alloc(&a, n_points, n_members, 0, 160)) {
		allocs_free(&a.mem);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the chart of sweep '%s'", s0->sweep);
	}
	int n = history_runs(h, members, n_members, a.xs);
	fill_ticks(&a, n, C->svg);
	for (int m = 0; m < n_members; m++) {
		const struct history_series *s = &h->series[members[m]];
		snprintf(a.name_buf[m], sizeof a.name_buf[m], "%s=%lld", s->axis, (long long)s->axis_value);
		a.names[m] = a.name_buf[m];
		for (int x = 0; x < n; x++) {
			size_t j = (size_t)m * (size_t)n + (size_t)x;
			a.value[j] = NAN;
			for (int i = 0; i < s->n; i++)
				if (s->points[i].run_id == a.xs[x]->run_id) {
					char fig[96], pct[32];
					a.value[j] = 100 * s->points[i].rel;
					hover_set(&a, j, "%s, run %lld, %.12s: %s (%s)", a.names[m],
						  (long long)s->points[i].run_id, s->points[i].commit,
						  point_figure(h, &s->points[i], fig, sizeof fig),
						  md_pct(s->points[i].rel, pct, sizeof pct));
				}
		}
	}
	snprintf(title, sizeof title, "sweep %.48s over %s, %.40s on %.80s: %s per run, each case against its own median",
		 s0->sweep, s0->axis, s0->scenario, s0->device, metric_names[h->metric].words);
	struct plot_trends p = { title, "change from the case's median (%)", n_members, n, a.names, a.commits, a.dates,
				 a.value, C->svg, a.hover };
	enum ab_rc rc = draw(C, k, NULL, &p, d);
	allocs_free(&a.mem);
	return rc;
}

/* Every series' chart; past TREND_CHARTS_MAX series one per sweep instead
 * (a swept series' chart holds every case of its sweep that comes after
 * it: those before it have charted it), and an unswept series' own while
 * fewer than TREND_CHARTS_MAX charts are written. */
enum ab_rc trend_write_charts(const char *dir, const struct history *h, bool no_plots, bool svg,
			      struct trend_outcome *out, struct ab_diag *d)
{
	char why[256] = "charts turned off";
	struct charting C = { dir, h, out, svg, false, "" };
	size_t m = (size_t)h->n_series + 1;
	bool per_sweep = h->n_series > TREND_CHARTS_MAX;
	memset(out, 0, sizeof *out);
	out->chart_of = allocs_calloc(&out->mem, m, sizeof *out->chart_of);
	out->chart_stem = allocs_calloc(&out->mem, m, sizeof *out->chart_stem);
	out->chart_drawn = allocs_calloc(&out->mem, m, sizeof *out->chart_drawn);
	out->chart_sweep = allocs_calloc(&out->mem, m, sizeof *out->chart_sweep);
	int *members = allocs_calloc(&out->mem, m, sizeof *members);
	if (out->mem.failed)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the history's charts");
	memset(out->chart_of, -1, m * sizeof *out->chart_of); /* -1: no chart */
	enum ab_rc rc = md_mkdirs(dir, d);
	C.have = !no_plots && plot_find_gnuplot(C.gnuplot, sizeof C.gnuplot, why, sizeof why);
	if (!C.have) {
		out->drawn.skipped = true;
		note(out, why);
	}
	for (int i = 0; !rc && i < h->n_series; i++) {
		const struct history_series *s = &h->series[i];
		int k = out->n_charts, n_members = 0;
		if (out->chart_of[i] >= 0 || (per_sweep && k >= TREND_CHARTS_MAX))
			continue;
		bool sweep = per_sweep && s->sweep[0];
		for (int j = i; j < h->n_series; j++)
			if (j == i || (sweep && history_same_sweep(s, &h->series[j]))) {
				members[n_members++] = j;
				out->chart_of[j] = k;
			}
		make_stem(s, sweep, k, out->chart_stem);
		out->chart_sweep[k] = sweep;
		out->n_charts++;
		rc = sweep ? write_sweep_chart(&C, members, n_members, k, d) : write_chart(&C, s, k, d);
	}
	return rc;
}

void trend_outcome_free(struct trend_outcome *o)
{
	allocs_free(&o->mem);
	memset(o, 0, sizeof *o);
}
