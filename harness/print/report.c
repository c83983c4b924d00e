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

struct rpt {
	const struct summary_run *S;
	const struct results_run *run;
	const struct report_options *o;
	struct report_outcome *out;
	int n;
	struct case_info *ci;
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
	return AB_OK;
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
	char (*series_buf)[160];
};

static void bars_free(struct bars_data *b)
{
	free(b->value);
	free(b->low);
	free(b->high);
	free(b->rows);
	free(b->series);
	free(b->series_buf);
}

/* Fills column s of the bars from the summary of run S (this run or a peer). */
static void speedup_series(struct rpt *R, const struct summary_run *S, int s, int ns, struct bars_data *b)
{
	snprintf(b->series_buf[s], sizeof b->series_buf[s], "%s (run %lld)", S->run->device.name,
		 (long long)S->run->id);
	b->series[s] = b->series_buf[s];
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
	b->series_buf = calloc((size_t)ns, sizeof *b->series_buf);
	if (!b->value || !b->low || !b->high || !b->rows || !b->series || !b->series_buf)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the speedup chart");
	for (int i = 0; i < R->n; i++)
		b->rows[i] = R->ci[i].c->name;
	speedup_series(R, R->S, 0, ns, b);
	for (int s = 1; s < ns; s++)
		speedup_series(R, R->o->peers[s - 1], s, ns, b);
	return AB_OK;
}

static enum ab_rc chart_speedup(struct rpt *R, struct ab_diag *d)
{
	struct bars_data b = { 0 };
	int ns = 1 + R->o->n_peers;
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
	fputs("## A/B/A brackets\n\nMedian of each slot in us, its relative noise (stdev / mean) and sample "
	      "count. Drift = |A_k - A1| / A1, the largest over the later A slots; ", f);
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
	fprintf(f, ", L2 flush %s, launch gaps %s, quick %s\n\n", r->l2_flush ? "on" : "off",
		r->launch_gaps[0] ? r->launch_gaps : "n/a", r->quick ? "yes" : "no");
}

static void sampling_table(FILE *f, const struct rpt *R)
{
	static const char *const cols[] = { "case", "slot", "variant", "warm-up", "samples", "discarded",
					    "stopped by", "slot time (s)", "noise" };
	fputs("### Sampling\n\nSamples kept per slot and the rule that ended the slot (target_noise, "
	      "noise_converged, max_samples or max_time); discarded samples failed the throttle probe.\n\n", f);
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
			       !strcmp(runs[j].scenario_name, run->scenario_name);
		if (!seen && !strcmp(s->status, "ok") && !strcmp(s->scenario_name, run->scenario_name))
			ids[k++] = s->id;
	}
	return k;
}

void report_default_dir(int64_t run_id, char *buf, size_t len)
{
	snprintf(buf, len, "reports/run-%lld", (long long)run_id);
}
