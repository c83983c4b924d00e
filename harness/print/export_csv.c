/*
 * export_csv.c - a run's (case, slot) rows as CSV, written atomically.
 *
 * The format is documented in export_csv.h. Write errors are sticky on the
 * FILE, so they are checked once, after the last row, with fflush, fsync
 * and fclose; only then does the temporary file take the final name.
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

#include "analysis/bandwidth.h"

static const char *const header[] = {
	"case", "site", "shape", "dtype", "arm", "slot", "samples", "median_ns", "p10_ns",
	"p90_ns", "md5", "bit_exact", "variant", "eps", "input", "stopping_reason", "discarded", "noise",
	"mean_ns", "min_ns", "max_ns", "kernel_median_ns", "mismatches", "max_abs_err",
	"max_err_ratio", "ref_ok", "run_id", "sweep", "axis", "axis_value", "bytes", "gbps", "pct_copy", NULL,
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

/* The sweep's name, axis and value: empty for a case that is not swept. */
static void put_sweep(struct row *w, const struct results_case *c)
{
	put(w, c->sweep);
	put(w, c->axis);
	if (c->axis[0])
		put_i64(w, c->axis_value);
	else
		put(w, "");
}

/* The bytes of the slot's arm, and its GB/s and % of copy bandwidth at the
 * slot's median; empty when unknown. */
static void put_bandwidth(struct row *w, const struct results_case *c, const struct results_slot *s,
			  const struct bandwidth_ref *copy)
{
	int64_t bytes = s->arm == 'a' ? c->bytes_a : c->bytes_b;
	struct bandwidth_arm bw = bandwidth_arm(bytes, s->median_ns, copy);
	if (bytes > 0)
		put_i64(w, bytes);
	else
		put(w, "");
	put_real(w, bw.gbps);
	put_real(w, bw.pct_copy);
}

static void write_slot_row(struct row *w, const struct results_run *r, const struct results_case *c,
			   const struct results_slot *s, const struct bandwidth_ref *copy)
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
	put_sweep(w, c);
	put_bandwidth(w, c, s, copy);
	end_row(w);
}

static void write_rows(FILE *f, const struct results_run *r)
{
	struct row w = { f, 0 };
	struct bandwidth_ref copy = bandwidth_copy_lookup(r);
	for (int i = 0; header[i]; i++)
		put(&w, header[i]);
	end_row(&w);
	for (int i = 0; i < r->n_cases; i++)
		for (int j = 0; j < r->cases[i].n_slots; j++)
			write_slot_row(&w, r, &r->cases[i], &r->cases[i].slots[j], &copy);
}

static enum ab_rc write_stdout(const struct results_run *r, struct ab_diag *d)
{
	write_rows(stdout, r);
	if (fflush(stdout) != 0 || ferror(stdout))
		return ab_fail(d, AB_ERR_IO, "cannot write to stdout: %s", strerror(errno));
	return AB_OK;
}

/* mkstemp makes the file 0600; give it the mode a plain fopen would. */
static void set_default_mode(int fd)
{
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
}

static enum ab_rc open_temp(const char *path, char *tmp, size_t len, FILE **f, struct ab_diag *d)
{
	if ((size_t)snprintf(tmp, len, "%s.tmpXXXXXX", path) >= len)
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': path too long", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	set_default_mode(fd);
	*f = fdopen(fd, "w");
	if (!*f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", path, strerror(e));
	}
	return AB_OK;
}

/* Flushes to disk and closes. Returns 0 or the first failure's errno
 * (EIO when a sticky stream error left none). */
static int close_synced(FILE *f)
{
	int err = 0;
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	else if (fsync(fileno(f)) != 0)
		err = errno;
	if (fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	return err;
}

enum ab_rc export_csv_write(const struct results_run *r, const char *path, struct ab_diag *d)
{
	char tmp[4096 + 16];
	FILE *f;
	if (!path || strcmp(path, "-") == 0)
		return write_stdout(r, d);
	enum ab_rc rc = open_temp(path, tmp, sizeof tmp, &f, d);
	if (rc)
		return rc;
	errno = 0;
	write_rows(f, r);
	int err = close_synced(f);
	if (err) {
		rc = ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", path, strerror(err));
		unlink(tmp);
		return rc;
	}
	if (rename(tmp, path) != 0) {
		rc = ab_fail(d, AB_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		unlink(tmp);
	}
	return rc;
}
