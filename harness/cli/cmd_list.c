/*
 * cmd_list.c - `abbench list`: one line per stored run, newest first, with
 * the commit it measured; filtered by scenario, label and count. The
 * re-measurement runs (run --recheck: the runs scripts/nightly.sh makes of
 * the cases that looked slower) are hidden unless --rechecks asks for
 * them: they are partial runs and would crowd out the nights.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/printer.h"
#include "store/store.h"

static const enum printer_kind list_kinds[] = { PRINTER_RUNS };

struct list_filter {
	const char *scenario, *label; /* glob patterns, NULL: any */
	int count;                    /* newest N after filtering, 0: all */
	bool rechecks;
};

static bool matches(const char *pattern, const char *text)
{
	return !pattern || !fnmatch(pattern, text, 0);
}

static bool wanted(const struct list_filter *f, const struct results_run_summary *s)
{
	return matches(f->scenario, s->scenario_name) && matches(f->label, s->label) && (f->rechecks || !s->recheck);
}

/* The runs f wants, the newest first (at most f->count), into shown;
 * *hidden counts the re-measurement runs left out. */
static int choose(const struct results_run_summary *runs, int n, const struct list_filter *f,
		  const struct results_run_summary **shown, int *hidden)
{
	int k = 0;
	*hidden = 0;
	for (int i = 0; i < n && (!f->count || k < f->count); i++) {
		const struct results_run_summary *s = &runs[i];
		if (!wanted(f, s)) {
			*hidden += !f->rechecks && s->recheck && matches(f->scenario, s->scenario_name);
			continue;
		}
		shown[k++] = s;
	}
	return k;
}

static enum ab_rc list_runs(const struct results_run_summary *runs, int n, const struct list_filter *f,
			    const struct printer *p, const char *out, struct ab_diag *d)
{
	const struct results_run_summary **shown = calloc((size_t)n + 1, sizeof *shown);
	int hidden;
	if (!shown)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory");
	struct printer_job job = { .runs = shown, .n_runs = choose(runs, n, f, shown, &hidden) };
	enum ab_rc rc = printer_emit(p, PRINTER_RUNS, &job, out, d);
	if (!rc && n == 0)
		fprintf(stderr, "no runs yet (abbench run SCENARIO.ini)\n");
	else if (!rc && !job.n_runs)
		fprintf(stderr, "no run matches\n");
	if (!rc && hidden)
		fprintf(stderr, "%d re-measurement run%s hidden (--rechecks shows them)\n", hidden, hidden == 1 ? "" : "s");
	free(shown);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	const char *db = NULL;
	struct list_filter f = { 0 };
	struct cli_output o = { 0 };
	const struct printer *p;
	enum printer_kind kind;
	output_help(&o, list_kinds, 1, "text");
	const struct cli_option opts[] = {
		{ "scenario", CLI_STRING, &f.scenario, "NAME", "only runs of this scenario (a glob pattern)" },
		{ "label", CLI_STRING, &f.label, "LABEL", "only runs with this label (a glob pattern: 'nightly-*')" },
		{ "count", CLI_INT, &f.count, "N", "the newest N runs that match" },
		{ "rechecks", CLI_FLAG, &f.rechecks, NULL, "show the re-measurement runs (run --recheck) too" },
		CLI_OPT_FORMAT(&o),
		CLI_OPT_OUT(&o, "a reader sees the old file or the whole new one"),
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"list", NULL, "list stored runs: id, time, scenario, label, commit, status, backend, device",
		"Newest first. Flags: quick (run --quick), only CASE (run --only: a partial run), recheck\n"
		"(run --recheck). The re-measurement runs (run --recheck, as scripts/nightly.sh makes them)\n"
		"are hidden unless --rechecks is given.",
		0, 0, opts,
	};
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (f.count < 0) {
		ab_error("list: --count must be 0 or more, not %d", f.count);
		return AB_EXIT_USAGE;
	}
	if (!output_pick(&o, "list", list_kinds, 1, "text", &p, &kind))
		return AB_EXIT_USAGE;

	struct ab_diag d;
	struct store *st;
	struct results_run_summary *runs = NULL;
	int n = 0;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = store_list_runs(st, &runs, &n, &d);
		store_close(st);
	}
	if (!rc)
		rc = list_runs(runs, n, &f, p, o.out, &d);
	free(runs);
	return cli_exit_rc(rc, &d, NULL);
}
