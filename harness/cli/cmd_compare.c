/*
 * cmd_compare.c - `abbench compare RUN_A RUN_B [--format markdown|json]
 * [--out FILE] [--db-b FILE]`: the same scenario measured by two builds,
 * case by case (analysis/compare.c), printed by a printer (print/printer.h:
 * markdown, print/gate_print.c, or json), held to the
 * gate's floors (the relative threshold, the A arms' drift and the absolute
 * floor; from the options or the second run's device profile) so that an
 * A/A pair is not called slower for a shift no gate would call. RUN_B may
 * come from another database (--db-b). Exit 0 whatever the verdicts (the
 * gate is the command that judges); 2 when the runs measured different
 * scenarios or do not exist.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/floors.h"
#include "cli/load.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/printer.h"
#include "store/store.h"

static const enum printer_kind compare_kinds[] = { PRINTER_COMPARE };

struct compare_args {
	struct cli_output out;
	const struct printer *p;
	double max_regression, min_change_ns; /* NAN: from the device profile */
	bool no_floors;
	struct load_profile lp_a, lp_b;       /* each run's profile, looked up once */
};

/* Holds the verdicts of res to the floors of run b (options or profile). */
static enum ab_rc apply_floors(const struct results_run *b, const struct compare_args *o, struct compare_result *res,
			       struct ab_diag *d)
{
	struct floors fl;
	enum ab_rc rc = floors_resolve(o->max_regression, o->min_change_ns, b, &o->lp_b, "compare", &fl, d);
	if (rc)
		return rc;
	struct compare_floors cf = { fl.pct / 100, fl.min_ns, "", "" };
	snprintf(cf.threshold_source, sizeof cf.threshold_source, "%s", fl.pct_src);
	snprintf(cf.min_source, sizeof cf.min_source, "%s", fl.min_src);
	compare_apply_floors(res, &cf);
	return AB_OK;
}

/* The last component of a database path, for the printed run lines. */
static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Compares the summaries, holds the verdicts to the floors and prints. */
static enum ab_rc print_comparison(const struct summary_run *a, const struct summary_run *b, const char *db_a,
				   const char *db_b, const struct compare_args *o, struct ab_diag *d)
{
	struct compare_result res;
	enum ab_rc rc = compare_runs(a, b, &res, d);
	if (rc)
		return rc;
	if (strcmp(db_a, db_b)) {
		snprintf(res.db_a, sizeof res.db_a, "%s", base_of(db_a));
		snprintf(res.db_b, sizeof res.db_b, "%s", base_of(db_b));
	}
	if (!o->no_floors)
		rc = apply_floors(b->run, o, &res, d);
	if (!rc) {
		struct printer_job job = { .summary = a, .second = b, .compare = &res };
		rc = printer_emit(o->p, PRINTER_COMPARE, &job, o->out.out, d);
	}
	compare_result_free(&res);
	return rc;
}

/* Summarises both runs (no A/B intervals: compare does not print them). */
static enum ab_rc compare_and_print(const struct results_run *a, const struct results_run *b, const char *db_a,
				    const char *db_b, struct compare_args *o, struct ab_diag *d)
{
	struct summary_run sa, sb;
	load_profile(a, &o->lp_a);
	load_profile(b, &o->lp_b);
	load_profile_warn(&o->lp_a, "compare", "the first run's bandwidth is held against its measured copy only");
	if (o->no_floors || (!isnan(o->max_regression) && !isnan(o->min_change_ns)))
		load_profile_warn(&o->lp_b, "compare", "the second run's bandwidth is held against its measured copy only");
	enum ab_rc rc = load_summary(a, SUMMARY_NO_INTERVALS, &o->lp_a, &sa, d);
	if (rc)
		return rc;
	if (!(rc = load_summary(b, SUMMARY_NO_INTERVALS, &o->lp_b, &sb, d))) {
		rc = print_comparison(&sa, &sb, db_a, db_b, o, d);
		summary_free(&sb);
	}
	summary_free(&sa);
	return rc;
}

static bool valid_floors(const struct compare_args *o)
{
	if (!isnan(o->max_regression) && !(o->max_regression > 0)) {
		ab_error("compare: --max-regression must be a positive percentage, not %g", o->max_regression);
		return false;
	}
	if (!isnan(o->min_change_ns) && !(o->min_change_ns >= 0)) {
		ab_error("compare: --min-change-ns must be 0 or more nanoseconds, not %g", o->min_change_ns);
		return false;
	}
	return true;
}

int cmd_compare(int argc, char **argv)
{
	const char *db = NULL, *db_b = NULL;
	struct compare_args o = { .max_regression = NAN, .min_change_ns = NAN };
	enum printer_kind kind;
	output_help(&o.out, compare_kinds, 1, "markdown");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o.out),
		CLI_OPT_OUT(&o.out, "a reader sees the old file or the whole new one"),
		CLI_OPT_JSON_ALIAS(&o.out),
		{ "db-b", CLI_STRING, &db_b, "FILE", "read RUN_B from this database (default: the same as RUN_A)" },
		{ "max-regression", CLI_DOUBLE, &o.max_regression, "PCT", "a change within PCT percent is no change (default: device profile)" },
		{ "min-change-ns", CLI_DOUBLE, &o.min_change_ns, "NS", "a change within NS nanoseconds is no change (default: device profile)" },
		{ "no-floors", CLI_FLAG, &o.no_floors, NULL, "call every change with p < 0.01, however small" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"compare", "RUN_A RUN_B", "compare the fused arm of two runs of one scenario, case by case",
		"RUN is a run id, a label (e.g. main, pr), 'last' or set:ID; RUN_B is read from --db-b when given\n"
		"(two databases: a main branch's and a pull request's). Per case: median B-arm time in each\n"
		"run, their ratio with a 95% bootstrap interval, Mann-Whitney p, a verdict, and whether the\n"
		"outputs' md5 agree. A change is called faster or slower when p < 0.01 and it clears the\n"
		"gate's floors: the relative threshold, the A arms' drift and the absolute floor (from the\n"
		"options, else RUN_B's device profile); else 'no change beyond the floors'. Runs of\n"
		"different scenarios are refused (exit 2). --format json is the abbench.compare document\n"
		"(docs/JSON.md).",
		2, 2, opts,
	};
	const char *pos[2] = { NULL, NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!valid_floors(&o) || !output_pick(&o.out, "compare", compare_kinds, 1, "markdown", &o.p, &kind))
		return AB_EXIT_USAGE;

	struct ab_diag d;
	struct results_run *a, *b = NULL;
	const char *path_a = store_default_path(db), *path_b = db_b ? db_b : path_a;
	enum ab_rc rc = store_load_spec(path_a, pos[0], &a, &d);
	if (!rc)
		rc = store_load_spec(path_b, pos[1], &b, &d);
	if (!rc)
		rc = compare_and_print(a, b, path_a, path_b, &o, &d);
	results_run_free(a);
	results_run_free(b);
	return cli_exit_rc(rc, &d, "compare");
}
