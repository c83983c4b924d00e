/*
 * store_prune.c - removing runs (store.h, store_prune_runs): the failed and
 * interrupted runs older than a time, and runs named one by one; never a
 * run a baseline points at, nor one of a run set a baseline names, nor a
 * run still running. The choice and the removal happen in one write
 * transaction, so a run that becomes a baseline meanwhile waits for it
 * and is judged after; a run's cases, slots, samples, kernels, outputs
 * and arms go with it (the schema's ON DELETE CASCADE).
 */
#include "store/store.h"
#include "store/store_int.h"

#include <inttypes.h>
#include <stdlib.h>

/* The ids no prune may take: baselines' runs and their run sets' runs. */
static enum ab_rc protected_ids(struct store *st, int64_t **out, int *n, struct ab_diag *d)
{
	static const char sql[] = "SELECT run_id FROM baselines UNION SELECT r.id FROM runs r JOIN baselines b"
				  " ON b.run_set != '' AND r.run_set = b.run_set";
	sqlite3_stmt *s;
	int cap = 0, src;
	enum ab_rc rc = store_prepare(st, sql, &s, d);
	*out = NULL;
	*n = 0;
	while (!rc && (src = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t *grown = store_grow(*out, *n, &cap, sizeof **out);
		if (!grown) {
			rc = store_nomem(d, "the baselines' runs");
			break;
		}
		*out = grown;
		(*out)[(*n)++] = sqlite3_column_int64(s, 0);
	}
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(st, d, "read the baselines' runs");
	sqlite3_finalize(s);
	return rc;
}

static bool has_id(const int64_t *v, int n, int64_t id)
{
	for (int i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

static const struct results_run_summary *find_run(const struct results_run_summary *runs, int n, int64_t id)
{
	for (int i = 0; i < n; i++)
		if (runs[i].id == id)
			return &runs[i];
	return NULL;
}

/* Every run q names must exist and may be removed. */
static enum ab_rc check_named(struct store *st, const struct store_prune *q, const struct results_run_summary *runs,
			      int n, const int64_t *prot, int n_prot, struct ab_diag *d)
{
	for (int i = 0; i < q->n_ids; i++) {
		const struct results_run_summary *r = find_run(runs, n, q->ids[i]);
		if (!r)
			return ab_fail(d, AB_ERR_DATA, "no run %" PRId64 " in '%s'", q->ids[i], st->path);
		if (!strcmp(r->status, "running"))
			return ab_fail(d, AB_ERR_USAGE, "run %" PRId64 " is still running: it is not pruned", r->id);
		if (has_id(prot, n_prot, r->id))
			return ab_fail(d, AB_ERR_USAGE,
				       "run %" PRId64 " is a baseline's run (abbench baseline list): a baseline's run is "
				       "never pruned",
				       r->id);
	}
	return AB_OK;
}

/* Whether run r goes: named, or failed or interrupted before q->before. */
static bool chosen(const struct store_prune *q, const struct results_run_summary *r, const int64_t *prot, int n_prot)
{
	if (has_id(q->ids, q->n_ids, r->id))
		return true;
	bool unfinished = !strcmp(r->status, "failed") || !strcmp(r->status, "interrupted");
	return q->before && unfinished && strcmp(r->started_at, q->before) < 0 && !has_id(prot, n_prot, r->id);
}

static enum ab_rc delete_runs(struct store *st, const struct results_run_summary *runs, int n, struct ab_diag *d)
{
	sqlite3_stmt *s;
	enum ab_rc rc = store_prepare(st, "DELETE FROM runs WHERE id = ?", &s, d);
	for (int i = 0; !rc && i < n; i++) {
		struct bind b = bind_start(s);
		b_i64(&b, runs[i].id);
		rc = store_run_bound(st, &b, d, "remove run %" PRId64, runs[i].id);
	}
	sqlite3_finalize(s);
	return rc;
}

/* Moves the chosen runs to the front of runs (newest first, as listed);
 * returns how many. */
static int keep_chosen(const struct store_prune *q, struct results_run_summary *runs, int n, const int64_t *prot,
		       int n_prot)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (chosen(q, &runs[i], prot, n_prot))
			runs[k++] = runs[i];
	return k;
}

enum ab_rc store_prune_runs(struct store *st, const struct store_prune *q, struct results_run_summary **out, int *n,
			    struct ab_diag *d)
{
	struct results_run_summary *runs = NULL;
	int64_t *prot = NULL;
	int n_runs = 0, n_prot = 0;
	*out = NULL;
	*n = 0;
	enum ab_rc rc = store_write_begin(st, d);
	if (rc)
		return rc;
	if (!(rc = store_list_runs(st, &runs, &n_runs, d)) && !(rc = protected_ids(st, &prot, &n_prot, d)))
		rc = check_named(st, q, runs, n_runs, prot, n_prot, d);
	int k = rc ? 0 : keep_chosen(q, runs, n_runs, prot, n_prot);
	if (!rc && !q->dry_run)
		rc = delete_runs(st, runs, k, d);
	if (!rc && !q->dry_run)
		rc = store_write_commit(st, d);
	else
		store_write_rollback(st);
	free(prot);
	if (rc) {
		free(runs);
		return rc;
	}
	*out = runs;
	*n = k;
	return AB_OK;
}
