/*
 * cmd_backends.c - `abbench backends`: the backends abbench knows (the
 * backend table) and whether each can run here, with the reason when not;
 * with --check NAME, the answer as an exit status only (scripts/make_run.sh
 * picks its scenario with it).
 */
#include <stdio.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "common/suggest.h"

int cmd_backends(int argc, char **argv)
{
	const char *check = NULL;
	char names[128], help[256];
	backend_names(names, sizeof names, ", ");
	snprintf(help, sizeof help, "print nothing; exit 0 when backend NAME (%s) can run here, 1 when it cannot", names);
	const struct cli_option opts[] = {
		{ "check", CLI_STRING, &check, "NAME", help },
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "backends", NULL, "list the backends and whether each can run here",
				       "The CPU backend always can; a GPU backend can when this abbench was built with "
				       "it and a device answers (the reason is printed when not).",
				       0, 0, opts };
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	char why[256];
	if (check) {
		const struct backend_entry *e = backend_entry_find(check);
		if (!e) {
			char hint[160];
			suggest_hint_in(check, names, "backends", NULL, 1, hint, sizeof hint);
			ab_error("backends: unknown backend '%s'%s", check, hint);
			return AB_EXIT_USAGE;
		}
		return cli_finish(backend_usable(e, why, sizeof why) ? AB_EXIT_OK : AB_EXIT_VERDICT);
	}
	for (const struct backend_entry *e = backend_table; e->name; e++) {
		const bool ok = backend_usable(e, why, sizeof why);
		printf("%-5s %s%s%s\n", e->name, ok ? "available" : "not available", ok ? "" : ": ", ok ? "" : why);
	}
	return cli_finish(AB_EXIT_OK);
}
