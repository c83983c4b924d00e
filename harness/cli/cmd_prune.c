/*
 * cmd_prune.c - `abbench prune`: removes the runs that failed or were
 * interrupted longer ago than --older-than, and runs named by id or label;
 * never a baseline's run, never a run still measuring (store_prune.c).
 * --dry-run says what would go and removes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "common/numparse.h"
#include "common/utc.h"
#include "print/printer.h"
#include "store/store.h"

#define PRUNE_MAX_RUNS 64 /* RUN arguments on one command line */

/* "7d", "12h", "30m", "90s", "2w" (a number and a unit) in seconds; -1
 * for anything else. */
static double age_seconds(const char *text)
{
	static const struct {
		char unit;
		double seconds;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 } };
	size_t n = strlen(text);
	char num[32];
	double v;
	if (n < 2 || n >= sizeof num)
		return -1;
	memcpy(num, text, n - 1);
	num[n - 1] = '\0';
	if (!numparse_double(num, &v) || v < 0 || num[0] == '-' || num[0] == '+')
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (text[n - 1] == units[i].unit)
			return v * units[i].seconds;
	return -1;
}

/* The runs named on the command line, as ids. */
static enum ab_rc resolve_named(struct store *st, const char *const *pos, int n_pos, int64_t *ids, struct ab_diag *d)
{
	for (int i = 0; i < n_pos; i++) {
		if (store_set_spec(pos[i]))
			return ab_fail(d, AB_ERR_USAGE, "'%s' is a run set: name its runs one by one", pos[i]);
		enum ab_rc rc = store_resolve_run(st, pos[i], &ids[i], d);
		if (rc)
			return rc;
	}
	return AB_OK;
}

static enum ab_rc prune(const char *db, const char *before, const char *const *pos, int n_pos, bool dry_run,
			struct ab_diag *d)
{
	struct store *st;
	int64_t ids[PRUNE_MAX_RUNS];
	struct results_run_summary *gone = NULL;
	int n = 0;
	enum ab_rc rc = store_open(store_default_path(db), false, &st, d);
	if (rc)
		return rc;
	rc = resolve_named(st, pos, n_pos, ids, d);
	if (!rc) {
		struct store_prune q = { .before = before, .ids = ids, .n_ids = n_pos, .dry_run = dry_run };
		rc = store_prune_runs(st, &q, &gone, &n, d);
	}
	store_close(st);
	if (!rc)
		rc = prune_print(stdout, gone, n, dry_run, d);
	free(gone);
	return rc;
}

int cmd_prune(int argc, char **argv)
{
	const char *db = NULL, *older = NULL;
	bool dry_run = false;
	const struct cli_option opts[] = {
		{ "older-than", CLI_STRING, &older, "AGE",
		  "the failed and interrupted runs started longer ago than AGE: a number and a unit, s m h d or w (7d)" },
		{ "dry-run", CLI_FLAG, &dry_run, NULL, "print what would be removed; remove nothing" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"prune", "[RUN...] [--older-than AGE]", "remove failed and interrupted runs, or runs named by id or label",
		"Removes, with everything stored under them, the runs that failed or were interrupted and\n"
		"started longer ago than --older-than AGE, and the runs named (an id, a label, 'last'),\n"
		"whatever their status. A baseline's run (and every run of a run set a baseline names) is\n"
		"never removed, nor a run still running: naming one is an error and removes nothing. Prints a\n"
		"line per run removed, newest first, then the count. Exit 0 (also when nothing matched), 2\n"
		"usage or data error (no AGE and no RUN, a bad AGE, an unknown run, a baseline's or running run),\n"
		"3 database failure. The file keeps its size: SQLite reuses the freed pages.",
		0, PRUNE_MAX_RUNS, opts,
	};
	const char *pos[PRUNE_MAX_RUNS];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	char before[32];
	double age = older ? age_seconds(older) : 0;
	if (age < 0) {
		ab_error("prune: --older-than wants a number and a unit (s, m, h, d or w), as 7d, not '%s'", older);
		return AB_EXIT_USAGE;
	}
	if (!older && !n_pos) {
		ab_error("prune: nothing chosen: give --older-than AGE (failed and interrupted runs) or RUN ids");
		return AB_EXIT_USAGE;
	}
	if (older)
		utc_ago(age, before, sizeof before);
	struct ab_diag d;
	enum ab_rc rc = prune(db, older ? before : NULL, pos, n_pos, dry_run, &d);
	return cli_exit_rc(rc, &d, "prune");
}
