/*
 * store_spec.c - a RUN as the commands spell it, resolved and loaded
 * (store.h): an id, a label, 'last', 'set:ID' (a run set read as one run)
 * or a baseline's name. The store lists a set's members and loads its
 * shards; runset.c, which includes nothing of the store, picks and joins
 * them.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "store/runset.h"

const char *store_set_spec(const char *spec)
{
	return spec && !strncmp(spec, STORE_SET_PREFIX, strlen(STORE_SET_PREFIX)) ? spec + strlen(STORE_SET_PREFIX)
										      : NULL;
}

static void read_member(struct col *c, void *p)
{
	struct runset_member *m = p;
	m->id = c_i64(c);
	m->shard_index = c_int(c);
	m->shard_count = c_int(c);
	C_STR(c, m->status);
	C_STR(c, m->error);
}

/* The runs of a run set by shard, then newest first. */
static enum ab_rc set_members(struct store *st, const char *set, struct runset_member **out, int *n,
			      struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = store_list_rows(st,
					"SELECT id, shard_index, shard_count, status, error FROM runs WHERE run_set = ?"
					" ORDER BY shard_index, started_at DESC, id DESC",
					set, sizeof **out, read_member, &v, n, "list the runs of a run set", d);
	*out = v;
	return rc;
}

/* Run set `set` read as one run (runset.h). */
static enum ab_rc load_set(struct store *st, const char *set, struct results_run **out, struct ab_diag *d)
{
	struct runset_member *m = NULL;
	struct results_run **shard = NULL;
	int64_t *ids = NULL;
	int n_members = 0, n = 0;
	*out = NULL;
	enum ab_rc rc = set_members(st, set, &m, &n_members, d);
	if (!rc)
		rc = runset_pick(set, st->path, m, n_members, &ids, &n, d);
	free(m);
	if (!rc && !(shard = calloc((size_t)n, sizeof *shard)))
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory reading run set '%s'", set);
	for (int i = 0; !rc && i < n; i++)
		rc = store_load_run(st, ids[i], &shard[i], d);
	if (!rc)
		rc = runset_join(set, shard, n, ids, d);
	if (!rc) {
		*out = shard[0];
		shard[0] = NULL;
		ids = NULL;
	}
	for (int i = 0; shard && i < n; i++)
		results_run_free(shard[i]);
	free(shard);
	free(ids);
	return rc;
}

enum ab_rc store_resolve_load(struct store *st, const char *spec, struct results_run **out, struct ab_diag *d)
{
	int64_t id;
	*out = NULL;
	const char *set = store_set_spec(spec);
	if (set)
		return load_set(st, set, out, d);
	enum ab_rc rc = store_resolve_run(st, spec, &id, d);
	return rc ? rc : store_load_run(st, id, out, d);
}

enum ab_rc store_load_spec(const char *db_path, const char *spec, struct results_run **out, struct ab_diag *d)
{
	struct store *st;
	*out = NULL;
	enum ab_rc rc = store_open_readonly(db_path, &st, d);
	if (rc)
		return rc;
	rc = store_resolve_load(st, spec, out, d);
	store_close(st);
	return rc;
}

enum ab_rc store_baseline_load(struct store *st, const char *name, struct results_run **out, struct ab_diag *d)
{
	struct bind b;
	char set[64] = "";
	int64_t run_id = 0;
	*out = NULL;
	enum ab_rc rc = store_prepare_bind(st, "SELECT run_id, run_set FROM baselines WHERE name = ?", &b, d);
	if (rc)
		return rc;
	b_text(&b, name);
	int src = step_bound(&b);
	if (src == SQLITE_ROW) {
		struct col c = { .s = b.s };
		run_id = c_i64(&c);
		C_STR(&c, set);
		if (c.bad) {
			char where[96];
			snprintf(where, sizeof where, "baseline '%.64s'", name);
			rc = store_bad_row(st, "baselines", where, c.why, d);
		}
	} else if (src == SQLITE_DONE) {
		char hint[160];
		store_name_hint(st, name, false, true, hint, sizeof hint);
		rc = ab_fail(d, AB_ERR_DATA, "no baseline '%s' in '%s'%s", name, st->path, hint);
	} else {
		rc = store_db_fail(st, d, "read baseline '%s'", name);
	}
	sqlite3_finalize(b.s);
	if (rc)
		return rc;
	return set[0] ? load_set(st, set, out, d) : store_load_run(st, run_id, out, d);
}
