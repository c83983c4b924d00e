/*
 * cmd_export.c - `abbench export [RUN] --csv FILE`: one CSV row per
 * (case, slot), written through libcsv.
 */
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "diag.h"
#include "export_csv.h"
#include "store.h"

int cmd_export(int argc, char **argv)
{
	const char *db = NULL, *csv = NULL;
	const struct cli_option opts[] = {
		{ "csv", CLI_STRING, &csv, "FILE", "write CSV to FILE ('-' for standard output); required" },
		{ "db", CLI_STRING, &db, "FILE", "database file (default $ABBENCH_DB, else abbench.db)" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"export", "[RUN]", "write a run's results as CSV, one row per case and slot",
		"Columns start with case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,bit_exact\n"
		"(slot is A1, B, A2 for an ABA bracket; bit_exact is 1 when the slot's output bytes equal arm a's).",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos;
	enum cli_result cr = cli_parse(&spec, argc, argv, pos, &n_pos);
	if (cr != CLI_OK)
		return cr == CLI_HELP_SHOWN ? cli_finish(0) : AB_EXIT_USAGE;
	if (!csv) {
		ab_error("export: --csv FILE is required");
		return AB_EXIT_USAGE;
	}

	struct ab_diag d;
	struct store *st;
	struct res_run *r = NULL;
	int64_t id;
	enum ab_rc rc = store_open(store_default_path(db), false, &st, &d);
	if (!rc) {
		rc = store_resolve_run(st, n_pos ? pos[0] : NULL, &id, &d);
		if (!rc)
			rc = store_load_run(st, id, &r, &d);
		store_close(st);
	}
	if (!rc)
		rc = exp_csv_write(r, csv, &d);
	res_run_free(r);
	if (rc) {
		ab_error("%s", d.msg);
		return ab_rc_exit_status(rc);
	}
	return cli_finish(AB_EXIT_OK);
}
