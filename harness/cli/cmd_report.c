/*
 * cmd_report.c - `abbench report [RUN...] [--out DIR]`: a run as markdown
 * with gnuplot charts (report.c), by default in reports/run-ID/.
 *
 * Besides the run it loads the device profile (for the drift verdict) and
 * its peers, the runs set beside it per GPU: the other runs named on the
 * command line (runs of the same scenario, quick and fake-timer ones
 * included since they were named), else the newest 'ok' run of the same
 * scenario on every other device (never a quick or fake-timer one). Every
 * run is summarised once. A missing profile or gnuplot is a warning, not a
 * failure: the report is still written and says what is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "config/profile.h"
#include "print/report.h"
#include "store/store.h"

#define MAX_RUNS 16

/* The runs: run[0] is reported, the others are its peers. */
struct runs {
	struct results_run *run[MAX_RUNS];
	struct summary_run sum[MAX_RUNS];
	const struct summary_run *ptr[MAX_RUNS];
	int n, n_summed;
	bool named;                        /* peers named on the command line */
};

static void runs_free(struct runs *p)
{
	for (int i = 0; i < p->n_summed; i++)
		summary_free(&p->sum[i]);
	for (int i = 0; i < p->n; i++)
		results_run_free(p->run[i]);
}

/* The newest 'ok' run of run[0]'s scenario on each other device. */
static enum ab_rc pick_peers(struct store *st, struct runs *p, struct ab_diag *d)
{
	struct results_run_summary *list = NULL;
	int64_t ids[MAX_RUNS - 1];
	int n = 0;
	enum ab_rc rc = store_list_runs(st, &list, &n, d);
	if (rc)
		return rc;
	int k = report_pick_peers(list, n, p->run[0], ids, MAX_RUNS - 1);
	free(list);
	for (int i = 0; !rc && i < k; i++)
		if (!(rc = store_load_run(st, ids[i], &p->run[p->n], d)))
			p->n++;
	return rc;
}

/* A named peer must be a finished run of the same scenario, named once. */
static enum ab_rc check_named(const struct runs *p, int i, struct ab_diag *d)
{
	const struct results_run *r = p->run[i], *first = p->run[0];
	for (int j = 0; j < i; j++)
		if (p->run[j]->id == r->id)
			return ab_fail(d, AB_ERR_USAGE, "run %lld is named twice", (long long)r->id);
	if (strcmp(r->scenario_name, first->scenario_name))
		return ab_fail(d, AB_ERR_USAGE, "runs %lld and %lld measured different scenarios ('%s' and '%s'): a "
			       "report puts runs of one scenario side by side", (long long)first->id, (long long)r->id,
			       first->scenario_name, r->scenario_name);
	if (strcmp(r->status, "ok"))
		return ab_fail(d, AB_ERR_DATA, "run %lld is '%s', not 'ok': nothing to report", (long long)r->id,
			       r->status);
	return AB_OK;
}

/* The runs named (or the newest one), the peers picked for it, and every
 * run's summary. */
static enum ab_rc load_runs(struct store *st, const char *const *pos, int n_pos, struct runs *p, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < (n_pos ? n_pos : 1); i++)
		if (!(rc = store_resolve_load(st, n_pos ? pos[i] : NULL, &p->run[p->n], d)))
			rc = check_named(p, p->n++, d);
	p->named = p->n > 1;
	if (!rc && !p->named)
		rc = pick_peers(st, p, d);
	for (int i = 0; !rc && i < p->n; i++)
		if (!(rc = summary_compute(p->run[i], SUMMARY_FULL, &p->sum[i], d))) {
			p->ptr[i] = &p->sum[i];
			p->n_summed++;
		}
	return rc;
}

/* The device profile; a failure is a warning and leaves *out NULL. */
static const struct profile *find_profile(const struct results_run *r, struct profile *buf, char *note,
					       size_t len)
{
	struct ab_diag d;
	bool fell_back;
	if (profile_find(r->device.name, r->backend, buf, &fell_back, &d)) {
		ab_warn("report: %s; drift is shown but not judged", d.msg);
		snprintf(note, len, "no profile: %s", d.msg);
		return NULL;
	}
	if (fell_back) {
		ab_warn("report: no profile matches device '%s', using %s (add one in profiles/)", r->device.name,
			PROFILE_DEFAULT_FILE);
		snprintf(note, len, "no profile matches this device; %s used", PROFILE_DEFAULT_FILE);
	}
	return buf;
}

static enum ab_rc write_report(const struct runs *p, const char *out, bool no_plots, struct ab_diag *d)
{
	const struct results_run *r = p->run[0];
	struct profile prof;
	struct report_outcome res;
	char dir[4096], note[600] = "";
	int64_t ids[MAX_RUNS];
	struct report_options o = { out, find_profile(r, &prof, note, sizeof note), NULL, p->ptr + 1, p->n - 1,
				    no_plots, p->named };
	o.profile_note = note[0] ? note : NULL;
	if (!out && !p->named && r->n_set_runs) {
		snprintf(dir, sizeof dir, "reports/set-%s", r->run_set);
		o.out_dir = dir;
	} else if (!out) {
		for (int i = 0; i < p->n; i++)
			ids[i] = p->run[i]->id;
		report_default_dir_runs(ids, p->named ? p->n : 1, dir, sizeof dir);
		o.out_dir = dir;
	}
	enum ab_rc rc = report_write(&p->sum[0], &o, &res, d);
	if (!rc && res.plots_skipped && !no_plots)
		ab_warn("report: charts skipped: %s (the .dat and .gp files are written)", res.plots_note);
	if (!rc && res.n_plot_failures)
		ab_warn("report: %d chart(s) failed: %s", res.n_plot_failures, res.plots_note);
	if (!rc)
		printf("%s/report.md\n", o.out_dir);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	const char *db = NULL, *out = NULL;
	bool no_plots = false;
	const struct cli_option opts[] = {
		{ "out", CLI_STRING, &out, "DIR", "output directory (default reports/run-ID, reports/runs-ID-ID...)" },
		CLI_OPT_DB(&db),
		{ "no-plots", CLI_FLAG, &no_plots, NULL, "write chart data and scripts but do not run gnuplot" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"report", "[RUN...]", "write a run's markdown report with gnuplot charts",
		"RUN is a run id, a label or 'last' (the default). Writes DIR/report.md and, beside it,\n"
		"speedup, sweep, per-kernel and sample-distribution charts (.png, with their .dat and .gp).\n"
		"Several runs of one scenario (one per GPU, say) are put side by side: the first is\n"
		"reported, the others join its per-GPU table and its speedup and sweep charts. With one\n"
		"run, the newest 'ok' run of the scenario on each other device joins it (never a quick\n"
		"or fake-timer run: name those to include them). Without gnuplot the report is still\n"
		"written and says that the charts were skipped.",
		0, MAX_RUNS, opts,
	};
	const char *pos[MAX_RUNS] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct ab_diag d;
	struct store *st;
	struct runs *p = calloc(1, sizeof *p);
	if (!p)
		return cli_exit_rc(ab_fail(&d, AB_ERR_NOMEM, "out of memory"), &d, "report");
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = load_runs(st, pos, n_pos, p, &d);
		store_close(st);
	}
	if (!rc)
		rc = write_report(p, out, no_plots, &d);
	runs_free(p);
	free(p);
	return cli_exit_rc(rc, &d, "report");
}
