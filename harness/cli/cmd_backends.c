/*
 * cmd_backends.c - `abbench backends`: the backends of this build and
 * whether each can run here; with --check NAME, the answer as an exit
 * status only (scripts/make_run.sh picks its scenario with it).
 */
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"

int cmd_backends(int argc, char **argv)
{
	const char *check = NULL;
	const struct cli_option opts[] = {
		{ "check", CLI_STRING, &check, "NAME",
		  "print nothing; exit 0 when backend NAME can run here, 1 when it cannot" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "backends", NULL, "list the backends and whether each can run here",
				       "cpu always can; cuda can when this abbench was built with nvcc and a CUDA device "
				       "answers (the reason is printed when not).",
				       0, 0, opts };
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	const struct backend_ops *all[] = { &backend_cpu, backend_cuda_ops };
	const char *names[] = { "cpu", "cuda" };
	bool found = false;
	for (int i = 0; i < 2; i++) {
		if (check && strcmp(check, names[i]))
			continue;
		found = true;
		char why[256] = "not built (no nvcc when this abbench was built)";
		const bool ok = all[i] && all[i]->available(why, sizeof why);
		if (check)
			return cli_finish(ok ? AB_EXIT_OK : AB_EXIT_VERDICT);
		printf("%-5s %s%s%s\n", names[i], ok ? "available" : "not available", why[0] ? ": " : "", why);
	}
	if (!found) {
		ab_error("backends: unknown backend '%s' (backends: cpu, cuda)", check);
		return AB_EXIT_USAGE;
	}
	return cli_finish(AB_EXIT_OK);
}
