/*
 * cmd_export.c - `abbench export [RUN] --format csv|json|benchmark [--out
 * FILE]`: a run in full for other tools: csv (one row per case and slot,
 * through libcsv), json (every field, sample and kernel record), benchmark
 * (per case and arm the median, github-action-benchmark's
 * customSmallerIsBetter). The older spellings --csv FILE, --json FILE and
 * --benchmark-json FILE stay, and may be given together: one run, several
 * files.
 */
#include <stdio.h>

#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/printer.h"
#include "store/store.h"

/* The whole run where the format prints one (json), else its summary. */
static const enum printer_kind export_kinds[] = { PRINTER_RECORD, PRINTER_SUMMARY };
#define N_KINDS 2
#define MAX_OUTPUTS 4

struct request {
	const struct printer *p;
	enum printer_kind kind;
	const char *out;
};

/* The outputs asked for, in the order json, csv, benchmark, --format;
 * false (message printed) when one is bad or none is asked for. */
static bool requests(const struct cli_output *o, const char *csv, const char *json, const char *bench,
		     struct request *rq, int *n)
{
	const struct { const char *format, *out; } asked[MAX_OUTPUTS] = {
		{ "json", json }, { "csv", csv }, { "benchmark", bench }, { o->format ? o->format : "csv", o->out },
	};
	*n = 0;
	for (int i = 0; i < MAX_OUTPUTS; i++) {
		struct cli_output one = { .format = asked[i].format };
		if (!asked[i].out && (i < MAX_OUTPUTS - 1 || !o->format))
			continue;
		if (!output_pick(&one, "export", export_kinds, N_KINDS, "csv", &rq[*n].p, &rq[*n].kind))
			return false;
		rq[(*n)++].out = asked[i].out;
	}
	if (!*n)
		ab_error("export: --format NAME [--out FILE] is required (or --csv FILE, --json FILE, --benchmark-json FILE)");
	return *n > 0;
}

static bool needs_summary(const struct request *rq, int n)
{
	for (int i = 0; i < n; i++)
		if (rq[i].kind == PRINTER_SUMMARY)
			return true;
	return false;
}

static enum ab_rc export_run(const struct results_run *r, const struct request *rq, int n, struct ab_diag *d)
{
	struct summary_run s = { 0 };
	struct load_profile lp;
	enum ab_rc rc = AB_OK;
	bool summed = needs_summary(rq, n);
	if (summed) {
		load_profile(r, &lp);
		load_profile_warn(&lp, "export", "bandwidth is held against the run's measured copy only");
		rc = load_summary(r, SUMMARY_FULL, &lp, &s, d);
	}
	for (int i = 0; !rc && i < n; i++) {
		struct printer_job job = { .run = r, .summary = &s };
		rc = printer_emit(rq[i].p, rq[i].kind, &job, rq[i].out, d);
	}
	if (summed && s.cases)
		summary_free(&s);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	const char *db = NULL, *csv = NULL, *json = NULL, *bench = NULL;
	struct cli_output o = { 0 };
	struct request rq[MAX_OUTPUTS];
	int n_rq;
	output_help(&o, export_kinds, N_KINDS, "csv");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o),
		CLI_OPT_OUT(&o, "a failed export leaves no partial file; '-': standard output"),
		{ "csv", CLI_STRING, &csv, "FILE", "alias of --format csv --out FILE" },
		{ "json", CLI_STRING, &json, "FILE", "alias of --format json --out FILE" },
		{ "benchmark-json", CLI_STRING, &bench, "FILE", "alias of --format benchmark --out FILE" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"export", "[RUN]", "write a run's results for other tools: CSV, JSON or a benchmark-trend list",
		"--format csv: columns start with case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,\n"
		"bit_exact (slot is A1, B, A2 for an ABA bracket; bit_exact is 1 when the slot's output bytes equal\n"
		"arm a's) and end with the case's figures that show and report print: arm_samples,arm_median_ns,\n"
		"arm_p10_ns,arm_p90_ns (the row's arm pooled),speedup,speedup_low,speedup_high,drift,case_bit_exact.\n"
		"--format json writes every field, sample and kernel record (abbench.export, docs/JSON.md);\n"
		"--format benchmark a list of {name, unit, value, range, extra}, one per case and arm. One of them\n"
		"is needed; the aliases --csv, --json and --benchmark-json FILE may be given together.",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!requests(&o, csv, json, bench, rq, &n_rq))
		return AB_EXIT_USAGE;

	struct ab_diag d;
	struct results_run *r;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &r, &d);
	if (!rc) {
		rc = export_run(r, rq, n_rq, &d);
		results_run_free(r);
	}
	return cli_exit_rc(rc, &d, NULL);
}
