/*
 * report_charts.c - the report's charts from a run's summary: the data
 * plot.c needs, arranged per chart; then gnuplot.
 */
#include "print/report_charts.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/attrib.h"
#include "print/md.h"
#include "print/plot.h"

#define STEM_MAX 64
#define LABEL_MAX 48

struct charter {
	const struct summary_run *S;
	const struct report_options *o;
	struct report_outcome *res;
	struct report_charts *out;
	char (*stems)[STEM_MAX];
	bool have_gnuplot;
	char gnuplot[PATH_MAX];
};

/* A file-name-safe stem for case i, unique among the first i cases. */
static void make_stem(struct charter *C, int i)
{
	char *s = C->stems[i];
	const char *name = C->S->cases[i].c->name;
	size_t k = 0;
	for (; name[k] && k < STEM_MAX - 8; k++) {
		char ch = name[k];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			  ch == '-' || ch == '_' || ch == '.';
		s[k] = ok && !(k == 0 && ch == '.') ? ch : '_';
	}
	s[k] = '\0';
	for (int j = 0; j < i; j++)
		if (!strcmp(C->stems[j], s)) {
			snprintf(s + k, STEM_MAX - k, "-%d", i + 1);
			break;
		}
}

static void failed(struct charter *C, struct report_chart *p, const char *msg)
{
	char clean[300];
	md_scrub_paths(msg, clean, sizeof clean);
	snprintf(p->note, sizeof p->note, "%s", clean);
	if (!C->res->plots_note[0])
		snprintf(C->res->plots_note, sizeof C->res->plots_note, "%s", clean);
}

/* Runs gnuplot on a written chart and records the outcome. */
static void render(struct charter *C, struct report_chart *p)
{
	struct ab_diag d = { "" };
	if (!p->written || !C->have_gnuplot)
		return;
	if (plot_render(C->gnuplot, C->o->out_dir, p->stem, &d) != AB_OK) {
		C->res->n_plot_failures++;
		failed(C, p, d.msg);
		return;
	}
	p->drawn = true;
	C->res->n_plots++;
}

/* Records the result of a plot_write_* call; only NOMEM and IO stop the
 * report (a chart without data is noted in the text instead). */
static enum ab_rc wrote(struct charter *C, struct report_chart *p, enum ab_rc rc, struct ab_diag *d)
{
	if (rc == AB_OK) {
		p->written = true;
		render(C, p);
		return AB_OK;
	}
	if (rc == AB_ERR_NOMEM || rc == AB_ERR_IO)
		return rc;
	failed(C, p, d->msg);
	return AB_OK;
}

/* ---- speedup bars ---- */

struct bars_data {
	double *value, *low, *high;
	const char **rows, **notes, **series;
	char (*series_buf)[160];
};

static void bars_free(struct bars_data *b)
{
	free(b->value);
	free(b->low);
	free(b->high);
	free(b->rows);
	free(b->notes);
	free(b->series);
	free(b->series_buf);
}

/* Column s of the bars from the summary of run S (this run or a peer). */
static void speedup_series(const struct summary_run *own, const struct summary_run *S, int s, int ns,
			   struct bars_data *b)
{
	snprintf(b->series_buf[s], sizeof b->series_buf[s], "%s (run %lld)", S->run->device.name,
		 (long long)S->run->id);
	b->series[s] = b->series_buf[s];
	for (int i = 0; i < own->n_cases; i++) {
		const struct summary_case *c = summary_find(S, own->cases[i].c->name);
		int k = i * ns + s;
		b->value[k] = c ? c->speedup.point : NAN;
		b->low[k] = c ? c->speedup.low : NAN;
		b->high[k] = c ? c->speedup.high : NAN;
	}
}

static enum ab_rc chart_speedup(struct charter *C, struct ab_diag *d)
{
	struct bars_data b = { 0 };
	const struct summary_run *S = C->S;
	int n = S->n_cases, ns = 1 + C->o->n_peers;
	size_t cells = (size_t)n * (size_t)ns + 1;
	snprintf(C->out->speedup.stem, sizeof C->out->speedup.stem, "speedup");
	b.value = calloc(cells, sizeof *b.value);
	b.low = calloc(cells, sizeof *b.low);
	b.high = calloc(cells, sizeof *b.high);
	b.rows = calloc((size_t)n + 1, sizeof *b.rows);
	b.notes = calloc((size_t)n + 1, sizeof *b.notes);
	b.series = calloc((size_t)ns, sizeof *b.series);
	b.series_buf = calloc((size_t)ns, sizeof *b.series_buf);
	enum ab_rc rc = AB_OK;
	if (!b.value || !b.low || !b.high || !b.rows || !b.notes || !b.series || !b.series_buf)
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the speedup chart");
	if (rc == AB_OK) {
		for (int i = 0; i < n; i++) {
			b.rows[i] = S->cases[i].c->name;
			b.notes[i] = S->cases[i].c->shape;
		}
		speedup_series(S, S, 0, ns, &b);
		for (int s = 1; s < ns; s++)
			speedup_series(S, C->o->peers[s - 1], s, ns, &b);
		struct plot_bars p = { "speedup median(A) / median(B) per case and device, 95% bootstrap interval "
				       "(none under 10 samples an arm)",
				       "speedup (x)", n, ns, b.rows, b.series, b.value, b.low, b.high, 1.0, b.notes, "%.2fx" };
		rc = wrote(C, &C->out->speedup, plot_write_bars(C->o->out_dir, "speedup", &p, d), d);
	}
	bars_free(&b);
	return rc;
}

/* ---- kernels stacked per arm ---- */

/* The stacked kernel chart of one case: a bar per arm, a segment per
 * kernel (mean self-time per sample) plus the rest of the window. */
struct kchart {
	int n;                 /* segments, gaps included */
	const char **full;     /* kernel names (union over both arms) */
	const char **label;    /* "family: operation" for the key */
	char (*buf)[LABEL_MAX + 8];
	double *v;             /* [2][n] */
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

/* "elementwise: mul" for a kernel; two kernels with one label get "(2)". */
static void label_kernel(struct kchart *kc, int i, const char *family)
{
	char op[LABEL_MAX];
	attrib_operation(kc->full[i], op, sizeof op);
	if (!family)
		snprintf(kc->buf[i], sizeof kc->buf[i], "%.*s", LABEL_MAX, kc->full[i]);
	else if (!op[0] || !strcmp(op, family))
		snprintf(kc->buf[i], sizeof kc->buf[i], "%.*s", LABEL_MAX, family);
	else
		snprintf(kc->buf[i], sizeof kc->buf[i], "%.20s: %.*s", family, LABEL_MAX - 22, op);
	for (int j = 0, k = 2; j < i; j++)
		if (!strcmp(kc->buf[j], kc->buf[i])) {
			size_t used = strlen(kc->buf[i]);
			snprintf(kc->buf[i] + used, sizeof kc->buf[i] - used, " (%d)", k++);
			j = -1;
		}
	kc->label[i] = kc->buf[i];
}

static const char *family_of(const struct summary_arm *const ak[2], const char *name)
{
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < ak[a]->n_kernels; k++)
			if (!strcmp(ak[a]->kernels[k].name, name))
				return ak[a]->kernels[k].family;
	return NULL;
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
	for (int i = 0; i < kc->n; i++)
		label_kernel(kc, i, i == gaps ? NULL : family_of(ak, kc->full[i]));
	return AB_OK;
}

static enum ab_rc chart_kernels(struct charter *C, int i, struct ab_diag *d)
{
	const struct summary_case *s = &C->S->cases[i];
	const struct summary_arm *const ak[2] = { &s->a, &s->b };
	struct report_chart *ch = &C->out->cases[i].kernels;
	struct kchart kc = { 0 };
	char rows[2][48], title[160];
	const char *row_names[2] = { rows[0], rows[1] };
	snprintf(rows[0], sizeof rows[0], "A (%s)", C->S->run->arm_a);
	snprintf(rows[1], sizeof rows[1], "B (%s)", C->S->run->arm_b);
	snprintf(title, sizeof title, "%s: mean time per sample, per kernel (family: operation)", s->c->name);
	snprintf(ch->stem, sizeof ch->stem, "kernels-%s", C->stems[i]);
	enum ab_rc rc = kchart_fill(&kc, ak, d);
	if (rc == AB_OK) {
		struct plot_stack p = { title, "us per sample", 2, kc.n, row_names, kc.label, kc.v };
		rc = wrote(C, ch, plot_write_stacked(C->o->out_dir, ch->stem, &p, d), d);
	}
	kchart_free(&kc);
	return rc;
}

/* ---- the slots' samples: boxes and time series ---- */

/* Every slot of a case, its samples in us, the panel of its arm (A 0, B 1)
 * and its start on the bracket's time line. */
struct slots_data {
	int n;
	double **vals;
	int *nv, *panel, *start;
	bool *second;
	const char **names, **notes;
	char (*key)[48];
};

static void slots_free(struct slots_data *sd)
{
	for (int i = 0; sd->vals && i < sd->n; i++)
		free(sd->vals[i]);
	free(sd->vals);
	free(sd->nv);
	free(sd->panel);
	free(sd->start);
	free(sd->second);
	free(sd->names);
	free(sd->notes);
	free(sd->key);
}

static enum ab_rc slots_fill(const struct results_case *c, struct slots_data *sd, struct ab_diag *d)
{
	size_t m = (size_t)c->n_slots + 1;
	sd->n = c->n_slots;
	sd->vals = calloc(m, sizeof *sd->vals);
	sd->nv = calloc(m, sizeof *sd->nv);
	sd->panel = calloc(m, sizeof *sd->panel);
	sd->start = calloc(m, sizeof *sd->start);
	sd->second = calloc(m, sizeof *sd->second);
	sd->names = calloc(m, sizeof *sd->names);
	sd->notes = calloc(m, sizeof *sd->notes);
	sd->key = calloc(m, sizeof *sd->key);
	if (!sd->vals || !sd->nv || !sd->panel || !sd->start || !sd->second || !sd->names || !sd->notes || !sd->key)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the sample charts");
	for (int i = 0, at = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		sd->names[i] = s->label;
		sd->notes[i] = s->variant;
		snprintf(sd->key[i], sizeof sd->key[i], "%s %s", s->label, s->variant);
		sd->nv[i] = s->n_samples;
		sd->panel[i] = sd->second[i] = s->arm == 'b';
		sd->start[i] = at;
		at += s->n_samples;
		if (!(sd->vals[i] = malloc(((size_t)s->n_samples + 1) * sizeof **sd->vals)))
			return ab_fail(d, AB_ERR_NOMEM, "out of memory for the sample charts");
		for (int j = 0; j < s->n_samples; j++)
			sd->vals[i][j] = s->samples_ns[j] / 1e3;
	}
	return AB_OK;
}

static int panels_of(const struct slots_data *sd)
{
	bool b = false;
	for (int i = 0; i < sd->n; i++)
		b = b || sd->panel[i];
	return b ? 2 : 1;
}

static enum ab_rc chart_slots(struct charter *C, int i, struct ab_diag *d)
{
	const struct results_case *c = C->S->cases[i].c;
	struct report_case_charts *ch = &C->out->cases[i];
	struct slots_data sd = { 0 };
	char t1[160], t2[160], pa[64], pb[64], ya[64], yb[64];
	const char *panels[2] = { pa, pb }, *ylabels[2] = { ya, yb };
	snprintf(t1, sizeof t1, "%s: wall time per sample, per slot (each arm zoomed to its p1-p99)", c->name);
	snprintf(t2, sizeof t2, "%s: every sample in bracket order, each slot's median dashed", c->name);
	snprintf(pa, sizeof pa, "A (%s)", C->S->run->arm_a);
	snprintf(pb, sizeof pb, "B (%s)", C->S->run->arm_b);
	snprintf(ya, sizeof ya, "A (%s), us", C->S->run->arm_a);
	snprintf(yb, sizeof yb, "B (%s), us", C->S->run->arm_b);
	snprintf(ch->samples.stem, sizeof ch->samples.stem, "samples-%s", C->stems[i]);
	snprintf(ch->series.stem, sizeof ch->series.stem, "series-%s", C->stems[i]);
	enum ab_rc rc = slots_fill(c, &sd, d);
	if (rc == AB_OK) {
		const char **key = calloc((size_t)sd.n + 1, sizeof *key);
		for (int k = 0; key && k < sd.n; k++)
			key[k] = sd.key[k];
		struct plot_boxes pbx = { t1, "us", sd.n, sd.names, sd.notes, (const double *const *)sd.vals, sd.nv,
					  panels_of(&sd), sd.panel, panels };
		struct plot_series psr = { t2, "sample, in the order the bracket took them", "us", sd.n, key,
					   (const double *const *)sd.vals, sd.nv, sd.start, sd.second, panels_of(&sd),
					   sd.panel, ylabels };
		rc = key ? wrote(C, &ch->samples, plot_write_boxes(C->o->out_dir, ch->samples.stem, &pbx, d), d)
			 : ab_fail(d, AB_ERR_NOMEM, "out of memory for the sample charts");
		if (rc == AB_OK)
			rc = wrote(C, &ch->series, plot_write_series(C->o->out_dir, ch->series.stem, &psr, d), d);
		free(key);
	}
	slots_free(&sd);
	return rc;
}

enum ab_rc report_charts_write(const struct summary_run *s, const struct report_options *o, struct report_charts *out,
			       struct report_outcome *res, struct ab_diag *d)
{
	struct charter C = { .S = s, .o = o, .res = res, .out = out };
	char why[256] = "charts turned off";
	memset(out, 0, sizeof *out);
	out->n = s->n_cases;
	out->cases = calloc((size_t)s->n_cases + 1, sizeof *out->cases);
	C.stems = calloc((size_t)s->n_cases + 1, sizeof *C.stems);
	if (!out->cases || !C.stems) {
		free(C.stems);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report's charts");
	}
	if (!o->no_plots)
		C.have_gnuplot = plot_find_gnuplot(C.gnuplot, sizeof C.gnuplot, why, sizeof why);
	if (!C.have_gnuplot) {
		res->plots_skipped = true;
		snprintf(res->plots_note, sizeof res->plots_note, "%s", why);
	}
	for (int i = 0; i < s->n_cases; i++)
		make_stem(&C, i);
	enum ab_rc rc = chart_speedup(&C, d);
	for (int i = 0; rc == AB_OK && i < s->n_cases; i++) {
		rc = chart_kernels(&C, i, d);
		if (rc == AB_OK)
			rc = chart_slots(&C, i, d);
	}
	free(C.stems);
	return rc;
}

void report_charts_free(struct report_charts *c)
{
	free(c->cases);
	c->cases = NULL;
	c->n = 0;
}
