/*
 * cmd_baseline.c - `abbench baseline set NAME [RUN]`, `baseline show NAME`
 * and `abbench baseline list`: named pointers to runs, what `abbench gate
 * --baseline NAME` reads.
 * Only an 'ok' run can become a baseline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/escape.h"
#include "print/printer.h"
#include "store/store.h"
#include "common/suggest.h"

static const enum printer_kind baseline_kinds[] = { PRINTER_BASELINES };

/* The run's status from the run list (loading the whole run is not needed). */
static enum ab_rc check_ok(struct store *st, int64_t id, struct ab_diag *d)
{
	struct results_run_summary *list = NULL;
	int n = 0;
	enum ab_rc rc = store_list_runs(st, &list, &n, d);
	for (int i = 0; !rc && i < n; i++)
		if (list[i].id == id && strcmp(list[i].status, "ok"))
			rc = ab_fail(d, AB_ERR_DATA, "run %lld is '%s', not 'ok': it cannot be a baseline",
				     (long long)id, list[i].status);
	free(list);
	return rc;
}

/* NAME -> a whole run set ("set:ID"), which must read as one run. */
static enum ab_rc baseline_set_run_set(struct store *st, const char *name, const char *run, struct ab_diag *d)
{
	struct results_run *r;
	enum ab_rc rc = store_resolve_load(st, run, &r, d);
	if (!rc)
		rc = store_baseline_set_run_set(st, name, r, d);
	if (!rc) {
		struct escape_pool e;
		e.next = 0;
		printf("baseline '%s' -> run set '%s' (%d shards)\n", escape_t(&e, name), escape_t(&e, r->run_set),
		       r->shard_count);
	}
	results_run_free(r);
	return rc;
}

static enum ab_rc baseline_set(struct store *st, const char *name, const char *run, struct ab_diag *d)
{
	int64_t id;
	if (store_set_spec(run))
		return baseline_set_run_set(st, name, run, d);
	enum ab_rc rc = store_resolve_run(st, run, &id, d);
	if (!rc)
		rc = check_ok(st, id, d);
	if (!rc)
		rc = store_baseline_set(st, name, id, d);
	if (!rc) {
		char e[256];
		printf("baseline '%s' -> run %lld\n", escape_term(name, e, sizeof e), (long long)id);
	}
	return rc;
}

static enum ab_rc baseline_list(struct store *st, const struct printer *p, const char *out, struct ab_diag *d)
{
	struct store_baseline *b = NULL;
	int n = 0;
	enum ab_rc rc = store_baseline_list(st, &b, &n, d);
	if (rc)
		return rc;
	struct printer_job job = { .baselines = b, .n_baselines = n };
	rc = printer_emit(p, PRINTER_BASELINES, &job, out, d);
	if (!rc && !n)
		fprintf(stderr, "no baselines yet (abbench baseline set NAME [RUN])\n");
	free(b);
	return rc;
}

/* `baseline show NAME`: the run it points at; exit 2 when there is no such
 * baseline (scripts/nightly.sh --init asks this before the first night). */
static enum ab_rc baseline_show(struct store *st, const char *name, struct ab_diag *d)
{
	int64_t id;
	enum ab_rc rc = store_baseline_get(st, name, &id, d);
	if (!rc) {
		char e[256];
		printf("baseline '%s' -> run %lld\n", escape_term(name, e, sizeof e), (long long)id);
	}
	return rc;
}

/* Checks the action and its argument count; prints the error. */
static bool valid_action(const char **pos, int n_pos)
{
	if (!strcmp(pos[0], "set") && n_pos >= 2)
		return true;
	if (!strcmp(pos[0], "list") && n_pos == 1)
		return true;
	if (!strcmp(pos[0], "show") && n_pos == 2)
		return true;
	if (!strcmp(pos[0], "set") || !strcmp(pos[0], "list") || !strcmp(pos[0], "show"))
		ab_error("baseline: usage: abbench baseline set NAME [RUN] | abbench baseline show NAME | "
			 "abbench baseline list");
	else {
		static const char *const actions[] = { "set", "show", "list" };
		const char *near = suggest_nearest(pos[0], actions, 3);
		ab_error("baseline: unknown action '%s' (%s%s%sset, show or list)", pos[0], near ? "did you mean '" : "",
			 near ? near : "", near ? "'? " : "");
	}
	return false;
}

int cmd_baseline(int argc, char **argv)
{
	const char *db = NULL;
	struct cli_output o = { 0 };
	enum printer_kind kind;
	const struct printer *p;
	output_help(&o, baseline_kinds, 1, "text");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o),
		CLI_OPT_OUT(&o, "list only"),
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"baseline", "set NAME [RUN] | show NAME | list", "name a run as a baseline for the gate, or list baselines",
		"set NAME [RUN]: point NAME at RUN (an id, a label, 'last', the default, or a whole run set\n"
		"set:ID); an existing NAME moves. NAME is 1 to 63 characters, not all digits, not 'last'\n"
		"and not a run's label (any of those would shadow a run). show NAME: the run NAME points at\n"
		"(exit 2 when there is no such baseline). list: every baseline with its run, scenario and\n"
		"device.",
		1, 3, opts,
	};
	const char *pos[3] = { NULL, NULL, NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!valid_action(pos, n_pos) || !output_pick(&o, "baseline", baseline_kinds, 1, "text", &p, &kind))
		return AB_EXIT_USAGE;

	struct ab_diag d;
	struct store *st;
	bool set = !strcmp(pos[0], "set");
	enum ab_rc rc = set ? store_open(store_default_path(db), false, &st, &d)
			    : store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		if (!strcmp(pos[0], "set"))
			rc = baseline_set(st, pos[1], pos[2], &d);
		else if (!strcmp(pos[0], "show"))
			rc = baseline_show(st, pos[1], &d);
		else
			rc = baseline_list(st, p, o.out, &d);
		store_close(st);
	}
	return cli_exit_rc(rc, &d, "baseline");
}
