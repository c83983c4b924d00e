/*
 * printer.c - the table of output formats and the one way to run one
 * (printer.h). A format is a table of the functions it prints each kind
 * with; the text format's run and baseline lists (`abbench list`,
 * `abbench baseline list`) are here.
 */
#include "print/printer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "print/escape.h"
#include "print/figure_fmt.h"
#include "print/json_out.h"
#include "print/md.h"
#include "print/report.h"
#include "print/trend.h"

/* "quick", "only CASE", "recheck", "shard I/N of set:ID" (or "set:ID"
 * for a whole set), those that apply joined by ", ", or "-". */
static void run_flags(const struct results_run_summary *s, char *buf, size_t len)
{
	char only[300], set[120];
	snprintf(only, sizeof only, "only %s", s->only_cases);
	if (s->shard_count)
		snprintf(set, sizeof set, "shard %d/%d of %s%s", s->shard_index, s->shard_count, STORE_SET_PREFIX,
			 s->run_set);
	else
		snprintf(set, sizeof set, "%s%s", STORE_SET_PREFIX, s->run_set);
	const struct {
		bool on;
		const char *text;
	} flags[] = {
		{ s->quick, "quick" }, { s->only_cases[0], only }, { s->recheck, "recheck" },
		{ s->shard_count || s->run_set[0], set },
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
		if (flags[i].on && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", flags[i].text);
	if (!n)
		snprintf(buf, len, "-");
}

static enum ab_rc text_runs(const struct printer_job *job, struct ab_diag *d)
{
	FILE *f = job->f;
	struct escape_pool e = { .next = 0 };
	fprintf(f, "%-5s %-20s %-20s %-24s %-18s %-5s %-8s %-20s %s\n", "id", "started (UTC)", "scenario", "label",
		"commit", "cases", "status", "flags", "backend/device");
	for (int i = 0; i < job->n_runs; i++) {
		const struct results_run_summary *s = job->runs[i];
		char fl[420];
		run_flags(s, fl, sizeof fl);
		fprintf(f, "%-5lld %-20s %-20s %-24s %-18s %-5d %-8s %-20s %s/%s\n", (long long)s->id,
			escape_t(&e, s->started_at), escape_t(&e, s->scenario_name),
			escape_t(&e, s->label[0] ? s->label : "-"), escape_t(&e, s->git_commit[0] ? s->git_commit : "-"),
			s->n_cases, escape_t(&e, s->status), escape_t(&e, fl), escape_t(&e, s->backend),
			escape_t(&e, s->device));
	}
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the run list") : AB_OK;
}

static enum ab_rc text_baselines(const struct printer_job *job, struct ab_diag *d)
{
	FILE *f = job->f;
	struct escape_pool e = { .next = 0 };
	fprintf(f, "%-20s %-5s %-20s %-20s %s\n", "name", "run", "set (UTC)", "scenario", "device");
	for (int i = 0; i < job->n_baselines; i++) {
		const struct store_baseline *b = &job->baselines[i];
		char run[80];
		if (b->run_set[0])
			snprintf(run, sizeof run, "%s%s", STORE_SET_PREFIX, escape_t(&e, b->run_set));
		else
			snprintf(run, sizeof run, "%lld", (long long)b->run_id);
		fprintf(f, "%-20s %-5s %-20s %-20s %s\n", escape_t(&e, b->name), run, escape_t(&e, b->set_at),
			escape_t(&e, b->scenario_name), escape_t(&e, b->device));
	}
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the baseline list") : AB_OK;
}

/* In the order --help and messages name them; a NULL name ends it. */
static const struct printer printers[] = {
	/* What a terminal shows: every string from the database goes through
	 * escape_t, so that a name cannot send the terminal a control sequence. */
	{ "text", "plain text for a terminal (control characters escaped)", {
		[PRINTER_SUMMARY] = show_print,
		[PRINTER_FAILING] = gate_print_failing,
		[PRINTER_HISTORY] = trend_print,
		[PRINTER_RUNS] = text_runs,
		[PRINTER_BASELINES] = text_baselines,
		[PRINTER_DIFF] = diff_print_text,
		[PRINTER_FIGURES] = figures_list_text,
	} },
	/* GitHub-flavoured markdown, every name escaped by print/md.h. */
	{ "markdown", "GitHub-flavoured markdown, for a pull request", {
		[PRINTER_COMPARE] = compare_print_table,
		[PRINTER_GATE] = gate_print_verdict,
		[PRINTER_REPORT] = report_write,
		[PRINTER_DIFF] = diff_print_markdown,
		[PRINTER_FIGURES] = figures_list_markdown,
	} },
	/* One row per case and slot with the case's figures (print/figure_fmt.h
	 * has the columns), for spreadsheets and pandas. */
	{ "csv", "one row per case and slot (columns: abbench export --help)",
	  { [PRINTER_SUMMARY] = export_csv_print } },
	/* The documents of docs/JSON.md (print/json_out.h says where each is
	 * built; abbench.figures in print/figures_list.c). */
	{ "json", "JSON documents (schemas: docs/JSON.md)", {
		[PRINTER_SUMMARY] = json_export_show,
		[PRINTER_RECORD] = json_export_run,
		[PRINTER_COMPARE] = json_verdict_compare,
		[PRINTER_GATE] = json_verdict_gate,
		[PRINTER_RUNS] = json_list_runs,
		[PRINTER_DIFF] = diff_json_print,
		[PRINTER_FIGURES] = figures_list_json,
	} },
	/* github-action-benchmark's customSmallerIsBetter list (json_out.h). */
	{ "benchmark", "github-action-benchmark's customSmallerIsBetter JSON",
	  { [PRINTER_SUMMARY] = json_verdict_benchmark } },
	/* The static dashboard of a history (print/publish.c). */
	{ "html", "a static HTML dashboard (plain HTML and CSS, relative links)",
	  { [PRINTER_DASHBOARD] = publish_write } },
	{ .name = NULL }, /* the end of the list */
};

const struct printer *printer_find(const char *name)
{
	for (const struct printer *p = printers; name && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
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
	for (const struct printer *p = printers; p->name && used < len; p++)
		if (printer_pick(p, kinds, n) >= 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p->name);
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
