/*
 * cmd_show.c - `abbench show [RUN]`: a readable table per case.
 */
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "diag.h"
#include "show.h"
#include "store.h"

int cmd_show(int argc, char **argv)
{
	const char *db = NULL;
	const struct cli_option opts[] = {
		{ "db", CLI_STRING, &db, "FILE", "database file (default $ABBENCH_DB, else abbench.db)" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "show", "[RUN]", "print a run's results per case (RUN: id, label or 'last')",
				       NULL, 0, 1, opts };
	const char *pos[1] = { NULL };
	int n_pos;
	enum cli_result cr = cli_parse(&spec, argc, argv, pos, &n_pos);
	if (cr != CLI_OK)
		return cr == CLI_HELP_SHOWN ? cli_finish(0) : AB_EXIT_USAGE;

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
	if (rc) {
		ab_error("%s", d.msg);
		return ab_rc_exit_status(rc);
	}
	int status = show_run(r, stdout) ? AB_EXIT_FAILURE : AB_EXIT_OK;
	if (status)
		ab_error("show: out of memory");
	res_run_free(r);
	return cli_finish(status);
}
