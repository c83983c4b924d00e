/*
 * report_charts.c - the report's charts from a run's summary and its peers
 * (analysis/summary.h, analysis/peers.h): the figures those computed,
 * arranged per chart for plot.c, then gnuplot. Nothing here computes a
 * figure: times are only scaled to the chart's unit.
 */
#include "print/report_charts.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/allocs.h"
#include "print/escape.h"
#include "print/md.h"
#include "print/plot.h"
#include "print/report.h"

#define STEM_MAX 64
#define LABEL_MAX 48

struct charter {
	const struct summary_run *S;
	const struct peers_table *P;
	const struct printer_job *job;
	struct printer_charts *res;
	struct report_charts *out;
	char (*stems)[STEM_MAX];
	const char **series;                  /* [P->n_series]: each series' name on a chart */
	char (*series_buf)[200];
	bool have_gnuplot;
	char gnuplot[PATH_MAX];
	int n_colors;                         /* kernel labels given a colour so far */
	char color_of[256][LABEL_MAX + 8];    /* the labels, in first-seen order */
	struct allocs mem;                    /* the arrays of the chart being built */
};

/* The kernel charts' palette (colour-blind safe first, Okabe-Ito, then
 * Tableau); label k of the report gets colour k mod its size. The gaps
 * are grey on every chart. */
static const char *const palette[] = { "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00",
				       "#f0e442", "#4e79a7", "#59a14f", "#b07aa1", "#9c755f", "#76b7b2" };
#define PALETTE_N ((int)(sizeof palette / sizeof palette[0]))
#define GAPS_COLOR "#bbbbbb"

/* The colour of a kernel's label, the same in every chart of the report. */
static const char *kernel_color(struct charter *C, const char *label)
{
	for (int i = 0; i < C->n_colors; i++)
		if (!strcmp(C->color_of[i], label))
			return palette[i % PALETTE_N];
	if (C->n_colors < (int)(sizeof C->color_of / sizeof C->color_of[0]))
		snprintf(C->color_of[C->n_colors++], sizeof C->color_of[0], "%s", label);
	return palette[(C->n_colors - 1) % PALETTE_N];
}

/* The unit a chart of times up to ns draws in: the one the tables print
 * that time in (us under 1 ms, ms under 1 s, ...). */
static struct md_unit chart_unit(double ns)
{
	return md_time_unit(isfinite(ns) && ns > 0 ? ns : 1e3);
}

/* A file-name stem for name into stems[i] (escape_stem), unique among
 * stems[0..i). */
static void unique_stem(char (*stems)[STEM_MAX], int i, const char *name)
{
	char *s = stems[i];
	escape_stem(name, s, STEM_MAX - 8);
	size_t k = strlen(s);
	for (int j = 0; j < i; j++)
		if (!strcmp(stems[j], s)) {
			snprintf(s + k, STEM_MAX - k, "-%d", i + 1);
			break;
		}
}

/* Records the result of a plot_write_* call and draws the chart; only
 * NOMEM and IO (a PNG that cannot be written: a full disk) stop the report.
 * A chart without data, or one gnuplot failed on, is noted in the text
 * instead. */
static enum ab_rc wrote(struct charter *C, struct report_chart *p, enum ab_rc rc, struct ab_diag *d)
{
	p->written = rc == AB_OK;
	if (p->written && !C->have_gnuplot)
		return AB_OK;
	if (p->written && (rc = plot_render(C->gnuplot, C->job->dir, p->stem, d)) == AB_OK) {
		p->drawn = true;
		C->res->n_drawn++;
		return AB_OK;
	}
	if (rc == AB_ERR_NOMEM || rc == AB_ERR_IO)
		return rc;
	C->res->n_failed += p->written;
	md_scrub_paths(d->msg, p->note, sizeof p->note);
	if (!C->res->note[0])
		snprintf(C->res->note, sizeof C->res->note, "%s", p->note);
	return AB_OK;
}

/* ---- speedup bars ---- */

static enum ab_rc chart_speedup(struct charter *C, struct ab_diag *d)
{
	int n = C->S->n_cases, ns = C->P->n_series;
	struct plot_bar *bars = allocs_calloc(&C->mem, (size_t)n * (size_t)ns + 1, sizeof *bars);
	const char **rows = allocs_calloc(&C->mem, (size_t)n + 1, sizeof *rows);
	const char **notes = allocs_calloc(&C->mem, (size_t)n + 1, sizeof *notes);
	snprintf(C->out->speedup.stem, sizeof C->out->speedup.stem, "speedup");
	if (C->mem.failed)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the speedup chart");
	for (int i = 0; i < n; i++) {
		rows[i] = C->S->cases[i].c->name;
		notes[i] = C->S->cases[i].c->shape;
		for (int s = 0; s < ns; s++) {
			const struct summary_case *c = peers_cell(C->P, i, s);
			/* the summary's verdicts; not exact: B's bytes are not A's, or an arm's calls disagree */
			bars[i * ns + s] = c ? (struct plot_bar){ c->speedup.point, c->speedup.low, c->speedup.high,
								  c->verdict == SUMMARY_CASE_DRIFTED,
								  c->verdict == SUMMARY_CASE_NOT_EXACT }
					     : (struct plot_bar){ NAN, NAN, NAN, false, false };
		}
	}
	struct plot_bars p = {
		.title = "speedup median(A) / median(B), whiskers: 95% bootstrap interval (none under 10 samples "
			 "an arm)",
		.ylabel = "speedup (x)", .n_rows = n, .n_series = ns, .row_names = rows, .row_notes = notes,
		.series_names = C->series, .bars = bars, .reference_line = 1.0, .value_format = "%.2fx",
		.mark_word = "drifted: not trusted",
		.inexact_word = "not bit-exact: B's bytes differ from A's, or calls disagree",
	};
	return wrote(C, &C->out->speedup, plot_write_bars(C->job->dir, "speedup", &p, d), d);
}

/* ---- sweeps: time, speedup and % of copy against the swept size ---- */

/* Cell k of a sweep chart's columns (plot.h's PLOT_SW_*) from a case's
 * summary (NULL: the series lacks the case), times in units of div ns. */
static void sweep_cell(double *const *col, bool *drifted, int k, const struct summary_case *s, double div)
{
	drifted[k] = s && s->verdict == SUMMARY_CASE_DRIFTED;
	const double v[PLOT_SW_N] = {
		s ? s->a.time.median_ns / div : NAN, s ? s->a.median_ci.low / div : NAN, s ? s->a.median_ci.high / div : NAN,
		s ? s->b.time.median_ns / div : NAN, s ? s->b.median_ci.low / div : NAN, s ? s->b.median_ci.high / div : NAN,
		s ? s->speedup.point : NAN, s ? s->speedup.low : NAN, s ? s->speedup.high : NAN,
		s ? s->a.bw.pct_copy : NAN, s ? s->b.bw.pct_copy : NAN, s ? s->copy_floor_ns / div : NAN,
	};
	for (int j = 0; j < PLOT_SW_N; j++)
		col[j][k] = v[j];
}

/* A series per run, its times in the unit of the sweep's largest median. */
static enum ab_rc chart_sweep(struct charter *C, int g, struct ab_diag *d)
{
	const struct summary_sweep *w = &C->S->sweeps[g];
	struct report_chart *ch = &C->out->sweeps[g];
	const struct results_run *r = C->S->run;
	int ns = C->P->n_series;
	size_t cells = (size_t)w->n * (size_t)ns;
	double *x = allocs_calloc(&C->mem, (size_t)w->n, sizeof *x), *col[PLOT_SW_N];
	bool *drifted = allocs_calloc(&C->mem, cells + 1, sizeof *drifted);
	for (int k = 0; k < PLOT_SW_N; k++)
		col[k] = allocs_calloc(&C->mem, cells, sizeof *col[k]);
	char title[200], arm_a[48], arm_b[48];
	snprintf(title, sizeof title, "%s: %s over %s", w->name, r->scenario_name, w->axis);
	/* a sweep's cases share their [case]'s arms: its first's */
	const struct summary_case *first = w->n ? &C->S->cases[w->idx[0]] : NULL;
	snprintf(arm_a, sizeof arm_a, "A (%s)", first ? first->arm_a : r->arm_a);
	snprintf(arm_b, sizeof arm_b, "B (%s)", first ? first->arm_b : r->arm_b);
	snprintf(ch->stem, sizeof ch->stem, "sweep-%s", C->stems[g]);
	if (C->mem.failed)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the sweep chart of '%s'", w->name);
	double most = NAN;
	for (int i = 0; i < w->n; i++) {
		x[i] = (double)C->S->cases[w->idx[i]].c->axis_value;
		for (int t = 0; t < ns; t++) {
			const struct summary_case *c = peers_cell(C->P, w->idx[i], t);
			most = c ? fmax(isnan(most) ? 0 : most, fmax(c->a.time.median_ns, c->b.time.median_ns)) : most;
		}
	}
	struct md_unit u = chart_unit(most);
	for (int s = 0; s < ns; s++)
		for (int i = 0; i < w->n; i++)
			sweep_cell(col, drifted, s * w->n + i, peers_cell(C->P, w->idx[i], s), u.div);
	struct plot_sweep p = { title, w->axis, w->n, ns, x, C->series, { arm_a, arm_b }, .drifted = drifted,
				.time_unit = u.name };
	for (int k = 0; k < PLOT_SW_N; k++)
		p.v[k] = col[k];
	return wrote(C, ch, plot_write_sweep(C->job->dir, ch->stem, &p, d), d);
}

/* ---- kernels stacked per arm ---- */

/* A segment of a case's stacked kernel chart: a kernel (by name, over
 * both arms) or the rest of the window. */
struct segment {
	const char *name;
	char base[LABEL_MAX + 1];  /* "family: operation" */
	char label[LABEL_MAX + 8]; /* base, with " (k)" for the k-th segment of one base */
};

/* Finds the segment of name among seg[0..*n), else appends it. */
static int segment_of(struct segment *seg, int *n, const char *name)
{
	int i = 0;
	while (i < *n && strcmp(seg[i].name, name))
		i++;
	if (i == *n)
		seg[(*n)++].name = name;
	return i;
}

/* Segment i's label: "elementwise: mul" for a kernel (its family alone
 * where the operation adds nothing), the name itself for the gaps (family
 * NULL); the k-th of a label already given gets " (k)" (the label cut to
 * leave room for it). */
static void label_segment(struct segment *seg, int i, const char *family, const char *op)
{
	char *base = seg[i].base;
	int same = 0;
	if (!family)
		snprintf(base, LABEL_MAX + 1, "%.*s", LABEL_MAX, seg[i].name);
	else if (!op[0] || !strcmp(op, family))
		snprintf(base, LABEL_MAX + 1, "%.*s", LABEL_MAX, family);
	else
		snprintf(base, LABEL_MAX + 1, "%.20s: %.*s", family, LABEL_MAX - 22, op);
	for (int j = 0; j < i; j++)
		same += !strcmp(seg[j].base, base);
	if (same)
		snprintf(seg[i].label, sizeof seg[i].label, "%.*s (%d)", LABEL_MAX - 12, base, same + 1);
	else
		snprintf(seg[i].label, sizeof seg[i].label, "%s", base);
}

/* A bar per arm: its median, split by its kernels' shares and the gaps. */
static enum ab_rc chart_kernels(struct charter *C, int i, struct ab_diag *d)
{
	const struct summary_case *s = &C->S->cases[i];
	const struct summary_arm *const ak[2] = { &s->a, &s->b };
	struct report_chart *ch = &C->out->cases[i].kernels;
	int cap = s->a.n_kernels + s->b.n_kernels + 1, n = 0;
	struct segment *seg = allocs_calloc(&C->mem, (size_t)cap, sizeof *seg);
	const char **labels = allocs_calloc(&C->mem, (size_t)cap, sizeof *labels);
	const char **colors = allocs_calloc(&C->mem, (size_t)cap, sizeof *colors);
	double *v = allocs_calloc(&C->mem, (size_t)cap * 2, sizeof *v);
	char rows[2][48], title[160], ylabel[48];
	const char *row_names[2] = { rows[0], rows[1] };
	struct md_unit u = chart_unit(fmax(s->a.time.median_ns, s->b.time.median_ns));
	snprintf(rows[0], sizeof rows[0], "A (%s)", s->arm_a); /* the case's arms */
	snprintf(rows[1], sizeof rows[1], "B (%s)", s->arm_b);
	snprintf(title, sizeof title, "%s: median time per sample, split by each kernel's share (family: operation)%s",
		 s->c->name, s->verdict == SUMMARY_CASE_DRIFTED ? "; DRIFTED: not trusted" : "");
	snprintf(ylabel, sizeof ylabel, "%s per sample (median)", u.name);
	snprintf(ch->stem, sizeof ch->stem, "kernels-%s", C->stems[i]);
	if (C->mem.failed)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the kernel chart");
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < ak[a]->n_kernels; k++) {
			int before = n, j = segment_of(seg, &n, ak[a]->kernels[k].name);
			if (j == before) /* a new segment: labelled by its first kernel of that name */
				label_segment(seg, j, ak[a]->kernels[k].family, ak[a]->kfig[k].operation);
		}
	int gaps = segment_of(seg, &n, "launch gaps and host overhead");
	label_segment(seg, gaps, NULL, NULL);
	for (int a = 0; a < 2; a++) {
		for (int k = 0; k < ak[a]->n_kernels; k++)
			v[a * n + segment_of(seg, &n, ak[a]->kernels[k].name)] = ak[a]->kfig[k].of_median_ns / u.div;
		v[a * n + gaps] = ak[a]->gaps_of_median_ns / u.div;
	}
	for (int k = 0; k < n; k++) {
		labels[k] = seg[k].label;
		colors[k] = k == gaps ? GAPS_COLOR : kernel_color(C, seg[k].label);
	}
	struct plot_stack p = { title, ylabel, 2, n, row_names, labels, colors, v };
	return wrote(C, ch, plot_write_stacked(C->job->dir, ch->stem, &p, d), d);
}

/* ---- the slots' samples: boxes and time series ---- */

/* Every slot of a case: its samples and median, the panel of its arm (A
 * 0, B 1) and its start on the bracket's time line. */
static enum ab_rc chart_slots(struct charter *C, int i, struct ab_diag *d)
{
	const struct summary_case *sc = &C->S->cases[i];
	const struct results_case *c = sc->c;
	struct report_case_charts *ch = &C->out->cases[i];
	char t1[256], t2[256], pa[64], pb[64], ya[64], yb[64], drift[64] = "";
	const char *panels[2] = { pa, pb }, *ylabels[2] = { ya, yb };
	struct md_unit u = chart_unit(sc->whisker_hi_ns);
	struct plot_group *g = allocs_calloc(&C->mem, (size_t)c->n_slots + 1, sizeof *g);
	int n_panels = 1;
	if (C->mem.failed)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the sample charts");
	for (int k = 0, at = 0; k < c->n_slots; k++) {
		const struct results_slot *s = &c->slots[k];
		bool b = s->arm == 'b';
		g[k] = (struct plot_group){ s->label, s->variant, s->samples_ns, s->n_samples, b, at, s->median_ns, b };
		at += s->n_samples;
		n_panels = b ? 2 : n_panels;
	}
	if (sc->verdict == SUMMARY_CASE_DRIFTED)
		snprintf(drift, sizeof drift, "; DRIFTED %.2f%%: not trusted", sc->drift * 100);
	/* one y range for both panels, holding every whisker; logarithmic only
	 * when it spans more than a decade (plot.h), so that both boxes keep
	 * their spread */
	double ylo = sc->whisker_lo_ns / u.div, yhi = sc->whisker_hi_ns / u.div;
	double lo[2] = { sc->a.p1_ns / u.div, sc->b.p1_ns / u.div };
	double hi[2] = { sc->a.p99_ns / u.div, sc->b.p99_ns / u.div };
	snprintf(t1, sizeof t1, "%s: wall time per sample, per slot (one y range, whiskers 1.5 IQR%s)%s", c->name,
		 plot_log_scale(ylo, yhi) ? ", log scale" : "", drift);
	snprintf(t2, sizeof t2, "%s: every sample in bracket order, each slot's median dashed%s", c->name, drift);
	snprintf(pa, sizeof pa, "A (%s)", sc->arm_a); /* the case's arms */
	snprintf(pb, sizeof pb, "B (%s)", sc->arm_b);
	snprintf(ya, sizeof ya, "A (%s), %s", sc->arm_a, u.name);
	snprintf(yb, sizeof yb, "B (%s), %s", sc->arm_b, u.name);
	snprintf(ch->samples.stem, sizeof ch->samples.stem, "samples-%s", C->stems[i]);
	snprintf(ch->series.stem, sizeof ch->series.stem, "series-%s", C->stems[i]);
	struct plot_samples p = { t1, "sample, in the order the bracket took them", u.name, c->n_slots, g, u.div,
				  n_panels, panels, ylo, yhi, lo, hi };
	enum ab_rc rc = wrote(C, &ch->samples, plot_write_samples(C->job->dir, ch->samples.stem, &p, false, d), d);
	p.title = t2;
	p.panel_names = ylabels;
	return rc ? rc : wrote(C, &ch->series, plot_write_samples(C->job->dir, ch->series.stem, &p, true, d), d);
}

/* The sweeps' charts (the first REPORT_SWEEP_CHARTS_MAX), then each case's
 * when the run has at most REPORT_CASE_CHARTS_MAX cases; each chart's
 * arrays (C->mem) are freed once it is written. */
static enum ab_rc chart_all(struct charter *C, struct ab_diag *d)
{
	const struct summary_run *s = C->S;
	enum ab_rc rc = chart_speedup(C, d);
	allocs_free(&C->mem);
	C->out->n_sweep_charts = s->n_sweeps < REPORT_SWEEP_CHARTS_MAX ? s->n_sweeps : REPORT_SWEEP_CHARTS_MAX;
	for (int g = 0; rc == AB_OK && g < C->out->n_sweep_charts; g++) {
		unique_stem(C->stems, g, s->sweeps[g].name);
		rc = chart_sweep(C, g, d);
		allocs_free(&C->mem);
	}
	C->out->per_case = s->n_cases <= REPORT_CASE_CHARTS_MAX;
	for (int i = 0; rc == AB_OK && C->out->per_case && i < s->n_cases; i++) {
		unique_stem(C->stems, i, s->cases[i].c->name);
		rc = chart_kernels(C, i, d);
		allocs_free(&C->mem);
		if (rc == AB_OK)
			rc = chart_slots(C, i, d);
		allocs_free(&C->mem);
	}
	if (rc == AB_OK)
		rc = report_divergence_heatmaps(C->job->dir, s, C->have_gnuplot ? C->gnuplot : NULL, C->res->note,
						C->out->heatmaps, d);
	return rc;
}

enum ab_rc report_charts_write(const struct printer_job *job, struct report_charts *out, struct ab_diag *d)
{
	const struct peers_table *P = job->report->peers;
	const struct summary_run *S = P->series[0];
	struct charter C = { .S = S, .P = P, .job = job, .res = job->charts, .out = out };
	char why[256] = "charts turned off";
	memset(out, 0, sizeof *out);
	out->cases = calloc((size_t)S->n_cases + 1, sizeof *out->cases);
	out->sweeps = calloc((size_t)S->n_sweeps + 1, sizeof *out->sweeps);
	out->heatmaps = calloc((size_t)S->n_cases + 1, sizeof *out->heatmaps);
	struct allocs mem = { 0 }; /* C's arrays */
	int n_stems = S->n_cases > S->n_sweeps ? S->n_cases : S->n_sweeps;
	C.stems = allocs_calloc(&mem, (size_t)n_stems + 1, sizeof *C.stems);
	C.series = allocs_calloc(&mem, (size_t)P->n_series + 1, sizeof *C.series);
	C.series_buf = allocs_calloc(&mem, (size_t)P->n_series + 1, sizeof *C.series_buf);
	if (!out->cases || !out->sweeps || !out->heatmaps || mem.failed) {
		allocs_free(&mem);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report's charts");
	}
	for (int s = 0; s < P->n_series; s++)
		C.series[s] = report_peers_series_name(P, s, C.series_buf[s], sizeof C.series_buf[s]);
	if (!job->no_plots)
		C.have_gnuplot = plot_find_gnuplot(C.gnuplot, sizeof C.gnuplot, why, sizeof why);
	if (!C.have_gnuplot) {
		C.res->skipped = true;
		snprintf(C.res->note, sizeof C.res->note, "%s", why);
	}
	enum ab_rc rc = chart_all(&C, d);
	allocs_free(&mem);
	return rc;
}

void report_charts_free(struct report_charts *c)
{
	free(c->sweeps);
	free(c->cases);
	free(c->heatmaps);
	memset(c, 0, sizeof *c);
}

void report_chart_md(FILE *f, const struct report_chart *p, const char *alt, const char *what, const char *note)
{
	if (p->drawn) {
		md_printf(f, "![%s]", alt);
		fprintf(f, "(%s.png)\n\n", p->stem);
	} else if (p->written) {
		fprintf(f, "_%s `%s.png` not drawn: ", what, p->stem);
		md_printf(f, "%s", p->note[0] ? p->note : note);
		fprintf(f, ". Its data and script are `%s.dat` and `%s.gp`._\n\n", p->stem, p->stem);
	} else
		md_printf(f, "_%s not written: %s._\n\n", what, p->note);
}
