/*
 * export_csv.c - a run's (case, slot) rows as CSV, written atomically: the
 * columns are the figures the CSV view places (analysis/figures.h), each
 * formatted by its hint.
 *
 * The format is documented in export_csv.h. The stream is the printer
 * job's (print/printer.h: standard output, or an outfile whose write
 * errors, sticky on the FILE, are checked once by its commit).
 */
#include "print/export_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "analysis/figures.h"
#include "print/escape.h"

struct row {
	FILE *f;
	int n; /* fields written on the current line */
};

/* libcsv's parser (like most) trims blanks around unquoted fields, so
 * those are quoted too. */
static int needs_quotes(const char *v)
{
	size_t n = strlen(v);
	if (n && (strchr(" \t", v[0]) || strchr(" \t", v[n - 1])))
		return 1;
	return strpbrk(v, ",\"\r\n") != NULL;
}

/* A field as it is: numbers, and text known to be safe. */
static void put_raw(struct row *w, const char *v)
{
	if (w->n++)
		fputc(',', w->f);
	if (needs_quotes(v))
		csv_fwrite(w->f, v, strlen(v));
	else
		fputs(v, w->f);
}

/* A text field: one that a spreadsheet would take for a formula (it
 * starts with = + - @, a tab or a CR) gets a leading ' (escape.h). */
static void put(struct row *w, const char *v)
{
	char buf[1024];
	if (!escape_csv_formula(v)) {
		put_raw(w, v);
		return;
	}
	snprintf(buf, sizeof buf, "'%s", v);
	put_raw(w, buf);
}

/* x to 15 significant digits (%.15g), NAN empty. Every double holds at
 * least 15 decimal digits exactly, so a figure computed from decimal
 * inputs prints as they do ("25252297.5", not the "25252297.500000022"
 * that the shortest round-trip form, 17 digits, showed of a median's
 * last bit). */
static void put_real(struct row *w, double x)
{
	char buf[40] = "";
	if (isfinite(x) && x == nearbyint(x) && fabs(x) < 9.2e18)
		snprintf(buf, sizeof buf, "%.0f", x); /* integral ns stay plain integers */
	else if (!isnan(x))
		snprintf(buf, sizeof buf, "%.15g", x);
	put_raw(w, buf);
}

static void end_row(struct row *w)
{
	fputc('\n', w->f);
	w->n = 0;
}

/* A figure's cells, by its hint: text quoted and guarded against formulas,
 * numbers as put_real, a flag 1 or 0, an unknown figure empty; an interval
 * and a second value in the columns after it. */
static void put_figure(struct row *w, const struct figure *f, const struct figure_value *v)
{
	switch (f->hint) {
	case FIGURE_TEXT: case FIGURE_NAME: case FIGURE_DIGEST: case FIGURE_VERDICT:
		put(w, v->text ? v->text : "");
		return;
	case FIGURE_FLAG:
		put_raw(w, v->absent ? "" : v->x ? "1" : "0");
		return;
	default:
		put_real(w, v->absent ? NAN : v->x);
	}
	if (f->ci) {
		put_real(w, v->lo);
		put_real(w, v->hi);
	}
	if (f->key2)
		put_real(w, v->x2);
}

static void put_head(struct row *w, const struct figure *f)
{
	char k[64];
	put(w, f->key);
	if (f->ci) {
		snprintf(k, sizeof k, "%s_low", f->key);
		put(w, k);
		snprintf(k, sizeof k, "%s_high", f->key);
		put(w, k);
	}
	if (f->key2)
		put(w, f->key2);
}

static void write_rows(FILE *f, const struct summary_run *S)
{
	const struct figure *cols[FIGURE_MAX];
	int n = figure_view_rows(FIGURE_IN_CSV, cols, FIGURE_MAX);
	struct row w = { f, 0 };
	for (int k = 0; k < n; k++)
		put_head(&w, cols[k]);
	end_row(&w);
	for (int i = 0; i < S->n_cases; i++) {
		const struct summary_case *c = &S->cases[i];
		for (int j = 0; j < c->n_slots; j++) {
			const struct summary_slot *sl = &c->slots[j];
			struct figure_at at = { S, c, sl->slot->arm == 'a' ? &c->a : &c->b, sl };
			for (int k = 0; k < n; k++) {
				struct figure_value v;
				figure_value_of(cols[k], &at, &v);
				put_figure(&w, cols[k], &v);
			}
			end_row(&w);
		}
	}
}

enum ab_rc export_csv_print(const struct printer_job *job, struct ab_diag *d)
{
	write_rows(job->f, job->summary);
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the CSV") : AB_OK;
}
