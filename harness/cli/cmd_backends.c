/*
 * cmd_backends.c - `abbench backends`: the backends of this build and
 * whether each can run here (backend_choose's answer, with its reason);
 * with --check NAME, the answer as an exit status only (scripts/make_run.sh
 * picks its scenario with it).
 */
#include <stdio.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"

/* Whether the backend chosen by c can run here; the reason in why when not. */
static bool usable(enum backend_choice c, char *why, size_t len)
{
	const struct backend_ops *ops;
	bool fell_back;
	struct ab_diag d;
	return backend_choose(c, &ops, &fell_back, why, len, &d) == AB_OK;
}

int cmd_backends(int argc, char **argv)
{
	const char *check = NULL;
	const struct cli_option opts[] = {
		{ "check", CLI_STRING, &check, "NAME",
		  "print nothing; exit 0 when backend NAME (cpu, cuda) can run here, 1 when it cannot" },
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

	char why[256];
	if (check) {
		enum backend_choice c;
		if (!backend_choice_parse(check, &c) || c == BACKEND_AUTO) {
			ab_error("backends: unknown backend '%s' (backends: cpu, cuda)", check);
			return AB_EXIT_USAGE;
		}
		return cli_finish(usable(c, why, sizeof why) ? AB_EXIT_OK : AB_EXIT_VERDICT);
	}
	const enum backend_choice list[] = { BACKEND_CPU, BACKEND_CUDA };
	for (int i = 0; i < 2; i++) {
		const bool ok = usable(list[i], why, sizeof why);
		printf("%-5s %s%s%s\n", backend_choice_name(list[i]), ok ? "available" : "not available", ok ? "" : ": ",
		       ok ? "" : why);
	}
	return cli_finish(AB_EXIT_OK);
}
