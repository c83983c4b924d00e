/*
 * export_csv.c - a run's (case, slot) rows as CSV (the format: figure_fmt.h):
 * the columns are the figures the CSV view places, each cell by its hint.
 */
#include "print/figure_fmt.h"

#include <math.h>
#include <string.h>

#include <csv.h>

#include "print/escape.h"

struct row {
	FILE *f;
	int n; /* fields written on the current line */
};

/* A field, text guarded against formulas (escape.h); libcsv's parser (like
 * most) trims blanks around unquoted fields, so those are quoted too. */
static void put(struct row *w, const char *v, bool text)
{
	char buf[1024];
	if (text && escape_csv_formula(v)) {
		snprintf(buf, sizeof buf, "'%s", v);
		v = buf;
	}
	size_t n = strlen(v);
	if (w->n++)
		fputc(',', w->f);
	if ((n && (strchr(" \t", v[0]) || strchr(" \t", v[n - 1]))) || strpbrk(v, ",\"\r\n"))
		csv_fwrite(w->f, v, n);
	else
		fputs(v, w->f);
}

/* x as figure_fmt.h says: integral as an integer, else %.15g; NAN empty. */
static void put_real(struct row *w, double x)
{
	char buf[40] = "";
	if (isfinite(x) && x == nearbyint(x) && fabs(x) < 9.2e18)
		snprintf(buf, sizeof buf, "%.0f", x);
	else if (!isnan(x))
		snprintf(buf, sizeof buf, "%.15g", x);
	put(w, buf, false);
}

/* A figure's cells, by its hint, or with v NULL their heads (one writer,
 * so that a row and the header agree): an interval and a second value in
 * the columns after it. */
static void put_figure(struct row *w, const struct figure *f, const struct figure_value *v)
{
	char k[64];
	if (!v)
		put(w, f->key, true);
	else if (f->hint == FIGURE_TEXT || f->hint == FIGURE_NAME || f->hint == FIGURE_DIGEST ||
		 f->hint == FIGURE_VERDICT)
		put(w, v->text ? v->text : "", true);
	else if (f->hint == FIGURE_FLAG)
		put(w, v->absent ? "" : v->x ? "1" : "0", false);
	else
		put_real(w, v->absent ? NAN : v->x);
	for (int e = 0; f->ci && e < 2; e++) {
		snprintf(k, sizeof k, "%s%s", f->key, e ? "_high" : "_low");
		if (v)
			put_real(w, e ? v->hi : v->lo);
		else
			put(w, k, true);
	}
	if (f->key2 && v)
		put_real(w, v->x2);
	else if (f->key2)
		put(w, f->key2, true);
}

enum ab_rc export_csv_print(const struct printer_job *job, struct ab_diag *d)
{
	const struct summary_run *S = job->summary;
	const struct figure *cols[FIGURE_MAX];
	int n = figure_view_rows(FIGURE_IN_CSV, cols, FIGURE_MAX);
	struct row w = { job->f, 0 };
	for (int k = 0; k < n; k++)
		put_figure(&w, cols[k], NULL);
	fputc('\n', w.f);
	for (int i = 0; i < S->n_cases; i++)
		for (int j = 0; j < S->cases[i].n_slots; j++) {
			const struct summary_case *c = &S->cases[i];
			struct figure_at at = { S, c, c->slots[j].slot->arm == 'a' ? &c->a : &c->b, &c->slots[j] };
			w.n = 0;
			for (int k = 0; k < n; k++) {
				struct figure_value v;
				figure_value_of(cols[k], &at, &v);
				put_figure(&w, cols[k], &v);
			}
			fputc('\n', w.f);
		}
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the CSV") : AB_OK;
}
