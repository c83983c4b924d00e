/*
 * cmd_export.c - `abbench export [RUN] --csv FILE`: one CSV row per
 * (case, slot), written through libcsv.
 */
#include <stdio.h>

#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "print/export_csv.h"
#include "store/store.h"

int cmd_export(int argc, char **argv)
{
	const char *db = NULL, *csv = NULL;
	const struct cli_option opts[] = {
		{ "csv", CLI_STRING, &csv, "FILE", "write CSV to FILE ('-' for standard output); required" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"export", "[RUN]", "write a run's results as CSV, one row per case and slot",
		"Columns start with case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,bit_exact\n"
		"(slot is A1, B, A2 for an ABA bracket; bit_exact is 1 when the slot's output bytes equal arm a's)\n"
		"and end with the case's figures that show and report print: arm_samples,arm_median_ns,\n"
		"arm_p10_ns,arm_p90_ns (the row's arm pooled),speedup,speedup_low,speedup_high,drift,case_bit_exact.",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!csv) {
		ab_error("export: --csv FILE is required");
		return AB_EXIT_USAGE;
	}

	struct ab_diag d;
	struct results_run *r;
	struct summary_run s;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &r, &d);
	if (!rc && !(rc = summary_compute(r, SUMMARY_FULL, &s, &d))) {
		rc = export_csv_write(&s, csv, &d);
		summary_free(&s);
	}
	results_run_free(r);
	return cli_exit_rc(rc, &d, NULL);
}
