/*
 * report_divergence.c - where a report's cases are not bit-exact: the
 * accuracy view's table and the heatmaps (report_divergence.h).
 */
#include "print/report_divergence.h"

#include <stdlib.h>
#include <string.h>

#include "print/diff_print.h"
#include "print/escape.h"
#include "print/figure_fmt.h"
#include "print/heatmap.h"
#include "print/md.h"
#include "print/plot.h"

/* The stored divergence the summary names for case c (its most differing
 * B output), NULL when none. */
static const struct results_divergence *stored(const struct summary_case *c)
{
	const struct summary_divergence *v = &c->div;
	for (int i = 0; v->slot && v->tensor && i < c->c->n_slots; i++) {
		const struct results_slot *s = &c->c->slots[i];
		for (int k = 0; strcmp(s->label, v->slot) == 0 && k < s->n_div; k++)
			if (!strcmp(s->div[k].tensor, v->tensor))
				return &s->div[k];
	}
	return NULL;
}

/* "heatmap-CASE-B-out", unique among out[0..i). */
static void stem_of(const struct summary_case *c, int i, struct report_chart *out)
{
	char raw[200];
	snprintf(raw, sizeof raw, "heatmap-%s-%s-%s", c->c->name, c->div.slot, c->div.tensor);
	escape_stem(raw, out[i].stem, sizeof out[i].stem - 12);
	for (int j = 0; j < i; j++)
		if (!strcmp(out[j].stem, out[i].stem)) {
			snprintf(out[i].stem + strlen(out[i].stem), 12, "-%d", i + 1);
			break;
		}
}

enum ab_rc report_divergence_heatmaps(const char *dir, const struct summary_run *S, const char *gnuplot,
				      const char *why_not, struct report_chart *out, struct ab_diag *d)
{
	int drawn = 0;
	for (int i = 0; i < S->n_cases && drawn < REPORT_HEATMAPS_MAX; i++) {
		const struct summary_case *c = &S->cases[i];
		const struct results_divergence *v = diff_case_differs(c) ? stored(c) : NULL;
		struct ab_diag hd = { "" };
		char title[300];
		if (!v || !v->map)
			continue;
		drawn++;
		stem_of(c, i, out);
		snprintf(title, sizeof title, "%s, %s: '%s' elements not byte-equal to A1 (%lld of %lld)", c->c->name,
			 c->div.slot, v->tensor, (long long)v->n_diff, (long long)v->elems);
		enum ab_rc rc = heatmap_write(dir, out[i].stem, title, v, gnuplot, &hd);
		if (rc == AB_ERR_NOMEM || rc == AB_ERR_IO) {
			*d = hd;
			return rc;
		}
		out[i].written = rc == AB_OK || rc == AB_ERR_DATA; /* DATA: gnuplot failed on written files */
		out[i].drawn = rc == AB_OK && gnuplot;
		md_scrub_paths(rc ? hd.msg : why_not ? why_not : "", out[i].note, sizeof out[i].note);
	}
	return AB_OK;
}

static void put_heatmap(FILE *f, const struct summary_case *c, const struct report_chart *h)
{
	char alt[300];
	if (!h || !h->written)
		return;
	snprintf(alt, sizeof alt, "%s: where '%s' of slot %s differs, per row", c->c->name, c->div.tensor, c->div.slot);
	report_chart_md(f, h, alt, "Heatmap", "gnuplot did not run");
}

void report_divergence_section(FILE *f, const struct summary_run *S, const struct report_chart *heatmaps,
			       bool compact)
{
	int *idx = malloc(((size_t)S->n_cases + 1) * sizeof *idx), n = 0, swept = 0;
	char line[600];
	if (!idx) { /* a stream error: the report's render fails on it */
		fputs("## Where the bits differ\n\n_Out of memory._\n\n", f);
		return;
	}
	for (int i = 0; i < S->n_cases; i++)
		if (diff_case_differs(&S->cases[i]))
			idx[n++] = i;
	for (int w = 0; w < S->n_sweeps; w++)
		swept += S->sweeps[w].invariance != SUMMARY_INVARIANCE_NOT_CHECKED;
	if (!n && !swept) {
		free(idx);
		return;
	}
	fputs("## Where the bits differ\n\n", f);
	if (n) {
		const struct figure_fmt_md_table t = { FIGURE_IN_ACCURACY, "case", false, compact };
		fprintf(f, "%d of %d cases are not bit-exact (a B output not byte-equal to the first A slot's, or an arm "
			   "whose outputs changed between its calls), not batch-invariant, or depart from the eager chain in "
			   "an intermediate. Per case, its most differing B "
			   "output: elements that differ, the largest distance in ULPs of the dtype and where (the "
			   "coordinates in the site's axes), the first difference in memory order, NaN/Inf against another "
			   "class, rows (vectors along the last axis) holding a difference, the first stage of the eager "
			   "chain that departs, and of the differing elements the share nearer the float64 reference in "
			   "B. `abbench diff RUN CASE` prints the whole report of a case.\n\n",
			n, S->n_cases);
		figure_fmt_md_table(f, &t, S, idx, n);
		fputc('\n', f);
	}
	for (int w = 0; w < S->n_sweeps; w++) {
		const struct summary_sweep *sw = &S->sweeps[w];
		if (sw->invariance == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		diff_invariance(S, &S->cases[sw->idx[0]], line, sizeof line);
		md_printf(f, "- `%s`: %s\n", sw->name, line);
	}
	if (swept)
		fputc('\n', f);
	for (int k = 0; heatmaps && k < n; k++)
		put_heatmap(f, &S->cases[idx[k]], &heatmaps[idx[k]]);
	free(idx);
}
