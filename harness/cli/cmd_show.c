/*
 * cmd_show.c - `abbench show [RUN]`: a run's summary in any format that
 * prints one (--format text, the default: a table per case; json; csv;
 * benchmark), to standard output or --out FILE.
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

static const enum printer_kind show_kinds[] = { PRINTER_SUMMARY };

/* Summarises the run with its device's profile and prints. */
static enum ab_rc show(const struct results_run *r, const struct printer *p, const struct cli_output *o,
		       struct ab_diag *d)
{
	struct summary_run s;
	struct load_profile lp;
	load_profile(r, &lp);
	load_profile_warn(&lp, "show", "bandwidth is held against the run's measured copy only");
	enum ab_rc rc = load_summary(r, SUMMARY_FULL, &lp, &s, d);
	if (!rc) {
		struct printer_job job = { .summary = &s };
		rc = printer_emit(p, PRINTER_SUMMARY, &job, o->out, d);
		summary_free(&s);
	}
	return rc;
}

int cmd_show(int argc, char **argv)
{
	const char *db = NULL;
	struct cli_output o = { 0 };
	const struct printer *p;
	enum printer_kind kind;
	output_help(&o, show_kinds, 1, "text");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o),
		CLI_OPT_OUT(&o, "a reader sees the old file or the whole new one"),
		CLI_OPT_JSON_ALIAS(&o),
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "show", "[RUN]", "print a run's results per case (RUN: id, label, 'last' or set:ID)",
				       "--format json is the abbench.show document of docs/JSON.md.", 0, 1, opts };
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!output_pick(&o, "show", show_kinds, 1, "text", &p, &kind))
		return AB_EXIT_USAGE;
	struct ab_diag d;
	struct results_run *r;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &r, &d);
	if (rc)
		return cli_exit_rc(rc, &d, NULL);
	rc = show(r, p, &o, &d);
	results_run_free(r);
	return cli_exit_rc(rc, &d, "show");
}
