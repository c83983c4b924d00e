/*
 * main.c - abbench's entry point: one table of subcommands, each a thin
 * shell in harness/cli/cmd_<name>.c (git's builtin table, in miniature),
 * and --version (the build's commit, and which backends are built in).
 */
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "common/version.h"
#include "common/suggest.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, "measure a scenario's cases (A/B/A brackets) and store the run" },
	{ "list", cmd_list, "list stored runs" },
	{ "show", cmd_show, "print a run's results per case" },
	{ "export", cmd_export, "write a run's results as CSV, JSON or a benchmark-trend list" },
	{ "sites", cmd_sites, "list the registered sites, their variants and backends" },
	{ "report", cmd_report, "write a markdown report with gnuplot plots of a run" },
	{ "compare", cmd_compare, "compare two runs of the same scenario case by case" },
	{ "diff", cmd_diff, "where a case's outputs differ from arm a's: ULPs, coordinates, rows, first stage" },
	{ "baseline", cmd_baseline, "name a run as a baseline, or list baselines" },
	{ "gate", cmd_gate, "gate a run against a baseline: exit 1 on regression or lost bit-exactness" },
	{ "merge", cmd_merge, "copy the runs of several databases into one (shards into a run set)" },
	{ "backends", cmd_backends, "list the backends and whether each can run here" },
	{ "history", cmd_history, "each case's trend over runs, with the steps in it" },
	{ "publish", cmd_publish, "write a static HTML dashboard of the history" },
	{ "certify", cmd_certify, "certify the signatures runs proved bit-exact; --check proves them again here" },
	{ "coverage", cmd_coverage, "hold a model's logged signatures against a certificate" },
	{ "figures", cmd_figures, "list every figure abbench prints: its key, hint, head and views" },
	{ "prune", cmd_prune, "remove failed and interrupted runs, or runs named by id or label" },
	{ NULL, NULL, NULL },
};

static void print_usage(FILE *out)
{
	fputs("usage: abbench [--version] [--help] COMMAND [ARGS]\n\ncommands:\n", out);
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fputs("\n'abbench COMMAND --help' describes a command's options.\n", out);
}

static int print_version(void)
{
	printf("abbench %s (commit %s)\n", AB_VERSION, ab_build_commit());
	for (const struct backend_entry *e = backend_table; e->name; e++)
		printf("%s backend: %s%s%s\n", e->name, e->ops ? "built in" : "not built: ",
		       e->ops ? (e->ops->build[0] ? " " : "") : e->absent, e->ops ? e->ops->build : "");
	return cli_finish(0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return AB_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version"))
		return print_version();
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		print_usage(stdout);
		return cli_finish(0);
	}
	const char *names[32];
	int n = 0;
	for (const struct command *c = commands; c->name; c++) {
		if (!strcmp(c->name, name))
			return c->fn(argc - 1, argv + 1);
		if (n < 32)
			names[n++] = c->name;
	}
	char hint[SUGGEST_LIST_MAX + 64];
	ab_error("'%s' is not an abbench command%s", name,
		 suggest_hint(name, names, n, "commands", "see 'abbench --help'", 0, hint, sizeof hint));
	return AB_EXIT_USAGE;
}
