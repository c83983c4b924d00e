/*
 * diff_print.c - `abbench diff` as text and as markdown, and the sentences
 * both say (figure_fmt.h).
 */
#include "print/figure_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "analysis/divergence.h"
#include "common/results_check.h"
#include "common/ulp.h"
#include "print/md.h"
#include "print/plot.h"

#define LINE 1024

/* Appends to buf (cut at len). */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* A share in %: two decimals, or two significant digits below 0.01%
 * (one element of a million is 0.0001%, not 0.00%). */
static const char *pct_text(double pct, char *buf, size_t len)
{
	snprintf(buf, len, pct > 0 && pct < 0.01 ? "%.2g%%" : "%.2f%%", pct);
	return buf;
}

/* "1.2578125 (0x3fa1)", "-inf (0xff80)", "NaN (0x7fff)"; an integer as it is. */
static void value_text(enum site_dtype dt, double v, int64_t bits, char *buf, size_t len)
{
	int digits = dt == SITE_F32 ? 8 : 4;
	if (site_dtype_is_int(dt))
		snprintf(buf, len, "%" PRId64, bits);
	else if (isnan(v))
		snprintf(buf, len, "NaN (0x%0*" PRIx64 ")", digits, (uint64_t)bits);
	else
		snprintf(buf, len, "%.9g (0x%0*" PRIx64 ")", v, digits, (uint64_t)bits);
}

/* "HEAD at [b=0, t=3, w=5] (element 197): A 1.5 (0x3fc0), B 1.5078125
 * (0x3fc1), reference 1.503"; none where x is not present. */
static void elem_text(const struct divergence_tensor *t, const struct divergence_value *x, const char *head,
		      const char *none, char *buf, size_t len)
{
	char where[160], a[64], b[64];
	if (!x->present) {
		snprintf(buf, len, "%s", none);
		return;
	}
	divergence_coords_text(&x->where, x->index, where, sizeof where);
	value_text(t->dtype, x->a, x->a_bits, a, sizeof a);
	value_text(t->dtype, x->b, x->b_bits, b, sizeof b);
	snprintf(buf, len, "%sat %s (element %" PRId64 "): A %s, B %s", head, where, x->index, a, b);
	if (!t->v->has_ref)
		add(buf, len, ", no reference");
	else
		add(buf, len, ", reference %.9g", x->ref);
}

/* The labels of a tensor's sentences, in text and in markdown. */
enum { T_COUNT, T_HIST, T_CLASSES, T_MAX_ULP, T_MAX_ABS, T_FIRST, T_ROWS, T_REF, T_LINES };
static const char *const tensor_label[T_LINES][2] = {
	{ "elements", "elements differing" }, { "ULPs", "ULP histogram" }, { "classes", "classes" },
	{ "largest ULP", "largest ULP" }, { "largest |B-A|", "largest abs. difference" },
	{ "first", "first difference" }, { "rows", "rows" }, { "reference", "float64 reference" },
};

/* A tensor's title ("out (output, bf16, [B,T,W] = [1,64,64])") and its
 * sentences in its sink's frame; then its heatmap where drawn (the file
 * named by slot, the slot's label, and the tensor's name). */
static void tensor_print(FILE *f, bool md, const struct divergence_tensor *t, const char *slot, bool drawn)
{
	static const char *const cols[] = { "figure", "value" };
	void (*put)(FILE *, const char *, ...) = md ? md_printf : term_printf;
	const struct results_divergence *v = t->v;
	char title[256], L[T_LINES][400] = { "" }, head[40], p[32], stem[96];
	snprintf(title, sizeof title, "%s (%s, %s, [%s] = [%s])", v->tensor, v->role, v->dtype, v->axes, v->dims);
	snprintf(L[T_COUNT], 400, "%" PRId64 " of %" PRId64 " elements differ (%s)", v->n_diff, v->elems,
		 pct_text(t->pct, p, sizeof p));
	for (int k = 0; k < RESULTS_ULP_BUCKETS; k++)
		add(L[T_HIST], 400, "%s%s: %" PRId64, k ? " | " : "", ulp_bucket_name(k), v->ulp_hist[k]);
	snprintf(L[T_CLASSES], 400, "class mismatches (NaN/Inf/finite) %" PRId64 ", NaN payloads %" PRId64
		 ", sign flips %" PRId64, v->n_class, v->n_nan_bits, v->n_sign);
	snprintf(head, sizeof head, "%" PRId64 " ULP ", v->max_ulp);
	elem_text(t, &t->max_ulp, head, "none (every difference is a class mismatch or a NaN payload)", L[T_MAX_ULP],
		  400);
	snprintf(head, sizeof head, "%.9g ", v->max_abs);
	elem_text(t, &t->max_abs, head, "none (no differing pair is finite on both sides)", L[T_MAX_ABS], 400);
	elem_text(t, &t->first, "", "none", L[T_FIRST], 400);
	if (t->first.ulp >= 0)
		add(L[T_FIRST], 400, "; %" PRId64 " ULP", t->first.ulp);
	else
		add(L[T_FIRST], 400, "; %s",
		    ulp_class_of(t->dtype, t->first.a_bits) == ulp_class_of(t->dtype, t->first.b_bits)
			    ? "NaN payloads differ"
			    : "a class mismatch");
	snprintf(L[T_ROWS], 400, "%" PRId64 " of %" PRId64 " rows hold a difference (%s); map %d x %d (%s, ",
		 v->rows_touched, v->rows, pct_text(t->rows_pct, p, sizeof p), v->map_rows, v->map_cols,
		 v->map_by_head ? "rows x heads" : "rows x row blocks");
	add(L[T_ROWS], 400, "%" PRId64 " row%s a line, %" PRId64 " %s a column)", v->map_row_bin,
	    v->map_row_bin == 1 ? "" : "s", v->map_col_bin, v->map_by_head ? "head(s)" : "element(s)");
	if (!v->has_ref)
		snprintf(L[T_REF], 400, "no reference");
	else if (!v->ref_compared)
		snprintf(L[T_REF], 400, "no differing element is finite on both sides with a finite reference");
	else
		snprintf(L[T_REF], 400, "B is the nearer on %.1f%% of the %" PRId64 " compared (A on %.1f%%, "
			 "equally near %.1f%%)", t->b_closer_pct, v->ref_compared,
			 100.0 * (double)v->a_closer / (double)v->ref_compared,
			 100.0 * (double)(v->ref_compared - v->a_closer - v->b_closer) / (double)v->ref_compared);
	put(f, md ? "\n#### %s\n\n" : "  %s\n", title);
	if (md)
		md_table_head(f, 2, cols, "ll");
	for (int i = 0; i < T_LINES; i++)
		put(f, md ? "| %s | %s |\n" : "    %-14s %s\n", tensor_label[i][md], L[i]);
	if (!drawn)
		return;
	heatmap_stem(slot, v->tensor, stem, sizeof stem);
	if (md)
		md_printf(f, "\n![heatmap of %s]", title);
	/* the stem as it is (escape_stem's bytes): md_cell would escape its '_' */
	fprintf(f, md ? "(%s.png)\n" : "    heatmap        %s.png\n", stem);
}

/* A slot's sentences in its sink's frame: its head ("B (mss_inexact): not
 * byte-equal to A1"), what it compared with A1 in the chain's order and
 * the first stage that departs, and its determinism (its hashed calls and
 * how many differed). */
static void slot_print(FILE *f, bool md, const struct divergence_slot *s)
{
	const struct results_slot_check *k = &s->slot->check;
	char head[LINE], compared[LINE] = "", det[LINE];
	bool exact = true;
	for (int o = 0; o < s->slot->n_outputs; o++)
		exact = exact && s->slot->outputs[o].bit_exact;
	snprintf(head, LINE, "%s (%s): %s%s", s->slot->label, s->slot->variant,
		 exact ? "outputs byte-equal to the first A slot's" : "not byte-equal to the first A slot",
		 s->nondeterministic ? "; NONDETERMINISTIC" : "");
	if (!s->n_compared)
		snprintf(compared, LINE, "nothing compared (the first A slot)");
	for (int c = 0; c < s->n_compared; c++) {
		bool differs = false;
		for (int i = 0; i < s->slot->n_div; i++)
			differs = differs || s->slot->div[i].stage == c;
		add(compared, LINE, "%s%s %s", c ? ", " : "", s->compared[c], differs ? "DIFFERS" : "equal");
	}
	if (s->n_compared && s->departure >= 0) /* the first A slot compares nothing, departs from nothing */
		add(compared, LINE, "; the first stage that departs: '%s'", s->compared[s->departure]);
	if (s->n_compared && s->n_compared == s->slot->n_outputs)
		add(compared, LINE, " (both arms write none of the chain's intermediates: outputs only)");
	if (!k->calls_checked)
		snprintf(det, LINE, "not checked (a run stored before schema 10)");
	else if (!k->calls_differ)
		snprintf(det, LINE, "deterministic: the outputs of its %d hashed calls (samples 1-4, every power of "
			 "two, the last) are alike", k->calls_checked);
	else
		snprintf(det, LINE, "NONDETERMINISTIC: %d of its %d hashed calls (samples 1-4, every power of two, "
			 "the last) gave other outputs than the first; first at sample %d ('%s')", k->calls_differ,
			 k->calls_checked, k->first_differ, k->differ_tensor);
	(md ? md_printf : term_printf)(f, md ? "\n### %s\n\n- compared with A1: %s\n- determinism: %s\n"
				     : "\n%s\n  compared       %s\n  determinism    %s\n", head, compared, det);
	if (!md && !s->n_tensors && s->slot->n_div)
		fputs("                 (no divergence of the tensor asked for in this slot)\n", f);
}

void diff_invariance(const struct summary_run *S, const struct summary_case *c, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int w = 0; S && w < S->n_sweeps; w++) {
		const struct summary_sweep *sw = &S->sweeps[w];
		if (strcmp(sw->name, c->c->sweep) || sw->invariance == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		if (sw->invariance == SUMMARY_INVARIANCE_YES) {
			snprintf(buf, len, "batch-invariant: yes across %s = ", sw->axis);
			for (int i = 0; i < sw->n; i++)
				add(buf, len, "%s%" PRId64, i ? ", " : "", S->cases[sw->idx[i]].c->axis_value);
		} else {
			const struct results_case *b = S->cases[sw->break_case].c;
			snprintf(buf, len, "batch-invariant: NO: arm %c's row %" PRId64 " of '%s' at %s = %" PRId64
				 " differs from the same row at %s = %" PRId64, sw->break_arm, sw->break_row,
				 sw->break_tensor ? sw->break_tensor : "", sw->axis, b->axis_value, sw->axis,
				 sw->break_other);
		}
		if (sw->n_checked < sw->n)
			add(buf, len, " (%d of the sweep's %d cases compared)", sw->n_checked, sw->n);
		return;
	}
}

bool diff_case_differs(const struct summary_case *c)
{
	return c->verdict == SUMMARY_CASE_NOT_EXACT || c->inv.verdict == SUMMARY_INVARIANCE_NO || c->div.departure;
}

void diff_case_line(const struct summary_case *c, char *buf, size_t len)
{
	const struct summary_divergence *v = &c->div;
	char p[32];
	if (!v->measured)
		snprintf(buf, len, "B: not byte-equal; where it differs was not measured (a run stored before "
			 "schema 10)");
	else if (!v->tensor)
		snprintf(buf, len, "B: byte-equal to A1");
	else
		snprintf(buf, len, "B: %" PRId64 " of %" PRId64 " elements of '%s' differ (%s)", v->n_diff, v->elems,
			 v->tensor, pct_text(v->pct, p, sizeof p));
	if (v->measured && v->tensor && v->max_ulp)
		add(buf, len, ", max %" PRId64 " ULP", v->max_ulp);
	if (v->measured && v->n_class)
		add(buf, len, ", %" PRId64 " NaN/Inf where the other side is of another class", v->n_class);
	if (v->departure)
		add(buf, len, "; departs at '%s'", v->departure);
	if (c->det.nondeterministic)
		add(buf, len, "; NONDETERMINISTIC: %s, %d of %d calls differed", c->det.slot, c->det.calls_differ,
		    c->det.calls);
	else if (c->det.slots_checked)
		add(buf, len, "; deterministic");
}

/* The case's lines before its slots: the run and the case, where B
 * differs, its sweep's batch invariance (where checked), the slots that
 * are byte-equal with calls alike. Returns how many. */
static int case_lines(const struct printer_diff *p, char lines[4][LINE])
{
	const struct results_case *c = p->rep->c;
	char list[RESULTS_MAX_SLOTS * sizeof c->slots->label] = ""; /* every label of a bracket fits */
	int n = 2;
	snprintf(lines[0], LINE, "run %lld, case '%s': site %s, shape %s, a %s, b %s", (long long)p->rep->run->id,
		 c->name, c->site, c->shape, c->arm_a, c->arm_b);
	diff_case_line(p->sc, lines[1], LINE);
	diff_invariance(p->summary, p->sc, lines[n], LINE);
	n += lines[n][0] != '\0';
	for (int i = 0; i < c->n_slots; i++) {
		bool listed = false;
		for (int k = 0; k < p->rep->n_slots; k++)
			listed = listed || p->rep->slots[k].slot == &c->slots[i];
		if (!listed)
			add(list, sizeof list, "%s%s", list[0] ? " " : "", c->slots[i].label);
	}
	snprintf(lines[n], LINE, "byte-equal to the first A slot, calls alike: %s", list[0] ? list : "none");
	return n + 1;
}

/* The report in text (each sentence through escape_term: term_printf)
 * or markdown (md_printf): the same sentences, each sink's own frame. */
static enum ab_rc diff_print(const struct printer_job *job, bool md, struct ab_diag *d)
{
	const struct printer_diff *p = job->diff;
	void (*put)(FILE *, const char *, ...) = md ? md_printf : term_printf;
	FILE *f = job->f;
	char lines[4][LINE];
	if (md)
		md_printf(f, "## Where the bits differ: `%s`\n\n", p->rep->c->name);
	for (int i = 0, n = case_lines(p, lines); i < n; i++)
		put(f, md ? "- %s\n" : "%s\n", lines[i]);
	if (!p->rep->measured)
		fputs(md ? "\nThis run stored no divergences (abbench before schema 10).\n"
			 : "this run stored no divergences (abbench before schema 10): only the count of differing "
			   "elements is known (abbench show)\n",
		      f);
	for (int s = 0; s < p->rep->n_slots; s++) {
		const struct divergence_slot *sl = &p->rep->slots[s];
		slot_print(f, md, sl);
		for (int t = 0; t < sl->n_tensors; t++)
			tensor_print(f, md, &sl->tensors[t], sl->slot->label,
				     p->drawn && p->drawn[s * RESULTS_MAX_DIV + t]);
	}
	if (p->heatmap_note)
		put(f, md ? "\nHeatmaps: %s\n" : "\nheatmaps: %s\n", p->heatmap_note);
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the divergence report") : AB_OK;
}

enum ab_rc diff_print_text(const struct printer_job *job, struct ab_diag *d)
{
	return diff_print(job, false, d);
}

enum ab_rc diff_print_markdown(const struct printer_job *job, struct ab_diag *d)
{
	return diff_print(job, true, d);
}
