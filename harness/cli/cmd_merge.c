/*
 * cmd_merge.c - `abbench merge OUT.db IN.db...`: copy every run (and the
 * baselines) of the inputs into OUT in one transaction (store/merge.h).
 * Exit 0 when merged, 2 when an input cannot be read as this schema or a
 * run's UUID is in OUT with other content (OUT unchanged), 3 on failures.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "store/merge.h"

#define MERGE_MAX_INPUTS 4096

int cmd_merge(int argc, char **argv)
{
	const struct cli_option opts[] = {
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"merge", "OUT.db IN.db...", "copy the runs of several databases into one (shards into a run set)",
		"Copies every run of every IN ('ok' or 'failed'; 'running' ones are left out) with its cases,\n"
		"slots, samples, kernel records, outputs, provenance and device, and the baselines whose name\n"
		"OUT does not use yet, into OUT (created when missing), in one transaction. Runs are matched by\n"
		"UUID: one OUT already holds is skipped, so merging a file twice adds nothing. Exit 2, with OUT\n"
		"unchanged, when an input has another schema version, is not a regular file, fails SQLite's\n"
		"integrity check, or a UUID arrives with other content.\n"
		"Shards merged read as one run: 'abbench show set:ID'.",
		2, MERGE_MAX_INPUTS + 1, opts,
	};
	static const char *pos[MERGE_MAX_INPUTS + 1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct ab_diag d;
	struct merge_stats ms;
	enum ab_rc rc = merge_files(pos[0], pos + 1, n_pos - 1, &ms, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "merge");
	if (ms.running)
		ab_warn("merge: left out %d run%s still 'running' (unfinished or killed)", ms.running,
			ms.running == 1 ? "" : "s");
	if (ms.clashes)
		ab_warn("merge: kept %d baseline%s of '%s' that the inputs name otherwise: %s", ms.clashes,
			ms.clashes == 1 ? "" : "s", pos[0], ms.clash_names);
	printf("merged %d input%s into '%s': %d run%s copied, %d already there, %d baseline%s added\n", n_pos - 1,
	       n_pos == 2 ? "" : "s", pos[0], ms.copied, ms.copied == 1 ? "" : "s", ms.present, ms.baselines,
	       ms.baselines == 1 ? "" : "s");
	return cli_finish(AB_EXIT_OK);
}
