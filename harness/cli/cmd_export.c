/*
 * cmd_export.c - `abbench export [RUN] --csv FILE`: one CSV row per
 * (case, slot), written through libcsv; --json FILE: the whole run as
 * JSON; --benchmark-json FILE: per case and arm the median for trend
 * services (github-action-benchmark's customSmallerIsBetter).
 */
#include <stdio.h>

#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "print/export_csv.h"
#include "print/json_export.h"
#include "print/json_out.h"
#include "print/json_verdict.h"
#include "store/store.h"

int cmd_export(int argc, char **argv)
{
	const char *db = NULL, *csv = NULL, *json = NULL, *bench = NULL;
	const struct cli_option opts[] = {
		{ "csv", CLI_STRING, &csv, "FILE", "write CSV to FILE ('-' for standard output)" },
		{ "json", CLI_STRING, &json, "FILE", "write the whole run as JSON (docs/JSON.md) to FILE ('-': stdout)" },
		{ "benchmark-json", CLI_STRING, &bench, "FILE", "write github-action-benchmark's customSmallerIsBetter JSON to FILE" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"export", "[RUN]", "write a run's results as CSV, one row per case and slot",
		"Columns start with case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,bit_exact\n"
		"(slot is A1, B, A2 for an ABA bracket; bit_exact is 1 when the slot's output bytes equal arm a's)\n"
		"and end with the case's figures that show and report print: arm_samples,arm_median_ns,\n"
		"arm_p10_ns,arm_p90_ns (the row's arm pooled),speedup,speedup_low,speedup_high,drift,case_bit_exact.\n"
		"--json writes every field, sample and kernel record; --benchmark-json a list of\n"
		"{name, unit, value, range, extra}, one per case and arm. At least one of the three is needed.",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!csv && !json && !bench) {
		ab_error("export: --csv FILE, --json FILE or --benchmark-json FILE is required");
		return AB_EXIT_USAGE;
	}

	struct ab_diag d;
	struct results_run *r;
	struct summary_run s;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &r, &d);
	if (!rc && json)
		rc = json_out_write(json_export_run(r), json, &d);
	if (!rc && (csv || bench) && !(rc = summary_compute(r, SUMMARY_FULL, &s, &d))) {
		if (csv)
			rc = export_csv_write(&s, csv, &d);
		if (!rc && bench)
			rc = json_out_write(json_verdict_benchmark(&s), bench, &d);
		summary_free(&s);
	}
	results_run_free(r);
	return cli_exit_rc(rc, &d, NULL);
}
