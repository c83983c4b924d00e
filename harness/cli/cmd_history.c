/*
 * cmd_history.c - `abbench history`: each case's figure over the stored
 * runs (read by cli/load.c, computed by analysis/history.c), with the
 * steps in it named by run and commit, as a table on stdout (--format
 * text) and, with --out DIR, one gnuplot chart per case (per sweep past
 * 64 cases: print/trend.c). Exit 0; 2 when no run or case matches or an
 * option is bad; 3 on database or IO failures (a full disk under the
 * charts included).
 */
#include <math.h>
#include <stdio.h>

#include "analysis/history.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/printer.h"
#include "print/trend.h"
#include "store/store.h"
#include "common/suggest.h"

static const enum printer_kind history_kinds[] = { PRINTER_HISTORY };

struct history_args {
	struct history_filter f;
	struct cli_output out;
	const struct printer *p;
	const char *metric;
	double min_step_pct;
	bool no_plots;
};

static enum ab_rc charts(const char *dir, const struct history *h, bool no_plots, struct ab_diag *d)
{
	struct trend_outcome o;
	enum ab_rc rc = trend_write_charts(dir, h, no_plots, false, &o, d);
	if (!rc && o.drawn.skipped && !no_plots)
		ab_warn("history: charts skipped: %s (the .dat and .gp files are written)", o.drawn.note);
	if (!rc && o.drawn.n_failed)
		ab_warn("history: %d chart(s) failed: %s", o.drawn.n_failed, o.drawn.note);
	if (!rc)
		fprintf(stderr, "history: %d chart(s) in '%s'\n", o.drawn.n_drawn, dir);
	trend_outcome_free(&o);
	return rc;
}

static enum ab_rc history_run(const char *db, const struct history_args *a, struct ab_diag *d)
{
	struct store *st;
	struct history h;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, d);
	if (rc)
		return rc;
	rc = load_history(st, &a->f, &h, d);
	store_close(st);
	if (rc)
		return rc;
	struct printer_job job = { .history = &h };
	rc = printer_emit(a->p, PRINTER_HISTORY, &job, NULL, d);
	if (!rc && a->out.out)
		rc = charts(a->out.out, &h, a->no_plots, d);
	history_free(&h);
	return rc;
}

static bool check_args(struct history_args *a)
{
	if (a->metric && !history_metric_parse(a->metric, &a->f.metric)) {
		static const char *const metrics[] = { "median", "speedup", "gbps" };
		const char *near = suggest_nearest(a->metric, metrics, 3);
		ab_error("history: --metric must be median, speedup or gbps, not '%s'%s%s%s", a->metric,
			 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		return false;
	}
	if (a->f.last < 0 || a->f.last > STEPS_MAX_POINTS) {
		ab_error("history: --last must be 1 to %d runs, not %d", STEPS_MAX_POINTS, a->f.last);
		return false;
	}
	if (!(a->min_step_pct >= 0) || !isfinite(a->min_step_pct)) {
		ab_error("history: --min-step must be 0 or more percent, not %g", a->min_step_pct);
		return false;
	}
	a->f.min_step = a->min_step_pct / 100;
	return true;
}

int cmd_history(int argc, char **argv)
{
	const char *db = NULL;
	struct history_args a = { .min_step_pct = HISTORY_DEFAULT_MIN_STEP * 100 };
	output_help(&a.out, history_kinds, 1, "text");
	const struct cli_option opts[] = {
		{ "case", CLI_STRING, &a.f.cases, "GLOB", "only cases whose name matches (e.g. 'img_*')" },
		{ "scenario", CLI_STRING, &a.f.scenario, "GLOB", "only runs of matching scenarios" },
		{ "label", CLI_STRING, &a.f.label, "GLOB", "only runs with a matching label (e.g. 'nightly-*')" },
		{ "device", CLI_STRING, &a.f.device, "GLOB", "only runs on matching devices (e.g. '*H200*')" },
		{ "metric", CLI_STRING, &a.metric, "median|speedup|gbps",
		  "the fused arm's median time (default), the speedup, or the fused arm's GB/s" },
		{ "last", CLI_INT, &a.f.last, "N", "the newest N runs of each case (default 100)" },
		{ "min-step", CLI_DOUBLE, &a.min_step_pct, "PCT", "name steps of at least PCT percent (default 5)" },
		CLI_OPT_FORMAT(&a.out),
		CLI_OPT_OUT_DIR(&a.out, "write one chart per case into DIR (.png with .dat and .gp; per sweep past 64 cases)"),
		{ "no-plots", CLI_FLAG, &a.no_plots, NULL, "with --out: write chart data and scripts, do not run gnuplot" },
		{ "rechecks", CLI_FLAG, &a.f.rechecks, NULL, "include the re-measurement runs (run --recheck: cases measured again)" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"history", NULL, "each case's trend over runs, and the steps in it",
		"One table per scenario, device and case: a row per 'ok' run (oldest first) with its commit,\n"
		"label, the figure and its 95% interval (n/a under 10 samples), baseline and notes. Steps are\n"
		"found by E-divisive means with Welch's t under a noise model (the series' own noise, the\n"
		"runs' intervals; 3 runs on each side, p < 0.001) and named by the run and commit where each\n"
		"begins; steps under --min-step and single-run outliers are not. A step between two runs of one\n"
		"commit is 'same commit: noise' unless the scenario or the driver changed with it.\n"
		"Re-measurement runs (run --recheck) are left out unless --rechecks. The table goes to standard\n"
		"output; --out names the charts' directory.",
		0, 0, opts,
	};
	const char *pos[1];
	enum printer_kind kind;
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!check_args(&a) || !output_pick(&a.out, "history", history_kinds, 1, "text", &a.p, &kind))
		return AB_EXIT_USAGE;
	struct ab_diag d;
	return cli_exit_rc(history_run(db, &a, &d), &d, "history");
}
