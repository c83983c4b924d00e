/*
 * printer.c - the table of output formats and the one way to run one
 * (printer.h).
 */
#include "print/printer.h"

#include <errno.h>
#include <string.h>

#include "print/md.h"

#define PRINTER_LIST X(text) X(markdown) X(csv) X(json) X(benchmark) X(html)

#define X(name) extern const struct printer printer_##name;
PRINTER_LIST
#undef X

#define X(name) &printer_##name,
static const struct printer *const printers[] = { PRINTER_LIST NULL };
#undef X

const struct printer *printer_find(const char *name)
{
	for (const struct printer *const *p = printers; name && *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

bool printer_kind_is_dir(enum printer_kind kind)
{
	return kind == PRINTER_REPORT || kind == PRINTER_DASHBOARD;
}

const char *printer_kind_words(enum printer_kind kind)
{
	static const char *const words[PRINTER_KINDS] = {
		[PRINTER_SUMMARY] = "a run's summary",      [PRINTER_RECORD] = "a whole run",
		[PRINTER_COMPARE] = "a comparison",         [PRINTER_GATE] = "a gate verdict",
		[PRINTER_FAILING] = "the failing cases",    [PRINTER_HISTORY] = "a history",
		[PRINTER_RUNS] = "a run list",              [PRINTER_BASELINES] = "a baseline list",
		[PRINTER_REPORT] = "a report",              [PRINTER_DASHBOARD] = "a dashboard",
		[PRINTER_DIFF] = "a divergence report",
		[PRINTER_FIGURES] = "the table of figures",
	};
	return kind >= 0 && kind < PRINTER_KINDS ? words[kind] : "?";
}

int printer_pick(const struct printer *p, const enum printer_kind *kinds, int n)
{
	for (int i = 0; i < n; i++)
		if (p->print[kinds[i]])
			return kinds[i];
	return -1;
}

char *printer_names(const enum printer_kind *kinds, int n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct printer *const *p = printers; *p && used < len; p++)
		if (printer_pick(*p, kinds, n) >= 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", (*p)->name);
	return buf;
}

static enum ab_rc emit_stream(printer_fn fn, struct printer_job *job, const char *out, struct ab_diag *d)
{
	struct md_file mf;
	enum ab_rc rc;
	if (!out || !strcmp(out, "-")) {
		job->f = stdout;
		rc = fn(job, d);
		return !rc && ferror(stdout) ? ab_fail(d, AB_ERR_IO, "cannot write standard output") : rc;
	}
	if ((rc = md_file_open(&mf, out, d)))
		return rc;
	job->f = mf.f;
	errno = 0;
	rc = fn(job, d);
	job->f = NULL;
	/* a write error is sticky on the stream: the commit then fails too,
	 * naming the file and the reason (EFBIG, ENOSPC), and removes the
	 * temporary file */
	if (!rc || (rc == AB_ERR_IO && ferror(mf.f)))
		return md_file_commit(&mf, d);
	md_file_abort(&mf);
	return rc;
}

enum ab_rc printer_emit(const struct printer *p, enum printer_kind kind, struct printer_job *job, const char *out,
			struct ab_diag *d)
{
	printer_fn fn = kind >= 0 && kind < PRINTER_KINDS ? p->print[kind] : NULL;
	if (!fn)
		return ab_fail(d, AB_ERR_USAGE, "format '%s' does not print %s", p->name, printer_kind_words(kind));
	if (!printer_kind_is_dir(kind))
		return emit_stream(fn, job, out, d);
	if (!out || !*out)
		return ab_fail(d, AB_ERR_USAGE, "%s needs an output directory", printer_kind_words(kind));
	job->dir = out;
	return fn(job, d);
}
