/*
 * export_csv.c - a run's (case, slot) rows as CSV, written atomically.
 *
 * The format is documented in export_csv.h. The file is an outfile
 * (common/outfile.h): write errors are sticky on the FILE, so they are
 * checked once, after the last row, by outfile_commit.
 */
#include "print/export_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "common/outfile.h"

static const char *const header[] = {
	"case", "site", "shape", "dtype", "arm", "slot", "samples", "median_ns", "p10_ns",
	"p90_ns", "md5", "bit_exact", "variant", "eps", "input", "stopping_reason", "discarded", "noise",
	"mean_ns", "min_ns", "max_ns", "kernel_median_ns", "mismatches", "max_abs_err",
	"max_err_ratio", "ref_ok", "run_id", NULL,
};

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

static void put(struct row *w, const char *v)
{
	if (w->n++)
		fputc(',', w->f);
	if (needs_quotes(v))
		csv_fwrite(w->f, v, strlen(v));
	else
		fputs(v, w->f);
}

static void put_i64(struct row *w, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	put(w, buf);
}

/* Shortest %.Ng (N = 15..17) that reads back to x; NAN is empty. */
static void put_real(struct row *w, double x)
{
	char buf[40] = "";
	for (int prec = 15; !isnan(x) && prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	put(w, buf);
}

static void end_row(struct row *w)
{
	fputc('\n', w->f);
	w->n = 0;
}

/* The '+'-joined md5s and the all-outputs verdicts of one slot. */
struct out_summary {
	char md5[RESULTS_MAX_OUTPUTS * 33 + 1];
	int64_t mismatches;
	double max_abs_err, max_err_ratio; /* fmax: NAN only when all are */
	bool bit_exact, ref_ok;
};

static void summarize_outputs(const struct results_slot *s, struct out_summary *o)
{
	*o = (struct out_summary){ .max_abs_err = NAN, .max_err_ratio = NAN, .bit_exact = true, .ref_ok = true };
	for (int i = 0; i < s->n_outputs && i < RESULTS_MAX_OUTPUTS; i++) {
		const struct results_output *x = &s->outputs[i];
		if (i)
			strcat(o->md5, "+");
		strncat(o->md5, x->md5, 32);
		o->mismatches += x->mismatches;
		o->max_abs_err = fmax(o->max_abs_err, x->max_abs_err);
		o->max_err_ratio = fmax(o->max_err_ratio, x->max_err_ratio);
		o->bit_exact = o->bit_exact && x->bit_exact;
		o->ref_ok = o->ref_ok && x->ref_ok;
	}
}

/* A verdict over all outputs; empty when the slot has none. */
static void put_verdict(struct row *w, const struct results_slot *s, int64_t v)
{
	if (s->n_outputs > 0)
		put_i64(w, v);
	else
		put(w, "");
}

static void write_slot_row(struct row *w, const struct results_run *r, const struct results_case *c,
			   const struct results_slot *s)
{
	struct out_summary o;
	char arm[2] = { s->arm, '\0' };
	summarize_outputs(s, &o);
	put(w, c->name);
	put(w, c->site);
	put(w, c->shape);
	put(w, c->dtype);
	put(w, arm);
	put(w, s->label);
	put_i64(w, s->n_samples);
	put_real(w, s->median_ns);
	put_real(w, s->p10_ns);
	put_real(w, s->p90_ns);
	put(w, o.md5);
	put_verdict(w, s, o.bit_exact);
	put(w, s->variant);
	put_real(w, c->eps);
	put(w, c->input);
	put(w, s->stopping_reason);
	put_i64(w, s->n_discarded);
	put_real(w, s->noise);
	put_real(w, s->mean_ns);
	put_real(w, s->min_ns);
	put_real(w, s->max_ns);
	put_real(w, s->kernel_median_ns);
	put_verdict(w, s, o.mismatches);
	put_real(w, o.max_abs_err);
	put_real(w, o.max_err_ratio);
	put_verdict(w, s, o.ref_ok);
	put_i64(w, r->id);
	end_row(w);
}

static void write_rows(FILE *f, const struct results_run *r)
{
	struct row w = { f, 0 };
	for (int i = 0; header[i]; i++)
		put(&w, header[i]);
	end_row(&w);
	for (int i = 0; i < r->n_cases; i++)
		for (int j = 0; j < r->cases[i].n_slots; j++)
			write_slot_row(&w, r, &r->cases[i], &r->cases[i].slots[j]);
}

enum ab_rc export_csv_write(const struct results_run *r, const char *path, struct ab_diag *d)
{
	struct outfile of;
	enum ab_rc rc = outfile_open(&of, path ? path : "-", d);
	if (rc)
		return rc;
	errno = 0;
	write_rows(of.f, r);
	return outfile_commit(&of, d);
}
