/*
 * cmd_figures.c - `abbench figures`: the table of every figure abbench
 * prints (analysis/figures.h), with its key, level, hint, column head,
 * places in the views and description; --view NAME lists one view's rows
 * in its order (--view csv: the CSV's columns). Text, markdown (the table
 * of docs/REPORTS.md) or the abbench.figures JSON document.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/figures.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "common/diag.h"
#include "common/suggest.h"
#include "print/printer.h"

static const enum printer_kind figures_kinds[] = { PRINTER_FIGURES };

/* The view named name, -1 (with a message) when none is. */
static int view_named(const char *name)
{
	const char *names[FIGURE_VIEWS];
	for (int v = 0; v < FIGURE_VIEWS; v++) {
		names[v] = figure_view_str((enum figure_view)v);
		if (!strcmp(names[v], name))
			return v;
	}
	char hint[256];
	ab_error("figures: no view '%s'%s", name, suggest_hint(name, names, FIGURE_VIEWS, "views", NULL, 1, hint, sizeof hint));
	return -1;
}

int cmd_figures(int argc, char **argv)
{
	const char *view = NULL;
	struct cli_output o = { 0 };
	const struct printer *p;
	enum printer_kind kind;
	output_help(&o, figures_kinds, 1, "text");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o),
		CLI_OPT_OUT(&o, "a reader sees the old file or the whole new one"),
		{ "view", CLI_STRING, &view, "NAME",
		  "only the rows of view NAME (csv, json, show, run, report, bandwidth, sweeps, accuracy), in its order" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = { "figures", NULL, "list every figure abbench prints: its key, hint, head and views",
				       "A figure is a row of one table (analysis/figures.h, docs/REPORTS.md \"The "
				       "figures\"): show, run, report, export and the JSON documents print the rows of "
				       "their view, each formatted by its hint. --format json is the abbench.figures "
				       "document of docs/JSON.md.",
				       0, 0, opts };
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!output_pick(&o, "figures", figures_kinds, 1, "text", &p, &kind))
		return AB_EXIT_USAGE;
	struct printer_job job = { .figures_view = -1 };
	if (view && (job.figures_view = view_named(view)) < 0)
		return AB_EXIT_USAGE;
	struct ab_diag d;
	enum ab_rc rc = printer_emit(p, kind, &job, o.out, &d);
	return cli_exit_rc(rc, &d, "figures");
}
