/*
 * export_csv.c - a run's (case, slot) rows as CSV, written atomically.
 *
 * The format is documented in export_csv.h. The stream is the printer
 * job's (print/printer.h: standard output, or an outfile whose write
 * errors, sticky on the FILE, are checked once by its commit).
 */
#include "print/export_csv.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "print/escape.h"

static const char *const header[] = {
	"case", "site", "shape", "dtype", "arm", "slot", "samples", "median_ns", "p10_ns",
	"p90_ns", "md5", "bit_exact", "variant", "eps", "input", "stopping_reason", "discarded", "noise",
	"mean_ns", "min_ns", "max_ns", "kernel_median_ns", "mismatches", "max_abs_err",
	"max_err_ratio", "ref_ok", "run_id", "arm_samples", "arm_median_ns", "arm_p10_ns", "arm_p90_ns", "speedup",
	"speedup_low", "speedup_high", "drift", "case_bit_exact", "sweep", "axis", "axis_value", "bytes", "gbps",
	"pct_copy", "arm_gbps", "arm_pct_copy", "copy_floor_ns", "copy_floor_kernel_ns", "copy_floor_method",
	"arm_over_copy", "verdict", NULL,
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

static void put_i64(struct row *w, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
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

/* A verdict over all outputs; empty when the slot has none. */
static void put_verdict(struct row *w, const struct results_slot *s, int64_t v)
{
	if (s->n_outputs > 0)
		put_i64(w, v);
	else
		put(w, "");
}

/* The case's figures from the summary: the row's arm pooled, the speedup
 * with its interval, drift and the case's exactness. */
static void put_case_figures(struct row *w, const struct summary_case *sc, char arm)
{
	const struct summary_arm *a = arm == 'a' ? &sc->a : &sc->b;
	put_i64(w, a->time.n);
	put_real(w, a->time.median_ns);
	put_real(w, a->time.p10_ns);
	put_real(w, a->time.p90_ns);
	put_real(w, sc->speedup.point);
	put_real(w, sc->speedup.low);
	put_real(w, sc->speedup.high);
	put_real(w, sc->drift);
	if (sc->n_outputs > 0)
		put_i64(w, sc->n_not_exact == 0);
	else
		put(w, "");
}

/* The sweep's name, axis and value (empty for a case that is not swept),
 * then the slot's bytes, GB/s and % of copy (empty when unknown). */
static void put_sweep_bandwidth(struct row *w, const struct results_case *c, const struct summary_slot *ss)
{
	put(w, c->sweep);
	put(w, c->axis);
	if (c->axis[0])
		put_i64(w, c->axis_value);
	else
		put(w, "");
	if (!isnan(ss->bw.bytes))
		put_i64(w, (int64_t)ss->bw.bytes);
	else
		put(w, "");
	put_real(w, ss->bw.gbps);
	put_real(w, ss->bw.pct_copy);
}

static void write_slot_row(struct row *w, const struct results_run *r, const struct summary_case *sc,
			   const struct summary_slot *ss)
{
	const struct results_case *c = sc->c;
	const struct results_slot *s = ss->slot;
	char arm[2] = { s->arm, '\0' };
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
	put(w, ss->md5);
	put_verdict(w, s, ss->bit_exact);
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
	put_verdict(w, s, ss->mismatches);
	put_real(w, ss->max_abs_err);
	put_real(w, ss->max_err_ratio);
	if (ss->has_ref)
		put_verdict(w, s, ss->ref_ok);
	else
		put(w, ""); /* no reference: neither passed nor failed */
	put_i64(w, r->id);
	put_case_figures(w, sc, s->arm);
	put_sweep_bandwidth(w, c, ss);
	put_real(w, (s->arm == 'a' ? &sc->a : &sc->b)->bw.gbps);
	put_real(w, (s->arm == 'a' ? &sc->a : &sc->b)->bw.pct_copy);
	put_real(w, sc->copy_floor_ns);
	put_real(w, sc->copy_floor_kernel_ns);
	put(w, c->copy_floor_ns > 0 ? c->copy_floor_method : "");
	put_real(w, s->arm == 'a' ? sc->a_over_copy : sc->b_over_copy);
	put(w, summary_case_verdict_key(sc->verdict));
	end_row(w);
}

static void write_rows(FILE *f, const struct summary_run *S)
{
	struct row w = { f, 0 };
	for (int i = 0; header[i]; i++)
		put(&w, header[i]);
	end_row(&w);
	for (int i = 0; i < S->n_cases; i++)
		for (int j = 0; j < S->cases[i].n_slots; j++)
			write_slot_row(&w, S->run, &S->cases[i], &S->cases[i].slots[j]);
}

enum ab_rc export_csv_print(const struct printer_job *job, struct ab_diag *d)
{
	write_rows(job->f, job->summary);
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the CSV") : AB_OK;
}
