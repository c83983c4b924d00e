/*
 * cmd_publish.c - `abbench publish DIR`: the stored history as a static
 * HTML dashboard (the html printer, print/publish.c): the trend chart of
 * every case (one per sweep past 64 cases, print/trend.h), the newest run
 * of each scenario and device with its full report (print/report.h),
 * written into DIR. The history, the groups and their newest runs (each
 * summarised with its device's profile, looked up once) are read and
 * computed first; DIR is created only then, so a database that cannot be
 * opened or a history that matches nothing leaves no empty folder. Exit 0;
 * 2 when nothing matches or an option is bad; 3 on database or IO
 * failures.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history.h"
#include "analysis/peers.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/printer.h"
#include "store/store.h"

#define MAX_GROUPS 256

static const enum printer_kind publish_kinds[] = { PRINTER_DASHBOARD };

struct publish_args {
	struct history_filter f;
	struct cli_output out;
	const struct printer *p;
	const char *dir, *title, *commit_url;
	double min_step_pct;
	bool no_plots, no_reports;
};

/* One group's newest run with what its report needs. */
struct newest {
	struct results_run *run;
	struct summary_run sum;
	const struct summary_run *series[1];
	struct load_profile lp;
	struct peers_table peers;
	struct printer_report rep;
	char note[600];
	bool summed, tabled;
};

/* The older runs of the history reported too (each is a report of its
 * tables, at most this many: the newest first). */
#define MAX_OLDER 500

struct dash {
	struct history_group groups[MAX_GROUPS];
	struct newest *newest;                    /* [n] */
	const struct printer_report *reports[MAX_GROUPS];
	int n;
	struct newest *older;                     /* [n_older] */
	const struct printer_report **older_reports;
	int n_older;
};

static void newest_free(struct newest *w)
{
	if (w->tabled)
		peers_table_free(&w->peers);
	if (w->summed)
		summary_free(&w->sum);
	results_run_free(w->run);
}

static void dash_free(struct dash *x)
{
	for (int k = 0; x->newest && k < x->n; k++)
		newest_free(&x->newest[k]);
	for (int k = 0; x->older && k < x->n_older; k++)
		newest_free(&x->older[k]);
	free(x->newest);
	free(x->older);
	free(x->older_reports);
}

static enum ab_rc load_run_report(struct store *st, int64_t id, struct newest *w, struct ab_diag *d);

/* Loads group k's newest run, its profile and summary, and the (peerless)
 * report input. */
static enum ab_rc load_newest(struct store *st, struct dash *x, int k, struct ab_diag *d)
{
	enum ab_rc rc = load_run_report(st, x->groups[k].newest_run, &x->newest[k], d);
	if (!rc)
		x->reports[k] = &x->newest[k].rep;
	return rc;
}

/* Whether run id is a group's newest or already listed as older. */
static bool listed(const struct dash *x, int64_t id, const int64_t *ids, int n)
{
	for (int k = 0; k < x->n; k++)
		if (x->groups[k].newest_run == id)
			return true;
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Every other run of the history, each with its report's input: so that
 * every run on the dashboard has its report page. */
static enum ab_rc load_older(struct store *st, const struct history *h, struct dash *x, struct ab_diag *d)
{
	int64_t *ids = calloc(MAX_OLDER, sizeof *ids);
	int n = 0;
	enum ab_rc rc = ids ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory for the dashboard");
	for (int i = 0; !rc && i < h->n_series; i++)
		for (int j = h->series[i].n - 1; j >= 0 && n < MAX_OLDER; j--)
			if (!listed(x, h->series[i].points[j].run_id, ids, n))
				ids[n++] = h->series[i].points[j].run_id;
	if (!rc && (!(x->older = calloc((size_t)n + 1, sizeof *x->older)) ||
		    !(x->older_reports = calloc((size_t)n + 1, sizeof *x->older_reports))))
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the dashboard");
	for (int i = 0; !rc && i < n; i++) {
		x->n_older = i + 1;
		if (!(rc = load_run_report(st, ids[i], &x->older[i], d)))
			x->older_reports[i] = &x->older[i].rep;
	}
	free(ids);
	return rc;
}

/* A run, its profile and summary, and the (peerless) report input. */
static enum ab_rc load_run_report(struct store *st, int64_t id, struct newest *w, struct ab_diag *d)
{
	enum ab_rc rc = store_load_run(st, id, &w->run, d);
	if (rc)
		return rc;
	load_profile(w->run, &w->lp);
	if ((rc = load_summary(w->run, SUMMARY_FULL, &w->lp, &w->sum, d)))
		return rc;
	w->summed = true;
	w->series[0] = &w->sum;
	if ((rc = peers_table_build(w->series, 1, &w->peers, d)))
		return rc;
	w->tabled = true;
	if (w->lp.rc)
		snprintf(w->note, sizeof w->note, "%s", w->lp.err.msg);
	w->rep = (struct printer_report){ &w->peers, w->lp.rc ? NULL : &w->lp.prof, w->note[0] ? w->note : NULL, false,
					  NULL };
	return AB_OK;
}

static enum ab_rc publish_history(struct store *st, const struct publish_args *a, const struct history *h,
				  struct ab_diag *d)
{
	struct dash *x = calloc(1, sizeof *x);
	struct printer_charts charts;
	enum ab_rc rc = x ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory for the dashboard");
	if (!rc) {
		x->n = history_groups(h, x->groups, MAX_GROUPS);
		if (!(x->newest = calloc((size_t)x->n + 1, sizeof *x->newest)))
			rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the dashboard");
	}
	for (int k = 0; !rc && k < x->n; k++)
		rc = load_newest(st, x, k, d);
	if (!rc && !a->no_reports)
		rc = load_older(st, h, x, d);
	if (!rc) {
		struct printer_dashboard dash = { a->title ? a->title : "abbench dashboard", h, x->n, x->groups,
						  x->reports, a->no_reports, x->n_older,
						  (const struct printer_report *const *)x->older_reports, a->commit_url };
		struct printer_job job = { .no_plots = a->no_plots, .charts = &charts, .dashboard = &dash };
		rc = printer_emit(a->p, PRINTER_DASHBOARD, &job, a->dir, d);
	}
	if (!rc && charts.skipped && !a->no_plots)
		ab_warn("publish: charts skipped: %s (the page says so)", charts.note);
	if (!rc && charts.n_failed)
		ab_warn("publish: %d chart(s) failed: %s", charts.n_failed, charts.note);
	if (!rc)
		printf("%s/index.html\n", a->dir);
	if (x)
		dash_free(x);
	free(x);
	return rc;
}

static enum ab_rc publish(const char *db, const struct publish_args *a, struct ab_diag *d)
{
	struct store *st;
	struct history h;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, d);
	if (rc)
		return rc;
	if (!(rc = load_history(st, &a->f, &h, d))) {
		rc = publish_history(st, a, &h, d);
		history_free(&h);
	}
	store_close(st);
	return rc;
}

/* A commit-link template: http(s), {commit} in it, nothing that could end
 * an attribute or a URL (the page escapes it all the same). */
static bool commit_url_ok(const char *url)
{
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7))
		return false;
	if (!strstr(url, "{commit}"))
		return false;
	for (const unsigned char *p = (const unsigned char *)url; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\'' || *p == '<' || *p == '>' || *p == '\\')
			return false;
	return strlen(url) < 512;
}

int cmd_publish(int argc, char **argv)
{
	const char *db = NULL;
	struct publish_args a = { .min_step_pct = HISTORY_DEFAULT_MIN_STEP * 100 };
	enum printer_kind kind;
	output_help(&a.out, publish_kinds, 1, "html");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&a.out),
		CLI_OPT_OUT_DIR(&a.out, "the dashboard's directory (the same as DIR)"),
		{ "scenario", CLI_STRING, &a.f.scenario, "GLOB", "only matching scenarios" },
		{ "device", CLI_STRING, &a.f.device, "GLOB", "only matching devices" },
		{ "case", CLI_STRING, &a.f.cases, "GLOB", "only matching cases" },
		{ "label", CLI_STRING, &a.f.label, "GLOB", "only runs with a matching label (e.g. 'nightly-*')" },
		{ "last", CLI_INT, &a.f.last, "N", "the newest N runs of each case (default 100)" },
		{ "min-step", CLI_DOUBLE, &a.min_step_pct, "PCT", "name steps of at least PCT percent (default 5)" },
		{ "title", CLI_STRING, &a.title, "TEXT", "the page's title (default 'abbench dashboard')" },
		{ "no-plots", CLI_FLAG, &a.no_plots, NULL, "write chart data and scripts, do not run gnuplot" },
		{ "no-reports", CLI_FLAG, &a.no_reports, NULL, "do not write the newest runs' full reports" },
		{ "commit-url", CLI_STRING, &a.commit_url, "URL",
		  "link every commit: an http(s) URL with {commit} in it, e.g. 'https://github.com/ORG/REPO/commit/{commit}'" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"publish", "DIR", "write a static HTML dashboard of the history into DIR",
		"DIR/index.html (plain HTML and CSS, no script, relative links: it works from file:// and\n"
		"any static host) shows scenarios x devices; per scenario and device the newest run with a\n"
		"link to its full report (DIR/runs/run-ID/report.md) and per case its trend chart\n"
		"(DIR/charts/; one per sweep past 64 cases), its latest figures and the steps in its\n"
		"history (see 'abbench history'); DIR/steps.html lists every step, regressions and improvements\n"
		"and those between runs of one commit (noise), with links to both runs' reports. Each chart's\n"
		"points show their run, commit and figure when hovered. --commit-url links every commit.\n"
		"DIR may be given as --out DIR.",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (a.f.last < 0 || a.f.last > STEPS_MAX_POINTS || !(a.min_step_pct >= 0)) {
		ab_error("publish: --last must be 1 to %d and --min-step 0 or more", STEPS_MAX_POINTS);
		return AB_EXIT_USAGE;
	}
	if (!n_pos == !a.out.out) {
		ab_error("publish: %s (usage: abbench publish DIR)", n_pos ? "DIR given twice (DIR and --out)"
								       : "missing argument");
		return AB_EXIT_USAGE;
	}
	if (!output_pick(&a.out, "publish", publish_kinds, 1, "html", &a.p, &kind))
		return AB_EXIT_USAGE;
	if (a.commit_url && !commit_url_ok(a.commit_url)) {
		ab_error("publish: --commit-url must be an http:// or https:// URL holding {commit}, with no space, quote "
			 "or control character (as in 'https://github.com/ORG/REPO/commit/{commit}')");
		return AB_EXIT_USAGE;
	}
	a.dir = n_pos ? pos[0] : a.out.out;
	a.f.min_step = a.min_step_pct / 100;
	struct ab_diag d;
	return cli_exit_rc(publish(db, &a, &d), &d, "publish");
}
