/*
 * cmd_list.c - `abbench list`: one line per stored run, newest first, with
 * the commit it measured; filtered by scenario, label and count. The
 * nightly's re-measurement runs (label ending in "-recheck", the runs
 * scripts/nightly.sh makes of a case that looked slower) are hidden unless
 * --rechecks asks for them: they are partial runs of one case and would
 * crowd out the nights.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/history.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "store/store.h"

struct list_filter {
	const char *scenario, *label; /* glob patterns, NULL: any */
	int count;                    /* newest N after filtering, 0: all */
	bool rechecks;
};

static bool is_recheck(const struct results_run_summary *s)
{
	return history_is_recheck(s->label);
}

static bool matches(const char *pattern, const char *text)
{
	return !pattern || !fnmatch(pattern, text, 0);
}

static bool wanted(const struct list_filter *f, const struct results_run_summary *s)
{
	return matches(f->scenario, s->scenario_name) && matches(f->label, s->label) && (f->rechecks || !is_recheck(s));
}

/* "quick", "only CASE", both or "-". */
static void flags(const struct results_run_summary *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", s->quick ? "quick" : "", s->quick && s->only_cases[0] ? "," : "",
		 s->only_cases[0] ? "only " : "", s->only_cases);
	if (!buf[0])
		snprintf(buf, len, "-");
}

static void print_runs(const struct results_run_summary *runs, int n, const struct list_filter *f)
{
	int shown = 0, hidden = 0;
	printf("%-5s %-20s %-20s %-24s %-18s %-5s %-8s %-20s %s\n", "id", "started (UTC)", "scenario", "label", "commit",
	       "cases", "status", "flags", "backend/device");
	for (int i = 0; i < n && (!f->count || shown < f->count); i++) {
		const struct results_run_summary *s = &runs[i];
		char fl[300];
		if (!wanted(f, s)) {
			hidden += !f->rechecks && is_recheck(s) && matches(f->scenario, s->scenario_name);
			continue;
		}
		flags(s, fl, sizeof fl);
		printf("%-5lld %-20s %-20s %-24s %-18s %-5d %-8s %-20s %s/%s\n", (long long)s->id, s->started_at,
		       s->scenario_name, s->label[0] ? s->label : "-", s->git_commit[0] ? s->git_commit : "-", s->n_cases,
		       s->status, fl, s->backend, s->device);
		shown++;
	}
	if (n == 0)
		fprintf(stderr, "no runs yet (abbench run SCENARIO.ini)\n");
	else if (!shown)
		fprintf(stderr, "no run matches\n");
	if (hidden)
		fprintf(stderr, "%d re-measurement run%s hidden (--rechecks shows them)\n", hidden, hidden == 1 ? "" : "s");
}

int cmd_list(int argc, char **argv)
{
	const char *db = NULL;
	struct list_filter f = { 0 };
	const struct cli_option opts[] = {
		{ "scenario", CLI_STRING, &f.scenario, "NAME", "only runs of this scenario (a glob pattern)" },
		{ "label", CLI_STRING, &f.label, "LABEL", "only runs with this label (a glob pattern: 'nightly-*')" },
		{ "count", CLI_INT, &f.count, "N", "the newest N runs that match" },
		{ "rechecks", CLI_FLAG, &f.rechecks, NULL, "show the nightly's re-measurement runs (label *-recheck) too" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"list", NULL, "list stored runs: id, time, scenario, label, commit, status, backend, device",
		"Newest first. Flags: quick (run --quick), only CASE (run --only: a partial run). The\n"
		"re-measurement runs scripts/nightly.sh makes (label ending in -recheck) are hidden\n"
		"unless --rechecks is given.",
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

	struct ab_diag d;
	struct store *st;
	struct results_run_summary *runs = NULL;
	int n = 0;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = store_list_runs(st, &runs, &n, &d);
		store_close(st);
	}
	if (rc)
		return cli_exit_rc(rc, &d, NULL);
	print_runs(runs, n, &f);
	free(runs);
	return cli_finish(AB_EXIT_OK);
}
