/*
 * cmd_report.c - `abbench report [RUN] [--out DIR]`: the run as markdown
 * with gnuplot charts (report.c), by default in reports/run-ID/.
 *
 * Besides the run it loads the device profile (for the drift verdict) and
 * the newest 'ok' run of the same scenario on every other device (for the
 * speedup-per-device chart). A missing profile or gnuplot is a warning,
 * not a failure: the report is still written and says what is missing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "config/profile.h"
#include "print/report.h"
#include "store/store.h"

#define MAX_PEERS 16

/* Peers: loaded runs and their summaries (the speedup chart's bars). */
struct peers {
	struct results_run *run[MAX_PEERS];
	struct summary_run sum[MAX_PEERS];
	const struct summary_run *ptr[MAX_PEERS];
	int n;
};

/* The newest 'ok' run of run's scenario on each other device, summarised. */
static enum ab_rc load_peers(struct store *st, const struct results_run *run, struct peers *p, struct ab_diag *d)
{
	struct results_run_summary *list = NULL;
	int64_t ids[MAX_PEERS];
	int n = 0;
	enum ab_rc rc = store_list_runs(st, &list, &n, d);
	if (rc)
		return rc;
	int k = report_pick_peers(list, n, run, ids, MAX_PEERS);
	free(list);
	for (int i = 0; !rc && i < k; i++) {
		if ((rc = store_load_run(st, ids[i], &p->run[p->n], d)))
			break;
		if ((rc = summary_compute(p->run[p->n], SUMMARY_FULL, &p->sum[p->n], d))) {
			results_run_free(p->run[p->n]);
			break;
		}
		p->ptr[p->n] = &p->sum[p->n];
		p->n++;
	}
	return rc;
}

static void peers_free(struct peers *p)
{
	for (int i = 0; i < p->n; i++) {
		summary_free(&p->sum[i]);
		results_run_free(p->run[i]);
	}
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

static enum ab_rc write_report(const struct summary_run *s, const struct peers *p, const char *out, bool no_plots,
				struct ab_diag *d)
{
	const struct results_run *r = s->run;
	struct profile prof;
	struct report_outcome res;
	char dir[4096], note[600] = "";
	struct report_options o = { out, find_profile(r, &prof, note, sizeof note), note[0] ? note : NULL, p->ptr, p->n,
				    no_plots };
	if (!out && r->n_set_runs) {
		snprintf(dir, sizeof dir, "reports/set-%s", r->run_set);
		o.out_dir = dir;
	} else if (!out) {
		report_default_dir(r->id, dir, sizeof dir);
		o.out_dir = dir;
	}
	enum ab_rc rc = report_write(s, &o, &res, d);
	if (!rc && res.plots_skipped && !no_plots)
		ab_warn("report: charts skipped: %s (the .dat and .gp files are written)", res.plots_note);
	if (!rc && res.n_plot_failures)
		ab_warn("report: %d chart(s) failed: %s", res.n_plot_failures, res.plots_note);
	if (!rc)
		printf("%s/report.md\n", o.out_dir);
	return rc;
}

static enum ab_rc make_report(struct store *st, struct results_run *r, const char *out, bool no_plots,
			      struct ab_diag *d)
{
	struct peers *p = calloc(1, sizeof *p);
	struct summary_run s;
	if (!p)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory");
	enum ab_rc rc = load_peers(st, r, p, d);
	if (!rc && !(rc = summary_compute(r, SUMMARY_FULL, &s, d))) {
		rc = write_report(&s, p, out, no_plots, d);
		summary_free(&s);
	}
	peers_free(p);
	free(p);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	const char *db = NULL, *out = NULL;
	bool no_plots = false;
	const struct cli_option opts[] = {
		{ "out", CLI_STRING, &out, "DIR", "output directory (default reports/run-ID)" },
		CLI_OPT_DB(&db),
		{ "no-plots", CLI_FLAG, &no_plots, NULL, "write chart data and scripts but do not run gnuplot" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"report", "[RUN]", "write a run's markdown report with gnuplot charts",
		"RUN is a run id, a label or 'last' (the default). Writes DIR/report.md and, beside it,\n"
		"speedup, per-kernel and sample-distribution charts (.png, with their .dat and .gp).\n"
		"Without gnuplot the report is still written and says that the charts were skipped.",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct ab_diag d;
	struct store *st;
	struct results_run *r = NULL;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = store_resolve_load(st, pos[0], &r, &d);
		if (!rc)
			rc = make_report(st, r, out, no_plots, &d);
		store_close(st);
	}
	results_run_free(r);
	return cli_exit_rc(rc, &d, "report");
}
