/*
 * report.c - the markdown report of one run and its gnuplot charts.
 *
 * Two phases: write and draw the charts (so the text knows which PNGs
 * exist), then print the sections in order. Every figure comes from the
 * run's summary (analysis/summary.h: pooled arm medians, speedup interval,
 * drift, exactness, kernels per arm, projection) or is a stored slot
 * figure, so report, show, export, compare and gate agree to the digit.
 */
#include "print/report.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "print/md.h"
#include "print/plot.h"

#define STEM_MAX 64
#define SEGMENT_NAME_MAX 48

struct plot_ref {
	char stem[80];
	bool written, drawn;
	char note[300];
};

/* A case's summary and its charts. */
struct case_info {
	const struct summary_case *s;
	const struct results_case *c;
	char stem[STEM_MAX];
	struct plot_ref kernels, samples;
};

/* The cases one [case] was swept into, ascending along its axis. */
struct sweep_info {
	const char *name, *axis;
	int n;
	int *idx;                     /* into rpt.ci */
	struct plot_ref plot;
};

struct rpt {
	const struct summary_run *S;
	const struct results_run *run;
	const struct report_options *o;
	struct report_outcome *out;
	int n;
	struct case_info *ci;
	int n_ser;                    /* series: this run, then its peers (one per GPU) */
	const struct summary_run **ser;
	char (*ser_name)[160];        /* "NVIDIA H200 (run 3)" */
	int n_sweeps;
	struct sweep_info *sw;
	struct plot_ref speedup;
	bool have_gnuplot;
	char gnuplot[PATH_MAX];
};

/* ------------------------------------------------------------------ */
/* per-case chart names                                                */

/* A file-name-safe stem for the case, unique among the first i cases. */
static void make_stem(struct rpt *R, int i)
{
	char *s = R->ci[i].stem;
	const char *name = R->ci[i].c->name;
	size_t k = 0;
	for (; name[k] && k < STEM_MAX - 8; k++) {
		char ch = name[k];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			  ch == '-' || ch == '_' || ch == '.';
		s[k] = ok && !(k == 0 && ch == '.') ? ch : '_';
	}
	s[k] = '\0';
	for (int j = 0; j < i; j++)
		if (!strcmp(R->ci[j].stem, s)) {
			snprintf(s + k, STEM_MAX - k, "-%d", i + 1);
			break;
		}
}

/* Cases of sweep w, ascending along its axis (insertion sort: a sweep
 * has at most SCENARIO_SWEEP_MAX values). */
static void sweep_sort(struct rpt *R, struct sweep_info *w)
{
	for (int i = 1; i < w->n; i++)
		for (int j = i; j > 0 && R->ci[w->idx[j]].c->axis_value < R->ci[w->idx[j - 1]].c->axis_value; j--) {
			int t = w->idx[j];
			w->idx[j] = w->idx[j - 1];
			w->idx[j - 1] = t;
		}
}

/* Groups the swept cases by the [case] they came from, in run order. */
static enum ab_rc find_sweeps(struct rpt *R, struct ab_diag *d)
{
	R->sw = calloc((size_t)R->n + 1, sizeof *R->sw);
	if (!R->sw)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report");
	for (int i = 0; i < R->n; i++) {
		const struct results_case *c = R->ci[i].c;
		int g = 0;
		while (g < R->n_sweeps && (strcmp(R->sw[g].name, c->sweep) || strcmp(R->sw[g].axis, c->axis)))
			g++;
		if (!c->sweep[0] || !c->axis[0] || g < R->n_sweeps)
			continue;
		struct sweep_info *w = &R->sw[R->n_sweeps++];
		w->name = c->sweep;
		w->axis = c->axis;
		if (!(w->idx = calloc((size_t)R->n, sizeof *w->idx)))
			return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report");
		for (int j = i; j < R->n; j++)
			if (!strcmp(R->ci[j].c->sweep, c->sweep) && !strcmp(R->ci[j].c->axis, c->axis))
				w->idx[w->n++] = j;
		sweep_sort(R, w);
	}
	return AB_OK;
}

/* Series 0 is the run, the others its peers, each named by its device. */
static enum ab_rc make_series(struct rpt *R, struct ab_diag *d)
{
	R->n_ser = 1 + R->o->n_peers;
	R->ser = calloc((size_t)R->n_ser, sizeof *R->ser);
	R->ser_name = calloc((size_t)R->n_ser, sizeof *R->ser_name);
	if (!R->ser || !R->ser_name)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report");
	for (int s = 0; s < R->n_ser; s++) {
		R->ser[s] = s ? R->o->peers[s - 1] : R->S;
		snprintf(R->ser_name[s], sizeof R->ser_name[s], "%s (run %lld)", R->ser[s]->run->device.name,
			 (long long)R->ser[s]->run->id);
	}
	return AB_OK;
}

static enum ab_rc derive(struct rpt *R, struct ab_diag *d)
{
	R->n = R->S->n_cases;
	R->ci = calloc((size_t)R->n + 1, sizeof *R->ci);
	if (!R->ci)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report");
	for (int i = 0; i < R->n; i++) {
		R->ci[i].s = &R->S->cases[i];
		R->ci[i].c = R->S->cases[i].c;
		make_stem(R, i);
	}
	enum ab_rc rc = make_series(R, d);
	return rc == AB_OK ? find_sweeps(R, d) : rc;
}

/* ------------------------------------------------------------------ */
/* charts                                                              */

static void plot_failed(struct rpt *R, struct plot_ref *p, const char *msg)
{
	char clean[300];
	md_scrub_paths(msg, clean, sizeof clean);
	snprintf(p->note, sizeof p->note, "%s", clean);
	if (!R->out->plots_note[0])
		snprintf(R->out->plots_note, sizeof R->out->plots_note, "%s", clean);
}

/* Runs gnuplot on a written chart and records the outcome. */
static void render(struct rpt *R, struct plot_ref *p)
{
	struct ab_diag d = { "" };
	if (!p->written || !R->have_gnuplot)
		return;
	if (plot_render(R->gnuplot, R->o->out_dir, p->stem, &d) != AB_OK) {
		R->out->n_plot_failures++;
		plot_failed(R, p, d.msg);
		return;
	}
	p->drawn = true;
	R->out->n_plots++;
}

/* Records the result of a plot_write_* call; only NOMEM and IO stop the
 * report (a chart without data is noted in the text instead). */
static enum ab_rc wrote(struct rpt *R, struct plot_ref *p, enum ab_rc rc, struct ab_diag *d)
{
	if (rc == AB_OK) {
		p->written = true;
		render(R, p);
		return AB_OK;
	}
	if (rc == AB_ERR_NOMEM || rc == AB_ERR_IO)
		return rc;
	plot_failed(R, p, d->msg);
	return AB_OK;
}

struct bars_data {
	double *value, *low, *high;
	const char **rows, **series;
};

static void bars_free(struct bars_data *b)
{
	free(b->value);
	free(b->low);
	free(b->high);
	free(b->rows);
	free(b->series);
}

/* Fills column s of the bars from series s (this run or a peer). */
static void speedup_series(struct rpt *R, int s, int ns, struct bars_data *b)
{
	const struct summary_run *S = R->ser[s];
	b->series[s] = R->ser_name[s];
	for (int i = 0; i < R->n; i++) {
		const struct summary_case *c = summary_find(S, R->ci[i].c->name);
		int k = i * ns + s;
		b->value[k] = c ? c->speedup.point : NAN;
		b->low[k] = c ? c->speedup.low : NAN;
		b->high[k] = c ? c->speedup.high : NAN;
	}
}

static enum ab_rc speedup_data(struct rpt *R, struct bars_data *b, int ns, struct ab_diag *d)
{
	size_t cells = (size_t)R->n * (size_t)ns + 1;
	b->value = calloc(cells, sizeof *b->value);
	b->low = calloc(cells, sizeof *b->low);
	b->high = calloc(cells, sizeof *b->high);
	b->rows = calloc((size_t)R->n + 1, sizeof *b->rows);
	b->series = calloc((size_t)ns, sizeof *b->series);
	if (!b->value || !b->low || !b->high || !b->rows || !b->series)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the speedup chart");
	for (int i = 0; i < R->n; i++)
		b->rows[i] = R->ci[i].c->name;
	for (int s = 0; s < ns; s++)
		speedup_series(R, s, ns, b);
	return AB_OK;
}

static enum ab_rc chart_speedup(struct rpt *R, struct ab_diag *d)
{
	struct bars_data b = { 0 };
	int ns = R->n_ser;
	snprintf(R->speedup.stem, sizeof R->speedup.stem, "speedup");
	enum ab_rc rc = speedup_data(R, &b, ns, d);
	if (rc == AB_OK) {
		struct plot_bars p = { "speedup median(A) / median(B) per case and device, 95% bootstrap interval",
				       "speedup (x)", R->n, ns, b.rows, b.series, b.value, b.low, b.high, 1.0 };
		rc = wrote(R, &R->speedup, plot_write_bars(R->o->out_dir, "speedup", &p, d), d);
	}
	bars_free(&b);
	return rc;
}

/* The stacked kernel chart of one case: a bar per arm, a segment per
 * kernel (mean self-time per sample) plus the rest of the window. */
struct kchart {
	int n;                       /* segments, gaps included */
	const char **full;           /* kernel names (union over both arms) */
	const char **label;          /* shortened for the key */
	char (*buf)[SEGMENT_NAME_MAX + 4];
	double *v;                   /* [2][n] */
};

static void kchart_free(struct kchart *k)
{
	free(k->full);
	free(k->label);
	free(k->buf);
	free(k->v);
}

static int segment_of(struct kchart *kc, const char *name)
{
	for (int i = 0; i < kc->n; i++)
		if (!strcmp(kc->full[i], name))
			return i;
	kc->full[kc->n] = name;
	return kc->n++;
}

static void shorten(const char *name, char *buf, size_t len)
{
	if (strlen(name) < len)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%.*s...", (int)len - 4, name);
}

static enum ab_rc kchart_fill(struct kchart *kc, const struct summary_arm *const ak[2], struct ab_diag *d)
{
	int cap = ak[0]->n_kernels + ak[1]->n_kernels + 1;
	kc->full = calloc((size_t)cap, sizeof *kc->full);
	kc->label = calloc((size_t)cap, sizeof *kc->label);
	kc->buf = calloc((size_t)cap, sizeof *kc->buf);
	kc->v = calloc((size_t)cap * 2, sizeof *kc->v);
	if (!kc->full || !kc->label || !kc->buf || !kc->v)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the kernel chart");
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < ak[a]->n_kernels; k++)
			segment_of(kc, ak[a]->kernels[k].name);
	int gaps = segment_of(kc, "launch gaps and host overhead");
	for (int a = 0; a < 2; a++) {
		double per = ak[a]->time.n ? 1e3 * ak[a]->time.n : NAN;
		for (int k = 0; k < ak[a]->n_kernels; k++)
			kc->v[a * kc->n + segment_of(kc, ak[a]->kernels[k].name)] = ak[a]->kernels[k].total_ns / per;
		kc->v[a * kc->n + gaps] = fmax(0, ak[a]->wall_ns - ak[a]->kernel_ns) / per;
	}
	for (int i = 0; i < kc->n; i++) {
		shorten(kc->full[i], kc->buf[i], sizeof kc->buf[i]);
		kc->label[i] = kc->buf[i];
	}
	return AB_OK;
}

static enum ab_rc chart_kernels(struct rpt *R, struct case_info *ci, struct ab_diag *d)
{
	const struct summary_arm *const ak[2] = { &ci->s->a, &ci->s->b };
	struct kchart kc = { 0 };
	char rows[2][48], title[160];
	const char *row_names[2] = { rows[0], rows[1] };
	snprintf(rows[0], sizeof rows[0], "A (%s)", R->run->arm_a);
	snprintf(rows[1], sizeof rows[1], "B (%s)", R->run->arm_b);
	snprintf(title, sizeof title, "%s: mean time per sample, per kernel", ci->c->name);
	snprintf(ci->kernels.stem, sizeof ci->kernels.stem, "kernels-%s", ci->stem);
	enum ab_rc rc = kchart_fill(&kc, ak, d);
	if (rc == AB_OK) {
		struct plot_stack p = { title, "us per sample", 2, kc.n, row_names, kc.label, kc.v };
		rc = wrote(R, &ci->kernels, plot_write_stacked(R->o->out_dir, ci->kernels.stem, &p, d), d);
	}
	kchart_free(&kc);
	return rc;
}

/* Box plot of every slot's samples, in microseconds. */
static enum ab_rc chart_samples(struct rpt *R, struct case_info *ci, struct ab_diag *d)
{
	const struct results_case *c = ci->c;
	int n = c->n_slots;
	double **vals = calloc((size_t)n + 1, sizeof *vals);
	int *nv = calloc((size_t)n + 1, sizeof *nv);
	const char **names = calloc((size_t)n + 1, sizeof *names);
	char title[160];
	enum ab_rc rc = AB_OK;

	snprintf(title, sizeof title, "%s: wall time per sample, per slot", c->name);
	snprintf(ci->samples.stem, sizeof ci->samples.stem, "samples-%s", ci->stem);
	if (!vals || !nv || !names)
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the sample chart");
	for (int i = 0; rc == AB_OK && i < n; i++) {
		const struct results_slot *s = &c->slots[i];
		names[i] = s->label;
		nv[i] = s->n_samples;
		if (!(vals[i] = malloc(((size_t)s->n_samples + 1) * sizeof **vals)))
			rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the sample chart");
		for (int j = 0; vals[i] && j < s->n_samples; j++)
			vals[i][j] = s->samples_ns[j] / 1e3;
	}
	if (rc == AB_OK) {
		struct plot_boxes p = { title, "us", n, names, (const double *const *)vals, nv };
		rc = wrote(R, &ci->samples, plot_write_boxes(R->o->out_dir, ci->samples.stem, &p, d), d);
	}
	for (int i = 0; vals && i < n; i++)
		free(vals[i]);
	free(vals);
	free(nv);
	free(names);
	return rc;
}

/* The arrays of one sweep chart: [series * n_points + point]. */
enum { SD_A, SD_A_LO, SD_A_HI, SD_B, SD_B_LO, SD_B_HI, SD_SP, SD_SP_LO, SD_SP_HI, SD_PCT_A, SD_PCT_B, SD_N };

struct sweep_data {
	double *x, *v[SD_N];
};

static void sweep_data_free(struct sweep_data *sd)
{
	free(sd->x);
	for (int k = 0; k < SD_N; k++)
		free(sd->v[k]);
}

/* Cell k from a case's summary (NULL: the series lacks the case). */
static void sweep_cell(struct sweep_data *sd, int k, const struct summary_case *s)
{
	if (!s) {
		for (int j = 0; j < SD_N; j++)
			sd->v[j][k] = NAN;
		return;
	}
	const double v[SD_N] = {
		s->a.time.median_ns / 1e3, s->a.median_ci.low / 1e3, s->a.median_ci.high / 1e3,
		s->b.time.median_ns / 1e3, s->b.median_ci.low / 1e3, s->b.median_ci.high / 1e3,
		s->speedup.point, s->speedup.low, s->speedup.high, s->a.bw.pct_copy, s->b.bw.pct_copy,
	};
	for (int j = 0; j < SD_N; j++)
		sd->v[j][k] = v[j];
}

static enum ab_rc sweep_fill(const struct rpt *R, const struct sweep_info *w, struct sweep_data *sd,
			     struct ab_diag *d)
{
	size_t cells = (size_t)w->n * (size_t)R->n_ser;
	bool ok = (sd->x = calloc((size_t)w->n, sizeof *sd->x)) != NULL;
	for (int k = 0; k < SD_N; k++)
		ok = (sd->v[k] = calloc(cells, sizeof *sd->v[k])) && ok;
	if (!ok)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the sweep chart of '%s'", w->name);
	for (int i = 0; i < w->n; i++)
		sd->x[i] = (double)R->ci[w->idx[i]].c->axis_value;
	for (int s = 0; s < R->n_ser; s++)
		for (int i = 0; i < w->n; i++)
			sweep_cell(sd, s * w->n + i, summary_find(R->ser[s], R->ci[w->idx[i]].c->name));
	return AB_OK;
}

static enum ab_rc chart_sweep(struct rpt *R, struct sweep_info *w, struct ab_diag *d)
{
	struct sweep_data sd = { 0 };
	char title[200], arm_a[48], arm_b[48];
	const char **names = calloc((size_t)R->n_ser, sizeof *names);
	if (!names)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the sweep chart of '%s'", w->name);
	for (int s = 0; s < R->n_ser; s++)
		names[s] = R->ser_name[s];
	snprintf(title, sizeof title, "%s: %s over %s", w->name, R->run->scenario_name, w->axis);
	snprintf(arm_a, sizeof arm_a, "A (%s)", R->run->arm_a);
	snprintf(arm_b, sizeof arm_b, "B (%s)", R->run->arm_b);
	snprintf(w->plot.stem, sizeof w->plot.stem, "sweep-%.60s", w->name);
	enum ab_rc rc = sweep_fill(R, w, &sd, d);
	if (rc == AB_OK) {
		struct plot_sweep p = {
			title, w->axis, w->n, R->n_ser, sd.x, names, { arm_a, arm_b },
			{ sd.v[SD_A], sd.v[SD_B] }, { sd.v[SD_A_LO], sd.v[SD_B_LO] }, { sd.v[SD_A_HI], sd.v[SD_B_HI] },
			sd.v[SD_SP], sd.v[SD_SP_LO], sd.v[SD_SP_HI], { sd.v[SD_PCT_A], sd.v[SD_PCT_B] },
		};
		rc = wrote(R, &w->plot, plot_write_sweep(R->o->out_dir, w->plot.stem, &p, d), d);
	}
	sweep_data_free(&sd);
	free(names);
	return rc;
}

static enum ab_rc charts(struct rpt *R, struct ab_diag *d)
{
	char why[256] = "charts turned off";
	if (!R->o->no_plots)
		R->have_gnuplot = plot_find_gnuplot(R->gnuplot, sizeof R->gnuplot, why, sizeof why);
	if (!R->have_gnuplot) {
		R->out->plots_skipped = true;
		snprintf(R->out->plots_note, sizeof R->out->plots_note, "%s", why);
	}
	enum ab_rc rc = chart_speedup(R, d);
	for (int i = 0; rc == AB_OK && i < R->n_sweeps; i++)
		rc = chart_sweep(R, &R->sw[i], d);
	for (int i = 0; rc == AB_OK && i < R->n; i++) {
		rc = chart_kernels(R, &R->ci[i], d);
		if (rc == AB_OK)
			rc = chart_samples(R, &R->ci[i], d);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* markdown sections                                                   */

static void put_plot(FILE *f, const struct rpt *R, const struct plot_ref *p, const char *alt)
{
	if (p->drawn) {
		fputs("![", f);
		md_cell(f, alt);
		fprintf(f, "](%s.png)\n\n", p->stem);
	} else if (p->written) {
		fprintf(f, "_Chart `%s.png` not drawn: ", p->stem);
		md_cell(f, p->note[0] ? p->note : R->out->plots_note);
		fprintf(f, ". Its data and script are `%s.dat` and `%s.gp`._\n\n", p->stem, p->stem);
	} else {
		fputs("_Chart not written: ", f);
		md_cell(f, p->note);
		fputs("._\n\n", f);
	}
}

static void put_speedup(FILE *f, const struct stats_interval *s)
{
	if (isnan(s->point))
		fputs("n/a", f);
	else if (isnan(s->low))
		fprintf(f, "**%.3fx** [n/a]", s->point);
	else
		fprintf(f, "**%.3fx** [%.3f, %.3f]", s->point, s->low, s->high);
}

static const char *exact_str(const struct summary_case *s)
{
	if (!s->n_outputs)
		return "n/a (no outputs recorded)";
	return s->n_not_exact ? "**no**" : "yes";
}

static void section_title(FILE *f, const struct rpt *R)
{
	const struct results_run *r = R->run;
	fputs("# ", f);
	md_code(f, r->arm_b);
	fputs(" vs ", f);
	md_code(f, r->arm_a);
	fputs(": scenario ", f);
	md_code(f, r->scenario_name);
	fputs(" on ", f);
	md_cell(f, r->device.name);
	fprintf(f, "\n\nRun %lld", (long long)r->id);
	if (r->label[0]) {
		fputs(" (label ", f);
		md_code(f, r->label);
		fputs(")", f);
	}
	fprintf(f, ", started %s, backend %s, commit ", r->started_at, r->backend);
	md_code(f, r->git_commit[0] ? r->git_commit : "unknown");
	fprintf(f, ". %d case%s, bracket %s, L2 %s before every sample.\n\n", r->n_cases, r->n_cases == 1 ? "" : "s",
		r->bracket, r->l2_flush ? "flushed" : "not flushed");
	if (r->quick)
		fputs("> **Quick run** (`--quick`): fewer samples than the scenario asks for. Do not quote these "
		      "numbers.\n\n", f);
	if (r->fake_timer)
		fputs("> **Fake timer** (`ABBENCH_FAKE_TIMER=1`): the times are the CPU backend's cost model, not "
		      "measurements.\n\n", f);
}

static void section_summary(FILE *f, const struct rpt *R)
{
	char ha[64], hb[64];
	snprintf(ha, sizeof ha, "A %s median [p10, p90] us", R->run->arm_a);
	snprintf(hb, sizeof hb, "B %s median [p10, p90] us", R->run->arm_b);
	const char *cols[] = { "case", "shape", ha, hb, "speedup A/B [95% CI]", "bit-exact" };
	fputs("## Summary\n\n", f);
	fprintf(f, "All slots of an arm pooled; speedup = median(A) / median(B) with a %.0f%% bootstrap interval "
		   "(%d resamples, fixed seed); bit-exact = every output of every slot byte-equal to the first A "
		   "slot's.\n\n", SUMMARY_CI_LEVEL * 100, SUMMARY_RESAMPLES);
	md_table_head(f, 6, cols, "llrrrc");
	for (int i = 0; i < R->n; i++) {
		const struct summary_case *s = R->ci[i].s;
		fputs("| ", f);
		md_code(f, s->c->name);
		fputs(" | ", f);
		md_cell(f, s->c->shape);
		fputs(" | ", f);
		md_spread(f, &s->a.time);
		fputs(" | ", f);
		md_spread(f, &s->b.time);
		fputs(" | ", f);
		put_speedup(f, &s->speedup);
		fprintf(f, " | %s |\n", exact_str(s));
	}
	fputs("\n", f);
	put_plot(f, R, &R->speedup, "speedup per case and device");
}

/* ---- bandwidth ---- */

static void put_bytes(FILE *f, int64_t bytes)
{
	char b[32];
	fputs(md_bytes((double)bytes, b, sizeof b), f);
}

/* "2873.4 (68.4%)", or with unit "2873.4 GB/s (68.4%)". */
static void put_gbps_unit(FILE *f, const struct bandwidth_arm *a, bool unit)
{
	if (isnan(a->gbps)) {
		fputs("n/a", f);
		return;
	}
	fprintf(f, "%.1f%s", a->gbps, unit ? " GB/s" : "");
	if (!isnan(a->pct_copy))
		fprintf(f, " (%.1f%%)", a->pct_copy);
}

static void put_gbps(FILE *f, const struct bandwidth_arm *a)
{
	put_gbps_unit(f, a, false);
}

static void copy_words(FILE *f, const struct bandwidth_ref *c)
{
	if (c->source == BANDWIDTH_NONE) {
		fputs("unknown (the run measured none and the device profile has no dram_gbps), so no percentage", f);
		return;
	}
	fprintf(f, "%.0f GB/s (", c->gbps);
	if (c->source == BANDWIDTH_MEASURED)
		fputs("measured by this run's backend, read + write", f);
	else {
		fputs("the device profile ", f);
		md_code(f, c->profile);
		fputs("'s dram_gbps: this run measured none", f);
	}
	fputc(')', f);
}

static void bandwidth_row(FILE *f, const struct summary_case *s)
{
	char fl[32];
	fputs("| ", f);
	md_code(f, s->c->name);
	fputs(" | ", f);
	put_bytes(f, s->c->bytes_a);
	fputs(" | ", f);
	put_bytes(f, s->c->bytes_b);
	fputs(" | ", f);
	put_bytes(f, s->c->bytes_min);
	fputs(" | ", f);
	put_gbps(f, &s->a.bw);
	fputs(" | ", f);
	put_gbps(f, &s->b.bw);
	fprintf(f, " | %s | ", md_us(s->floor_ns, fl, sizeof fl));
	if (isnan(s->floor_ns) || !(s->b.time.median_ns > 0))
		fputs("n/a |\n", f);
	else
		fprintf(f, "%.2fx |\n", s->b.time.median_ns / s->floor_ns);
}

static void section_bandwidth(FILE *f, const struct rpt *R)
{
	char ha[64], hb[64];
	snprintf(ha, sizeof ha, "A %s GB/s (%% of copy)", R->run->arm_a);
	snprintf(hb, sizeof hb, "B %s GB/s (%% of copy)", R->run->arm_b);
	const char *cols[] = { "case", "A bytes", "B bytes", "minimum bytes", ha, hb, "floor us", "B / floor" };
	fputs("## Bandwidth\n\nThe bytes each arm moves, as its site declares them (kernels/site.h): the `eager` "
	      "arm is credited with the eager chain's real traffic, every launch's reads and writes with the "
	      "intermediates; any other arm with the minimum, every input read once and every output written once. "
	      "GB/s = bytes / the arm's pooled median; % of copy = that over the device's copy bandwidth, ", f);
	copy_words(f, &R->S->copy);
	fputs(". The floor is the minimum bytes at the copy bandwidth: the time no arm beats by streaming; "
	      "B / floor is how far the B arm is from it.\n\n", f);
	md_table_head(f, 8, cols, "lrrrrrrr");
	for (int i = 0; i < R->n; i++)
		bandwidth_row(f, R->ci[i].s);
	fputc('\n', f);
}

/* ---- sweeps ---- */

/* "38.500 [37.912, 39.104] n=30" in us: a median, its interval (n/a
 * under 8 samples) and its sample count. */
static void put_med_ci(FILE *f, const struct summary_arm *a)
{
	char p[32], lo[32], hi[32];
	fprintf(f, "%s ", md_us(a->time.median_ns, p, sizeof p));
	if (isnan(a->median_ci.low))
		fputs("[n/a]", f);
	else
		fprintf(f, "[%s, %s]", md_us(a->median_ci.low, lo, sizeof lo), md_us(a->median_ci.high, hi, sizeof hi));
	fprintf(f, " n=%d", a->time.n);
}

static void sweep_row(FILE *f, const struct summary_case *s)
{
	fprintf(f, "| %lld | ", (long long)s->c->axis_value);
	put_med_ci(f, &s->a);
	fputs(" | ", f);
	put_med_ci(f, &s->b);
	fputs(" | ", f);
	put_speedup(f, &s->speedup);
	fputs(" | ", f);
	put_gbps(f, &s->a.bw);
	fputs(" | ", f);
	put_gbps(f, &s->b.bw);
	fputs(" |\n", f);
}

static void section_sweeps(FILE *f, const struct rpt *R)
{
	char ha[64], hb[64];
	if (!R->n_sweeps)
		return;
	snprintf(ha, sizeof ha, "A %s median us [95%% CI]", R->run->arm_a);
	snprintf(hb, sizeof hb, "B %s median us [95%% CI]", R->run->arm_b);
	fprintf(f, "## Sweeps\n\nEach swept case against its axis: the arms' medians with their 95%% "
		   "distribution-free intervals, the speedup with its bootstrap interval, and GB/s. The chart draws "
		   "them on a log2 axis: time per arm (band: the interval), speedup, and %% of copy bandwidth%s.\n\n",
		R->n_ser > 1 ? ", one colour per GPU (the runs of section Per GPU)" : "");
	for (int g = 0; g < R->n_sweeps; g++) {
		const struct sweep_info *w = &R->sw[g];
		const char *cols[] = { w->axis, ha, hb, "speedup A/B [95% CI]", "A GB/s (% of copy)", "B GB/s (% of copy)" };
		char alt[128];
		fputs("### ", f);
		md_code(f, w->name);
		fprintf(f, " over %s\n\n", w->axis);
		md_table_head(f, 6, cols, "rrrrrr");
		for (int i = 0; i < w->n; i++)
			sweep_row(f, R->ci[w->idx[i]].s);
		fputc('\n', f);
		snprintf(alt, sizeof alt, "%s over %s: time, speedup and %% of copy bandwidth", w->name, w->axis);
		put_plot(f, R, &w->plot, alt);
	}
}

/* ---- per GPU ---- */

static void per_gpu_cell(FILE *f, const struct summary_case *s)
{
	if (!s) {
		fputs("n/a", f);
		return;
	}
	put_speedup(f, &s->speedup);
	fputs(", B ", f);
	put_gbps_unit(f, &s->b.bw, true);
}

/* md5 of every output of every slot of the case, in every series that
 * has it, against series 0's. */
static void per_gpu_md5(FILE *f, const struct rpt *R, const struct results_case *c)
{
	int compared = 0, differ = 0, runs = 0;
	for (int s = 1; s < R->n_ser; s++) {
		const struct summary_case *o = summary_find(R->ser[s], c->name);
		int k = 0, x = 0;
		if (!o)
			continue;
		compare_md5_agreement(c, o->c, &k, &x);
		compared += k;
		differ += x;
		runs++;
	}
	if (!compared)
		fputs("n/a", f);
	else if (!differ)
		fprintf(f, "yes (%d outputs, %d run%s)", compared, runs, runs == 1 ? "" : "s");
	else
		fprintf(f, "**no** (%d of %d differ)", differ, compared);
}

static void per_gpu_runs(FILE *f, const struct rpt *R)
{
	for (int s = 0; s < R->n_ser; s++) {
		const struct results_run *r = R->ser[s]->run;
		const struct bandwidth_ref *c = &R->ser[s]->copy;
		fprintf(f, "- run %lld: ", (long long)r->id);
		md_cell(f, r->device.name);
		fprintf(f, " (backend %s, commit ", r->backend);
		md_code(f, r->git_commit[0] ? r->git_commit : "unknown");
		fprintf(f, ", started %s)%s%s, copy bandwidth ", r->started_at, r->quick ? ", **quick run**" : "",
			r->fake_timer ? ", **fake timer**" : "");
		if (c->source == BANDWIDTH_NONE)
			fputs("unknown\n", f);
		else
			fprintf(f, "%.0f GB/s (%s)\n", c->gbps, bandwidth_source_str(c->source));
	}
	fputc('\n', f);
}

static void section_per_gpu(FILE *f, const struct rpt *R)
{
	if (R->n_ser < 2)
		return;
	fprintf(f, "## Per GPU\n\nThe scenario's runs side by side, %s. Each cell: the speedup with its 95%% "
		   "bootstrap interval and the B arm's GB/s (%% of that device's copy bandwidth). md5: every output "
		   "of every slot compared with run %lld's, slot by slot and tensor by tensor.\n\n",
		R->o->peers_named ? "as named on the command line"
				  : "this one and the newest 'ok' run on each other device (quick and fake-timer runs "
				    "are left out unless named: `abbench report RUN RUN...`)",
		(long long)R->run->id);
	per_gpu_runs(f, R);
	fputs("| case |", f);
	for (int s = 0; s < R->n_ser; s++) {
		fputc(' ', f);
		md_cell(f, R->ser_name[s]);
		fputs(" |", f);
	}
	fputs(" md5 across GPUs |\n|---|", f);
	for (int s = 0; s < R->n_ser; s++)
		fputs("---:|", f);
	fputs(":---:|\n", f);
	for (int i = 0; i < R->n; i++) {
		fputs("| ", f);
		md_code(f, R->ci[i].c->name);
		fputs(" |", f);
		for (int s = 0; s < R->n_ser; s++) {
			fputc(' ', f);
			per_gpu_cell(f, summary_find(R->ser[s], R->ci[i].c->name));
			fputs(" |", f);
		}
		fputc(' ', f);
		per_gpu_md5(f, R, R->ci[i].c);
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

/* What the slot's noise is, in words, after the run's stopping rule. */
static const char *noise_words(const struct results_run *r)
{
	if (!strcmp(r->noise_measure, "median"))
		return "relative noise (half-width of the median's 95% interval over the median)";
	return "relative noise (stdev / mean)";
}

static void put_slot_cell(FILE *f, const struct results_slot *s)
{
	char m[32];
	if (!s || !s->n_samples)
		fputs("n/a", f);
	else
		fprintf(f, "%s ±%.2f%% n=%d", md_us(s->median_ns, m, sizeof m), s->noise * 100, s->n_samples);
}

static void put_drift(FILE *f, const struct rpt *R, double drift)
{
	const struct profile *p = R->o->profile;
	if (isnan(drift))
		fputs("n/a | not judged (one A slot)", f);
	else if (!p)
		fprintf(f, "%.2f%% | not judged (no device profile)", drift * 100);
	else if (drift > p->noise_floor)
		fprintf(f, "%.2f%% | **environmental drift**", drift * 100);
	else
		fprintf(f, "%.2f%% | ok", drift * 100);
}

static void bracket_intro(FILE *f, const struct rpt *R)
{
	fprintf(f, "## A/B/A brackets\n\nMedian of each slot in us, its %s and sample count. Drift = |A_k - A1| / "
		   "A1, the largest over the later A slots; ", noise_words(R->run));
	if (R->o->profile) {
		fprintf(f, "above the noise floor of %.2f%% (profile ", R->o->profile->noise_floor * 100);
		md_code(f, R->o->profile->name);
		fputs(") it is called environmental drift: the device changed under the measurement, and the "
		      "speedup of that case should not be trusted.\n\n", f);
	} else
		fputs("no device profile was found, so drift is shown but not judged.\n\n", f);
}

static void section_bracket(FILE *f, const struct rpt *R)
{
	const struct results_case *c0 = R->n ? R->ci[0].c : NULL;
	int ns = c0 ? c0->n_slots : 0;
	bracket_intro(f, R);
	fputs("| case |", f);
	for (int s = 0; s < ns; s++)
		fprintf(f, " %s |", c0->slots[s].label);
	fputs(" drift | verdict |\n|---|", f);
	for (int s = 0; s < ns + 1; s++)
		fputs("---:|", f);
	fputs("---|\n", f);
	for (int i = 0; i < R->n; i++) {
		fputs("| ", f);
		md_code(f, R->ci[i].c->name);
		fputs(" |", f);
		for (int s = 0; s < ns; s++) {
			fputc(' ', f);
			put_slot_cell(f, results_case_slot(R->ci[i].c, c0->slots[s].label));
			fputs(" |", f);
		}
		fputc(' ', f);
		put_drift(f, R, R->ci[i].s->drift);
		fputs(" |\n", f);
	}
	fputs("\n### Sample distributions\n\n", f);
	for (int i = 0; i < R->n; i++) {
		char alt[128];
		snprintf(alt, sizeof alt, "samples per slot of %s", R->ci[i].c->name);
		put_plot(f, R, &R->ci[i].samples, alt);
	}
}

static void kernel_row(FILE *f, const struct results_kernel *k, const struct summary_arm *ak)
{
	char t[32];
	fputs("| ", f);
	md_code(f, k->name);
	fputs(" | ", f);
	md_cell(f, k->family);
	fprintf(f, " | %s | %.2f%% | %.2f |\n", md_us(k->total_ns / ak->time.n, t, sizeof t),
		100 * k->total_ns / ak->wall_ns, (double)k->launches / ak->time.n);
}

/* One arm's attribution: the window line, then a row per kernel. */
static void arm_table(FILE *f, const char *which, const char *variant, const struct summary_arm *ak)
{
	static const char *const cols[] = { "kernel", "family", "self-time per sample (us)", "share of window",
					    "launches per sample" };
	char w[32], k[32];
	fprintf(f, "**%s (", which);
	md_code(f, variant);
	fputs(")**", f);
	if (!ak->time.n || !(ak->wall_ns > 0)) {
		fputs(": no samples.\n\n", f);
		return;
	}
	double ratio = ak->kernel_ns / ak->wall_ns;
	fprintf(f, ": window %s us per sample (mean wall time, n=%d); kernels sum to %s us, kernel sum / wall = "
		   "%.3f, so %.1f%% of the window is launch gaps and host overhead.",
		md_us(ak->wall_ns / ak->time.n, w, sizeof w), ak->time.n, md_us(ak->kernel_ns / ak->time.n, k, sizeof k),
		ratio, 100 * (1 - ratio));
	if (ak->kernel_records_bad)
		fprintf(f, " %lld kernel records had invalid timestamps and were not summed.",
			(long long)ak->kernel_records_bad);
	fputs("\n\n", f);
	if (!ak->n_kernels) {
		fputs("No kernel records for this arm.\n\n", f);
		return;
	}
	md_table_head(f, 5, cols, "llrrr");
	for (int i = 0; i < ak->n_kernels; i++)
		kernel_row(f, &ak->kernels[i], ak);
	fputc('\n', f);
}

static void kernels_of_case(FILE *f, const struct rpt *R, const struct case_info *ci)
{
	char alt[128];
	fputs("### ", f);
	md_code(f, ci->c->name);
	fputs("\n\n", f);
	arm_table(f, "A", R->run->arm_a, &ci->s->a);
	arm_table(f, "B", R->run->arm_b, &ci->s->b);
	snprintf(alt, sizeof alt, "per-kernel time of %s", ci->c->name);
	put_plot(f, R, &ci->kernels, alt);
}

static void section_kernels(FILE *f, const struct rpt *R)
{
	fputs("## Kernel attribution\n\nPer arm, all its slots together. Self-time is the kernel's own "
	      "execution time (CUPTI activity records on CUDA, per-step clocks on the CPU) averaged per sample; "
	      "the window is the sample's wall time, so the share of all kernels falls short of 100% by the "
	      "launch gaps.\n\n", f);
	for (int i = 0; i < R->n; i++)
		kernels_of_case(f, R, &R->ci[i]);
}

static void accuracy_row(FILE *f, const struct results_case *c, const struct results_slot *s, const struct results_output *o)
{
	fputs("| ", f);
	md_code(f, c->name);
	fprintf(f, " | %s | %c | ", s->label, s->arm == 'a' ? 'A' : 'B');
	md_code(f, o->tensor);
	fprintf(f, " | %lld | `%s` | %s | %lld | %.6g | %.4g | %s | %lld |\n", (long long)o->bytes, o->md5,
		o->bit_exact ? "yes" : "**no**", (long long)o->mismatches, o->max_abs_err, o->max_err_ratio,
		o->ref_ok ? "yes" : "**no**", (long long)o->ref_skipped);
}

static void section_accuracy(FILE *f, const struct rpt *R)
{
	static const char *const cols[] = { "case", "slot", "arm", "tensor", "bytes", "md5", "byte-equal",
					    "mismatches", "max abs err", "max err / tol", "ref ok", "skipped" };
	fputs("## Accuracy\n\nEvery output of every slot: its md5, whether its bytes equal those of the "
	      "bracket's first A slot (and how many elements differ), and the largest error against the float64 "
	      "reference computed from the same bf16 inputs, absolute and relative to the tolerance of a correct "
	      "float32 chain. Skipped: elements outside float32's range, not compared.\n\n", f);
	md_table_head(f, 12, cols, "llllrlcrrrcr");
	for (int i = 0; i < R->n; i++) {
		const struct results_case *c = R->ci[i].c;
		for (int s = 0; s < c->n_slots; s++)
			for (int k = 0; k < c->slots[s].n_outputs; k++)
				accuracy_row(f, c, &c->slots[s], &c->slots[s].outputs[k]);
	}
	fputc('\n', f);
}

static void projection_row(FILE *f, const struct summary_case *s)
{
	char a[32], b[32], sv[32];
	fputs("| ", f);
	md_code(f, s->c->name);
	fprintf(f, " | %d | %s | %s | %s |\n", s->c->count, md_us(s->per_step.a_ns, a, sizeof a),
		md_us(s->per_step.b_ns, b, sizeof b), md_us(s->per_step.saving_ns, sv, sizeof sv));
}

static void section_projection(FILE *f, const struct rpt *R)
{
	static const char *const cols[] = { "case", "count per forward", "A per step (us)", "B per step (us)",
					    "saving per step (us)" };
	const struct summary_run *S = R->S;
	char a[32], b[32], s[32];
	fputs("## Model-level projection\n\n", f);
	if (!S->have_model) {
		fputs("The scenario has no [model] section (steps, forwards_per_step): no projection.\n\n", f);
		return;
	}
	fprintf(f, "From the scenario's [model] section: %d steps per image, %d forwards per step. Per step, each "
		   "case contributes count x forwards per step x its median; only the measured sites are counted, "
		   "the rest of the model is not.\n\n", S->run->steps, S->run->forwards_per_step);
	md_table_head(f, 5, cols, "lrrrr");
	for (int i = 0; i < S->n_cases; i++)
		projection_row(f, &S->cases[i]);
	fprintf(f, "| **total** | | %s | %s | **%s** |\n\n", md_us(S->per_step.a_ns, a, sizeof a),
		md_us(S->per_step.b_ns, b, sizeof b), md_us(S->per_step.saving_ns, s, sizeof s));
	fprintf(f, "Per image (%d steps): A %.3f ms, B %.3f ms, saving **%.3f ms** (%.1f%% of these sites' time).\n\n",
		S->run->steps, S->per_image.a_ns / 1e6, S->per_image.b_ns / 1e6, S->per_image.saving_ns / 1e6,
		isnan(S->saving_fraction) ? 0.0 : 100 * S->saving_fraction);
}

/* NVML clocks-event reason bits (nvml.h, nvmlClocksEventReason*). */
static const struct {
	uint64_t bit;
	const char *name;
	bool slows; /* the clock was held down by power, heat or hardware */
} throttle_bits[] = {
	{ 0x1, "idle", false },
	{ 0x2, "applications clocks", false },
	{ 0x4, "sw power cap", true },
	{ 0x8, "hw slowdown", true },
	{ 0x10, "sync boost", false },
	{ 0x20, "sw thermal", true },
	{ 0x40, "hw thermal", true },
	{ 0x80, "hw power brake", true },
	{ 0x100, "display clocks", false },
};

static bool put_throttle(FILE *f, uint64_t mask)
{
	bool first = true, slowed = false;
	for (size_t i = 0; i < sizeof throttle_bits / sizeof throttle_bits[0]; i++) {
		if (!(mask & throttle_bits[i].bit))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", throttle_bits[i].name);
		first = false;
		slowed |= throttle_bits[i].slows;
	}
	if (first)
		fputs("none", f);
	return slowed;
}

static void put_clocks(FILE *f, const struct results_clocks *c)
{
	if (!c->valid)
		fputs("n/a | n/a | n/a | n/a", f);
	else {
		fprintf(f, "%d | %d | %d | ", c->sm_mhz, c->mem_mhz, c->temp_c);
		if (put_throttle(f, c->throttle_reasons))
			fputs(" **(throttled)**", f);
	}
}

static bool any_clocks(const struct results_run *r)
{
	for (int i = 0; i < r->n_cases; i++)
		for (int s = 0; s < r->cases[i].n_slots; s++)
			if (r->cases[i].slots[s].clocks_before.valid || r->cases[i].slots[s].clocks_after.valid)
				return true;
	return false;
}

static void clocks_table(FILE *f, const struct rpt *R)
{
	static const char *const cols[] = { "case", "slot", "SM MHz before", "mem MHz before", "temp C before",
					    "clock events before", "SM MHz after", "mem MHz after", "temp C after",
					    "clock events after" };
	fputs("### Clocks\n\n", f);
	if (!any_clocks(R->run)) {
		fprintf(f, "Clocks were not recorded (backend %s has no NVML readings).\n\n", R->run->backend);
		return;
	}
	fprintf(f, "SM and memory clocks, temperature and NVML clock-event reasons before and after each slot "
		   "(default SM clock %d MHz).\n\n", R->run->device.default_sm_mhz);
	md_table_head(f, 10, cols, "llrrrlrrrl");
	for (int i = 0; i < R->n; i++) {
		const struct results_case *c = R->ci[i].c;
		for (int s = 0; s < c->n_slots; s++) {
			fputs("| ", f);
			md_code(f, c->name);
			fprintf(f, " | %s | ", c->slots[s].label);
			put_clocks(f, &c->slots[s].clocks_before);
			fputs(" | ", f);
			put_clocks(f, &c->slots[s].clocks_after);
			fputs(" |\n", f);
		}
	}
	fputc('\n', f);
}

static void device_list(FILE *f, const struct rpt *R)
{
	const struct results_device *v = &R->run->device;
	fputs("### Device\n\n- device: ", f);
	md_cell(f, v->name);
	fprintf(f, " (backend %s", v->backend);
	if (v->uuid[0])
		fprintf(f, ", uuid `%s`", v->uuid);
	fputs(")\n", f);
	if (v->cc_major)
		fprintf(f, "- compute capability %d.%d, %d SMs, L2 %lld bytes, memory %lld bytes\n", v->cc_major,
			v->cc_minor, v->sm_count, (long long)v->l2_bytes, (long long)v->mem_bytes);
	fputs("- driver ", f);
	md_cell(f, v->driver_version[0] ? v->driver_version : "n/a");
	fputs(", runtime ", f);
	md_cell(f, v->runtime_version[0] ? v->runtime_version : "n/a");
	fputc('\n', f);
	if (v->copy_gbps > 0)
		fprintf(f, "- measured copy bandwidth (read + write): %.1f GB/s\n", v->copy_gbps);
}

static void profile_list(FILE *f, const struct rpt *R)
{
	const struct profile *p = R->o->profile;
	if (p) {
		fputs("- device profile ", f);
		md_code(f, p->name);
		fprintf(f, " (`profiles/%s`): noise floor %.2f%%, gate threshold %.2f%%", p->file, p->noise_floor * 100,
			p->gate_max_regression_pct);
		if (p->dram_gbps > 0)
			fprintf(f, ", copy bandwidth ceiling %.0f GB/s", p->dram_gbps);
		if (p->sm_count > 0)
			fprintf(f, ", %d SMs, L2 %lld bytes", p->sm_count, (long long)p->l2_bytes);
		fputc('\n', f);
	}
	if (R->o->profile_note) {
		char clean[512];
		fputs("- profile note: ", f);
		md_cell(f, md_scrub_paths(R->o->profile_note, clean, sizeof clean));
		fputc('\n', f);
	}
}

static void put_scrubbed(FILE *f, const char *label, const char *text)
{
	char clean[4096];
	fprintf(f, "- %s: ", label);
	md_code(f, md_scrub_paths(text && *text ? text : "n/a", clean, sizeof clean));
	fputc('\n', f);
}

static void run_list(FILE *f, const struct results_run *r)
{
	fprintf(f, "\n### Run\n\n- run %lld, status %s, started %s, finished %s\n", (long long)r->id, r->status,
		r->started_at, r->finished_at);
	fputs("- abbench ", f);
	md_cell(f, r->version[0] ? r->version : "n/a");
	fputs(", commit ", f);
	md_code(f, r->git_commit[0] ? r->git_commit : "unknown");
	fputs(", host ", f);
	md_cell(f, r->host);
	fputs("\n", f);
	fputs("- scenario ", f);
	md_code(f, r->scenario_name);
	fprintf(f, ", sha256 `%s`\n", r->scenario_hash);
	put_scrubbed(f, "scenario file", r->scenario_path);
	put_scrubbed(f, "command line", r->command_line);
	fprintf(f, "- bracket %s, arms A = ", r->bracket);
	md_code(f, r->arm_a);
	fputs(", B = ", f);
	md_code(f, r->arm_b);
	fprintf(f, ", L2 flush %s, launch gaps %s, quick %s, fake timer %s, stopping noise %s, device index %d\n\n",
		r->l2_flush ? "on" : "off", r->launch_gaps[0] ? r->launch_gaps : "n/a", r->quick ? "yes" : "no",
		r->fake_timer ? "yes" : "no", r->noise_measure[0] ? r->noise_measure : "n/a", r->device_index);
}

static void sampling_table(FILE *f, const struct rpt *R)
{
	static const char *const cols[] = { "case", "slot", "variant", "warm-up", "samples", "discarded",
					    "stopped by", "slot time (s)", "noise" };
	fprintf(f, "### Sampling\n\nSamples kept per slot and the rule that ended the slot (target_noise, "
		   "noise_converged, max_samples or max_time); noise is the %s; discarded samples failed the throttle "
		   "probe.\n\n", noise_words(R->run));
	md_table_head(f, 9, cols, "lllrrrlrr");
	for (int i = 0; i < R->n; i++) {
		const struct results_case *c = R->ci[i].c;
		for (int k = 0; k < c->n_slots; k++) {
			const struct results_slot *s = &c->slots[k];
			fputs("| ", f);
			md_code(f, c->name);
			fprintf(f, " | %s | ", s->label);
			md_code(f, s->variant);
			fprintf(f, " | %d | %d | %d | ", s->warmup, s->n_samples, s->n_discarded);
			md_cell(f, s->stopping_reason);
			fprintf(f, " | %.3f | %.2f%% |\n", s->elapsed_s, s->noise * 100);
		}
	}
	fputc('\n', f);
}

static void notes_list(FILE *f, const struct rpt *R)
{
	char clean[1024];
	int discarded = R->S->n_discarded;
	fputs("### Notes\n\n", f);
	fprintf(f, "- %d sample%s discarded by the throttle probe\n", discarded, discarded == 1 ? "" : "s");
	if (R->run->notes[0]) {
		fputs("- ", f);
		md_cell(f, md_scrub_paths(R->run->notes, clean, sizeof clean));
		fputc('\n', f);
	}
	if (R->out->plots_skipped || R->out->n_plot_failures) {
		fputs("- charts: ", f);
		md_cell(f, R->out->plots_skipped ? "skipped: " : "some failed: ");
		md_cell(f, R->out->plots_note);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void section_provenance(FILE *f, const struct rpt *R)
{
	fputs("## Provenance\n\n", f);
	device_list(f, R);
	profile_list(f, R);
	run_list(f, R->run);
	clocks_table(f, R);
	sampling_table(f, R);
	notes_list(f, R);
}

static enum ab_rc write_markdown(const struct rpt *R, struct ab_diag *d)
{
	struct md_file mf;
	char path[4096];
	if (snprintf(path, sizeof path, "%s/report.md", R->o->out_dir) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	enum ab_rc rc = md_file_open(&mf, path, d);
	if (rc != AB_OK)
		return rc;
	section_title(mf.f, R);
	section_summary(mf.f, R);
	section_bandwidth(mf.f, R);
	section_sweeps(mf.f, R);
	section_per_gpu(mf.f, R);
	section_bracket(mf.f, R);
	section_kernels(mf.f, R);
	section_accuracy(mf.f, R);
	section_projection(mf.f, R);
	section_provenance(mf.f, R);
	return md_file_commit(&mf, d);
}

enum ab_rc report_write(const struct summary_run *S, const struct report_options *o, struct report_outcome *out,
			struct ab_diag *d)
{
	const struct results_run *run = S->run;
	struct rpt R = { .S = S, .run = run, .o = o, .out = out };
	memset(out, 0, sizeof *out);
	if (strcmp(run->status, "ok"))
		return ab_fail(d, AB_ERR_DATA, "run %lld is '%s', not 'ok': nothing to report", (long long)run->id,
			       run->status);
	enum ab_rc rc = md_mkdirs(o->out_dir, d);
	if (rc == AB_OK)
		rc = derive(&R, d);
	if (rc == AB_OK)
		rc = charts(&R, d);
	if (rc == AB_OK)
		rc = write_markdown(&R, d);
	for (int i = 0; i < R.n_sweeps; i++)
		free(R.sw[i].idx);
	free(R.sw);
	free(R.ser);
	free(R.ser_name);
	free(R.ci);
	return rc;
}

int report_pick_peers(const struct results_run_summary *runs, int n, const struct results_run *run, int64_t *ids, int max)
{
	int k = 0;
	for (int i = 0; i < n && k < max; i++) {
		const struct results_run_summary *s = &runs[i];
		bool seen = !strcmp(s->device, run->device.name);
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(runs[j].device, s->device) && !strcmp(runs[j].status, "ok") &&
			       !strcmp(runs[j].scenario_name, run->scenario_name) && !runs[j].quick &&
			       !runs[j].fake_timer;
		if (!seen && !strcmp(s->status, "ok") && !strcmp(s->scenario_name, run->scenario_name) && !s->quick &&
		    !s->fake_timer && !run->fake_timer)
			ids[k++] = s->id;
	}
	return k;
}

void report_default_dir(int64_t run_id, char *buf, size_t len)
{
	snprintf(buf, len, "reports/run-%lld", (long long)run_id);
}

void report_default_dir_runs(const int64_t *ids, int n, char *buf, size_t len)
{
	if (n <= 1) {
		report_default_dir(n ? ids[0] : 0, buf, len);
		return;
	}
	size_t used = (size_t)snprintf(buf, len, "reports/runs");
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "-%lld", (long long)ids[i]);
}
