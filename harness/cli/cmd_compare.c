/*
 * cmd_compare.c - `abbench compare RUN_A RUN_B [--out FILE]`: the same
 * scenario measured by two builds, case by case (analysis/compare.c), as
 * markdown (print/compare_print.c).
 * Exit 0 whatever the verdicts (the gate is the command that judges);
 * 2 when the runs measured different scenarios or do not exist.
 */
#include <stdio.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "print/compare_print.h"
#include "print/json_out.h"
#include "print/json_verdict.h"
#include "print/md.h"
#include "store/store.h"

/* Compares the summaries and prints to stdout or, atomically, to path. */
static enum ab_rc print_comparison(const struct summary_run *a, const struct summary_run *b, const char *path,
				   bool json, struct ab_diag *d)
{
	struct compare_result res;
	struct md_file mf;
	enum ab_rc rc = compare_runs(a, b, &res, d);
	if (rc)
		return rc;
	if (json)
		rc = json_out_write(json_verdict_compare(a, b, &res), path, d);
	else if (!path)
		rc = compare_print_table(stdout, a, b, &res, d);
	else if (!(rc = md_file_open(&mf, path, d))) {
		rc = compare_print_table(mf.f, a, b, &res, d);
		if (rc)
			md_file_abort(&mf);
		else
			rc = md_file_commit(&mf, d);
	}
	compare_result_free(&res);
	return rc;
}

/* Summarises both runs (no A/B intervals: compare does not print them). */
static enum ab_rc compare_and_print(const struct results_run *a, const struct results_run *b, const char *path,
				    bool json, struct ab_diag *d)
{
	struct summary_run sa, sb;
	enum ab_rc rc = summary_compute(a, SUMMARY_NO_INTERVALS, &sa, d);
	if (rc)
		return rc;
	if (!(rc = summary_compute(b, SUMMARY_NO_INTERVALS, &sb, d))) {
		rc = print_comparison(&sa, &sb, path, json, d);
		summary_free(&sb);
	}
	summary_free(&sa);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	const char *db = NULL, *out = NULL;
	bool json = false;
	const struct cli_option opts[] = {
		{ "out", CLI_STRING, &out, "FILE", "write the markdown to FILE instead of standard output" },
		{ "json", CLI_FLAG, &json, NULL, "write JSON (format abbench.compare, docs/JSON.md) instead of markdown" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"compare", "RUN_A RUN_B", "compare the fused arm of two runs of one scenario, case by case",
		"RUN is a run id, a label (e.g. main, pr), 'last' or set:ID. Per case: median B-arm time in each run,\n"
		"their ratio with a 95% bootstrap interval, Mann-Whitney p, a verdict at p < 0.01, and whether\n"
		"the outputs' md5 agree. Runs of different scenarios are refused (exit 2).",
		2, 2, opts,
	};
	const char *pos[2] = { NULL, NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct ab_diag d;
	struct results_run *a, *b = NULL;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &a, &d);
	if (!rc)
		rc = store_load_spec(store_default_path(db), pos[1], &b, &d);
	if (!rc)
		rc = compare_and_print(a, b, out, json, &d);
	results_run_free(a);
	results_run_free(b);
	return cli_exit_rc(rc, &d, "compare");
}
