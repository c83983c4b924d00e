/*
 * cmd_publish.c - `abbench publish DIR`: the stored history as a static
 * HTML dashboard (print/publish.h): the trend chart of every case
 * (print/trend.h), the newest run of each scenario and device with its
 * full report (print/report.h), written into DIR. Exit 0; 2 when nothing
 * matches or an option is bad; 3 on database or IO failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "config/profile.h"
#include "print/md.h"
#include "print/publish.h"
#include "print/report.h"
#include "print/trend.h"
#include "store/store.h"

#define MAX_GROUPS 256

struct publish_args {
	struct history_filter f;
	const char *dir, *title;
	double min_step_pct;
	bool no_plots, no_reports;
};

/* The newest run of a group: the latest of its series' last points,
 * preferring a run of every case to a partial one. */
static int64_t newest_run(const struct history *h, const struct publish_group *g)
{
	const struct history_point *best = NULL;
	for (int i = g->first; i < g->first + g->n; i++) {
		const struct history_series *s = &h->series[i];
		for (int j = s->n - 1; j >= 0; j--) {
			const struct history_point *p = &s->points[j];
			bool later = !best || (best->partial && !p->partial) ||
				     (best->partial == p->partial && strcmp(p->started_at, best->started_at) > 0);
			if (later)
				best = p;
			if (!p->partial)
				break;
		}
	}
	return best ? best->run_id : 0;
}

/* The report of the summarised run into DIR/runs/run-ID; a failure other
 * than memory or IO is a note on the page. */
static enum ab_rc report_of(const struct publish_args *a, const struct summary_run *s, struct publish_group *g,
			    struct ab_diag *d)
{
	const struct results_run *r = s->run;
	struct profile prof;
	struct report_outcome out;
	struct ab_diag pd = { "" };
	char dir[4096];
	bool fell_back;
	bool have_prof = !profile_find(r->device.name, r->backend, &prof, &fell_back, &pd);
	struct report_options o = { dir, have_prof ? &prof : NULL, have_prof ? NULL : pd.msg, NULL, 0, a->no_plots };
	snprintf(g->report, sizeof g->report, "runs/run-%lld/report.md", (long long)r->id);
	if (snprintf(dir, sizeof dir, "%s/runs/run-%lld", a->dir, (long long)r->id) >= (int)sizeof dir)
		return ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	enum ab_rc rc = report_write(s, &o, &out, d);
	if (rc == AB_ERR_NOMEM || rc == AB_ERR_IO)
		return rc;
	if (rc) {
		snprintf(g->report_note, sizeof g->report_note, "%.200s", d->msg);
		g->report[0] = '\0';
	}
	return AB_OK;
}

/* Loads and summarises each group's newest run and writes its report. */
static enum ab_rc newest_runs(struct store *st, const struct publish_args *a, const struct history *h,
			      struct publish_group *g, int n, struct results_run **runs, struct summary_run *sums,
			      struct ab_diag *d)
{
	for (int k = 0; k < n; k++) {
		int64_t id = newest_run(h, &g[k]);
		enum ab_rc rc = store_load_run(st, id, &runs[k], d);
		if (!rc)
			rc = summary_compute(runs[k], SUMMARY_FULL, &sums[k], d);
		if (rc)
			return rc;
		g[k].newest = runs[k];
		g[k].summary = &sums[k];
		if (!a->no_reports && (rc = report_of(a, &sums[k], &g[k], d)))
			return rc;
		if (a->no_reports)
			snprintf(g[k].report_note, sizeof g[k].report_note, "reports turned off (--no-reports)");
	}
	return AB_OK;
}

static enum ab_rc publish_history(struct store *st, const struct publish_args *a, const struct history *h,
				  struct ab_diag *d)
{
	struct publish_group *g = calloc(MAX_GROUPS, sizeof *g);
	struct results_run **runs = calloc(MAX_GROUPS, sizeof *runs);
	struct summary_run *sums = calloc(MAX_GROUPS, sizeof *sums);
	struct trend_outcome charts = { 0 };
	char dir[4096];
	enum ab_rc rc = g && runs && sums ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory for the dashboard");
	int n = rc ? 0 : publish_group_series(h, g, MAX_GROUPS);
	if (!rc && snprintf(dir, sizeof dir, "%s/charts", a->dir) >= (int)sizeof dir)
		rc = ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	if (!rc)
		rc = trend_write_charts(dir, h, a->no_plots, &charts, d);
	if (!rc)
		rc = newest_runs(st, a, h, g, n, runs, sums, d);
	if (!rc) {
		struct publish_input in = { a->title ? a->title : "abbench dashboard", h, &charts, n, g, h->n_runs };
		rc = publish_write(a->dir, &in, d);
	}
	if (!rc && charts.skipped && !a->no_plots)
		ab_warn("publish: charts skipped: %s (the page says so)", charts.note);
	if (!rc && charts.n_failed)
		ab_warn("publish: %d chart(s) failed: %s", charts.n_failed, charts.note);
	if (!rc)
		printf("%s/index.html\n", a->dir);
	for (int k = 0; runs && sums && k < n; k++) {
		summary_free(&sums[k]);
		results_run_free(runs[k]);
	}
	free(sums);
	trend_outcome_free(&charts);
	free(g);
	free(runs);
	return rc;
}

static enum ab_rc publish(const char *db, const struct publish_args *a, struct ab_diag *d)
{
	struct store *st;
	struct history h;
	enum ab_rc rc = md_mkdirs(a->dir, d);
	if (!rc)
		rc = store_open(store_default_path(db), false, &st, d);
	if (rc)
		return rc;
	if (!(rc = history_collect(st, &a->f, &h, d))) {
		rc = publish_history(st, a, &h, d);
		history_free(&h);
	}
	store_close(st);
	return rc;
}

int cmd_publish(int argc, char **argv)
{
	const char *db = NULL;
	struct publish_args a = { .min_step_pct = HISTORY_DEFAULT_MIN_STEP * 100 };
	const struct cli_option opts[] = {
		{ "scenario", CLI_STRING, &a.f.scenario, "GLOB", "only matching scenarios" },
		{ "device", CLI_STRING, &a.f.device, "GLOB", "only matching devices" },
		{ "case", CLI_STRING, &a.f.cases, "GLOB", "only matching cases" },
		{ "label", CLI_STRING, &a.f.label, "GLOB", "only runs with a matching label (e.g. 'nightly-*')" },
		{ "last", CLI_INT, &a.f.last, "N", "the newest N runs of each case (default 100)" },
		{ "min-step", CLI_DOUBLE, &a.min_step_pct, "PCT", "name steps of at least PCT percent (default 5)" },
		{ "title", CLI_STRING, &a.title, "TEXT", "the page's title (default 'abbench dashboard')" },
		{ "no-plots", CLI_FLAG, &a.no_plots, NULL, "write chart data and scripts, do not run gnuplot" },
		{ "no-reports", CLI_FLAG, &a.no_reports, NULL, "do not write the newest runs' full reports" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"publish", "DIR", "write a static HTML dashboard of the history into DIR",
		"DIR/index.html (plain HTML and CSS, no script, relative links: it works from file:// and\n"
		"any static host) shows scenarios x devices; per scenario and device the newest run with a\n"
		"link to its full report (DIR/runs/run-ID/report.md) and per case its trend chart\n"
		"(DIR/charts/), its latest figures and the steps in its history (see 'abbench history').",
		1, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (a.f.last < 0 || a.f.last > STEPS_MAX_POINTS || !(a.min_step_pct >= 0)) {
		ab_error("publish: --last must be 1 to %d and --min-step 0 or more", STEPS_MAX_POINTS);
		return AB_EXIT_USAGE;
	}
	a.dir = pos[0];
	a.f.min_step = a.min_step_pct / 100;
	struct ab_diag d;
	return cli_exit_rc(publish(db, &a, &d), &d, "publish");
}
