/*
 * cmd_show.c - `abbench show [RUN]`: a readable table per case.
 */
#include <stdio.h>

#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "print/json_export.h"
#include "print/json_out.h"
#include "print/show.h"
#include "store/store.h"

int cmd_show(int argc, char **argv)
{
	const char *db = NULL;
	bool json = false;
	const struct cli_option opts[] = {
		CLI_OPT_DB(&db),
		{ "json", CLI_FLAG, &json, NULL, "print JSON (format abbench.show, docs/JSON.md) instead of tables" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "show", "[RUN]", "print a run's results per case (RUN: id, label, 'last' or set:ID)",
				       NULL, 0, 1, opts };
	const char *pos[1] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct ab_diag d;
	struct results_run *r;
	struct summary_run s;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &r, &d);
	if (rc)
		return cli_exit_rc(rc, &d, NULL);
	if (!(rc = summary_compute(r, SUMMARY_FULL, &s, &d))) {
		if (json)
			rc = json_out_write(json_export_show(&s), NULL, &d);
		else
			show_run(&s, stdout);
		summary_free(&s);
	}
	results_run_free(r);
	return cli_exit_rc(rc, &d, "show");
}
