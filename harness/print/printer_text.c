/*
 * printer_text.c - the "text" format: what a terminal shows; the run and
 * baseline lists of `abbench list` and `abbench baseline list` are here.
 * Every string from the database goes through escape_t: a name cannot
 * send the terminal a control sequence.
 */
#include <stdio.h>

#include "print/diff_print.h"
#include "print/escape.h"
#include "print/figures_list.h"
#include "print/printer.h"
#include "print/show.h"
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
	struct escape_pool e;
	fprintf(f, "%-5s %-20s %-20s %-24s %-18s %-5s %-8s %-20s %s\n", "id", "started (UTC)", "scenario", "label", "commit",
		"cases", "status", "flags", "backend/device");
	for (int i = 0; i < job->n_runs; i++) {
		const struct results_run_summary *s = job->runs[i];
		char fl[420];
		run_flags(s, fl, sizeof fl);
		e.next = 0;
		fprintf(f, "%-5lld %-20s %-20s %-24s %-18s %-5d %-8s %-20s %s/%s\n", (long long)s->id,
			escape_t(&e, s->started_at), escape_t(&e, s->scenario_name), escape_t(&e, s->label[0] ? s->label : "-"),
			escape_t(&e, s->git_commit[0] ? s->git_commit : "-"), s->n_cases, escape_t(&e, s->status),
			escape_t(&e, fl), escape_t(&e, s->backend), escape_t(&e, s->device));
	}
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the run list") : AB_OK;
}

static enum ab_rc text_baselines(const struct printer_job *job, struct ab_diag *d)
{
	FILE *f = job->f;
	struct escape_pool e;
	fprintf(f, "%-20s %-5s %-20s %-20s %s\n", "name", "run", "set (UTC)", "scenario", "device");
	for (int i = 0; i < job->n_baselines; i++) {
		const struct store_baseline *b = &job->baselines[i];
		char run[80];
		e.next = 0;
		if (b->run_set[0])
			snprintf(run, sizeof run, "%s%s", STORE_SET_PREFIX, escape_t(&e, b->run_set));
		else
			snprintf(run, sizeof run, "%lld", (long long)b->run_id);
		fprintf(f, "%-20s %-5s %-20s %-20s %s\n", escape_t(&e, b->name), run, escape_t(&e, b->set_at),
			escape_t(&e, b->scenario_name), escape_t(&e, b->device));
	}
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the baseline list") : AB_OK;
}

static enum ab_rc text_failing(const struct printer_job *job, struct ab_diag *d)
{
	return gate_print_failing(job->f, job->gate->r, d);
}

extern const struct printer printer_text;

const struct printer printer_text = {
	"text", "plain text for a terminal (control characters escaped)",
	{
		[PRINTER_SUMMARY] = show_print,
		[PRINTER_FAILING] = text_failing,
		[PRINTER_HISTORY] = trend_print,
		[PRINTER_RUNS] = text_runs,
		[PRINTER_BASELINES] = text_baselines,
		[PRINTER_DIFF] = diff_print_text,
		[PRINTER_FIGURES] = figures_list_text,
	},
};
