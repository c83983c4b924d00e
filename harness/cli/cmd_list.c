/*
 * cmd_list.c - `abbench list`: one line per stored run, newest first.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "store/store.h"

int cmd_list(int argc, char **argv)
{
	const char *db = NULL;
	const struct cli_option opts[] = {
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "list", NULL, "list stored runs: id, time, scenario, backend, device, status",
				       NULL, 0, 0, opts };
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct ab_diag d;
	struct store *st;
	struct results_run_summary *runs = NULL;
	int n = 0;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = store_list_runs(st, &runs, &n, &d);
		store_close(st);
	}
	if (rc)
		return cli_exit_rc(rc, &d, NULL);
	printf("%-5s %-20s %-20s %-24s %-5s %-8s %s\n", "id", "started (UTC)", "scenario", "label", "cases",
	       "status", "backend/device");
	for (int i = 0; i < n; i++)
		printf("%-5lld %-20s %-20s %-24s %-5d %-8s %s/%s\n", (long long)runs[i].id, runs[i].started_at,
		       runs[i].scenario_name, runs[i].label[0] ? runs[i].label : "-", runs[i].n_cases,
		       runs[i].status, runs[i].backend, runs[i].device);
	if (n == 0)
		fprintf(stderr, "no runs yet (abbench run SCENARIO.ini)\n");
	free(runs);
	return cli_finish(AB_EXIT_OK);
}
