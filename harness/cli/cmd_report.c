/*
 * cmd_report.c - `abbench report [RUN...] [--out DIR]`: a run as markdown
 * with gnuplot charts (the markdown printer's report, print/report.c), by
 * default in reports/run-ID/.
 *
 * Besides the run it loads its peers, the runs set beside it per GPU: the
 * other runs named on the command line (runs of the same scenario, quick
 * and fake-timer ones included since they were named), else the newest
 * 'ok' run of the same scenario on every other device (analysis/peers.h
 * picks them, never a quick or fake-timer one). Each run's device profile
 * is looked up once and every run summarised once with it; the peers
 * table (cells and md5 agreement) is computed before anything is printed.
 * A missing profile or gnuplot is a warning, not a failure: the report is
 * still written and says what is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/peers.h"
#include "analysis/projection.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/escape.h"
#include "print/printer.h"
#include "print/report.h"
#include "store/store.h"

#define MAX_RUNS 16

static const enum printer_kind report_kinds[] = { PRINTER_REPORT };

/* The runs: run[0] is reported, the others are its peers. */
struct runs {
	struct results_run *run[MAX_RUNS];
	struct summary_run sum[MAX_RUNS];
	const struct summary_run *ptr[MAX_RUNS];
	struct load_profile lp;            /* run[0]'s profile */
	int n, n_summed;
	bool named;                        /* peers named on the command line */
	/* --projected-by: the site run, its summary, and the projection */
	struct results_run *sites;
	struct summary_run sites_sum;
	bool sites_summed;
	struct projection proj;
	bool projected;
};

static void runs_free(struct runs *p)
{
	if (p->projected)
		projection_free(&p->proj);
	if (p->sites_summed)
		summary_free(&p->sites_sum);
	results_run_free(p->sites);
	for (int i = 0; i < p->n_summed; i++)
		summary_free(&p->sum[i]);
	for (int i = 0; i < p->n; i++)
		results_run_free(p->run[i]);
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
	/* The run reported may be one that did not finish but kept cases (the
	 * report marks it INCOMPLETE); a peer beside it must be whole. */
	if (strcmp(r->status, "ok") && (i > 0 || !r->n_cases))
		return ab_fail(d, AB_ERR_DATA, "run %lld is '%s', not 'ok': nothing to report", (long long)r->id,
			       r->status);
	return AB_OK;
}

/* run[0]'s profile, said when missing or a fallback. */
static void profile_of(struct runs *p)
{
	const struct results_run *r = p->run[0];
	load_profile(r, &p->lp);
	if (p->lp.rc)
		ab_warn("report: %s; drift is shown but not judged", p->lp.err.msg);
	else if (p->lp.fell_back)
		ab_warn("report: no profile matches device '%s', using %s (add one in profiles/)", r->device.name,
			PROFILE_DEFAULT_FILE);
}

/* The runs named (or the newest one), the peers picked for it, and every
 * run's summary, each with its own device's profile. */
static enum ab_rc load_runs(struct store *st, const char *const *pos, int n_pos, struct runs *p, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < (n_pos ? n_pos : 1); i++)
		if (!(rc = store_resolve_load(st, n_pos ? pos[i] : NULL, &p->run[p->n], d)))
			rc = check_named(p, p->n++, d);
	p->named = p->n > 1;
	if (!rc && !p->named)
		rc = load_peers(st, p->run[0], p->run, &p->n, MAX_RUNS, d);
	if (!rc)
		profile_of(p);
	for (int i = 0; !rc && i < p->n; i++) {
		struct load_profile peer;
		if (i) {
			load_profile(p->run[i], &peer);
			load_profile_warn(&peer, "report", "a peer's bandwidth is held against its measured copy only");
		}
		if (!(rc = load_summary(p->run[i], SUMMARY_FULL, i ? &peer : &p->lp, &p->sum[i], d))) {
			p->ptr[i] = &p->sum[i];
			p->n_summed++;
		}
	}
	return rc;
}

/* --projected-by SPEC: the site run it names, summarised with its own
 * device's profile, and its projection held against run[0]'s cases. */
static enum ab_rc load_projection(struct store *st, const char *spec, struct runs *p, struct ab_diag *d)
{
	struct load_profile lp;
	enum ab_rc rc = load_projecting_run(st, p->run[0], spec, &p->sites, d);
	if (!rc && p->sites->id == p->run[0]->id)
		rc = ab_fail(d, AB_ERR_USAGE, "--projected-by '%s' names run %lld, the run reported: name the run "
			     "of the site cases (glm_1024, say)", spec, (long long)p->sites->id);
	if (!rc && strcmp(p->sites->status, "ok"))
		rc = ab_fail(d, AB_ERR_DATA, "--projected-by: run %lld is '%s', not 'ok'", (long long)p->sites->id,
			     p->sites->status);
	if (!rc) {
		load_profile(p->sites, &lp);
		load_profile_warn(&lp, "report", "the projecting run's drift is not judged");
		rc = load_summary(p->sites, SUMMARY_FULL, &lp, &p->sites_sum, d);
		p->sites_summed = !rc;
	}
	if (!rc)
		rc = projection_compute(&p->sum[0], &p->sites_sum, &p->proj, d);
	p->projected = !rc;
	return rc;
}

/* The directory: --out, else reports/set-ID for a run set, else
 * reports/run-ID (reports/runs-ID-ID... with named peers). */
static const char *out_dir(const struct runs *p, const char *out, char *dir, size_t len)
{
	int64_t ids[MAX_RUNS];
	if (out)
		return out;
	if (!p->named && p->run[0]->n_set_runs) {
		report_default_dir_set(p->run[0]->run_set, dir, len);
		return dir;
	}
	for (int i = 0; i < p->n; i++)
		ids[i] = p->run[i]->id;
	report_default_dir_runs(ids, p->named ? p->n : 1, dir, len);
	return dir;
}

static enum ab_rc write_report(const struct runs *p, const struct printer *pr, const char *out, bool no_plots,
			       struct ab_diag *d)
{
	struct peers_table peers;
	struct printer_charts charts;
	char dir[4096], note[600] = "";
	const char *where = out_dir(p, out, dir, sizeof dir);
	enum ab_rc rc = peers_table_build(p->ptr, p->n, &peers, d);
	if (rc)
		return rc;
	if (p->lp.rc)
		snprintf(note, sizeof note, "no profile: %s", p->lp.err.msg);
	else if (p->lp.fell_back)
		snprintf(note, sizeof note, "no profile matches this device; %s used", PROFILE_DEFAULT_FILE);
	struct printer_report rep = { &peers, p->lp.rc ? NULL : &p->lp.prof, note[0] ? note : NULL, p->named,
				      p->projected ? &p->proj : NULL };
	struct printer_job job = { .no_plots = no_plots, .charts = &charts, .report = &rep };
	rc = printer_emit(pr, PRINTER_REPORT, &job, where, d);
	if (!rc && charts.skipped && !no_plots)
		ab_warn("report: charts skipped: %s (the .dat and .gp files are written)", charts.note);
	if (!rc && charts.n_failed)
		ab_warn("report: %d chart(s) failed: %s", charts.n_failed, charts.note);
	if (!rc) {
		char shown[4096 * 4 + 1];
		printf("%s/report.md\n", escape_term(where, shown, sizeof shown));
	}
	peers_table_free(&peers);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	const char *db = NULL;
	struct cli_output o = { 0 };
	const struct printer *pr;
	enum printer_kind kind;
	bool no_plots = false;
	const char *projected_by = NULL;
	output_help(&o, report_kinds, 1, "markdown");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o),
		CLI_OPT_OUT_DIR(&o, "output directory (default reports/run-ID, reports/runs-ID-ID...)"),
		CLI_OPT_DB(&db),
		{ "no-plots", CLI_FLAG, &no_plots, NULL, "write chart data and scripts but do not run gnuplot" },
		{ "projected-by", CLI_STRING, &projected_by, "RUN",
		  "hold the saving that RUN's site cases project (count x (A - B)) against this run's cases; RUN "
		  "may be a scenario's name: its newest 'ok' run on this device" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"report", "[RUN...]", "write a run's markdown report with gnuplot charts",
		"RUN is a run id, a label or 'last' (the default). Writes DIR/report.md and, beside it,\n"
		"speedup, sweep, per-kernel and sample-distribution charts (.png, with their .dat and .gp;\n"
		"the per-case charts only for a run of at most 64 cases, docs/REPORTS.md).\n"
		"Several runs of one scenario (one per GPU, say) are put side by side: the first is\n"
		"reported, the others join its per-GPU table and its speedup and sweep charts. With one\n"
		"run, the newest 'ok' run of the scenario on each other device joins it (never a quick\n"
		"or fake-timer run: name those to include them). Without gnuplot the report is still\n"
		"written and says that the charts were skipped. --projected-by glm_1024 on a run of\n"
		"glm_block.ini puts the saving the sites project beside the saving measured at block and\n"
		"forward level, with the kernel families in context and in isolation (docs/BLOCK.md).",
		0, MAX_RUNS, opts,
	};
	const char *pos[MAX_RUNS] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!output_pick(&o, "report", report_kinds, 1, "markdown", &pr, &kind))
		return AB_EXIT_USAGE;

	struct ab_diag d;
	struct store *st;
	struct runs *p = calloc(1, sizeof *p);
	if (!p)
		return cli_exit_rc(ab_fail(&d, AB_ERR_NOMEM, "out of memory"), &d, "report");
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = load_runs(st, pos, n_pos, p, &d);
		if (!rc && projected_by)
			rc = load_projection(st, projected_by, p, &d);
		store_close(st);
	}
	if (!rc)
		rc = write_report(p, pr, o.out, no_plots, &d);
	runs_free(p);
	free(p);
	return cli_exit_rc(rc, &d, "report");
}
