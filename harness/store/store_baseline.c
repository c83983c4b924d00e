/*
 * store_baseline.c - names that point at runs (store.h): the rule for run
 * labels and baseline names (they must never read as a run: not an id,
 * not 'last', not 'set:ID', and a baseline not a label in use), and the
 * baselines themselves, set, read, listed and copied by a merge.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <inttypes.h>
#include <stdlib.h>

#include "common/utf8.h"
#include "common/utc.h"

static enum ab_rc run_exists(struct store *st, int64_t run_id, struct ab_diag *d)
{
	bool found = false;
	int64_t id;
	enum ab_rc rc = store_query_id(st, "SELECT id FROM runs WHERE id = ?", NULL, run_id, &id, &found, d);
	if (!rc && !found)
		rc = ab_fail(d, AB_ERR_DATA, "no run '%" PRId64 "' in '%s'", run_id, st->path);
	return rc;
}

/* A label or a baseline name is valid UTF-8 with no control character
 * (C0, DEL, C1): it is printed, and it reaches JSON and file names. */
static enum ab_rc check_characters(const char *what, const char *name, struct ab_diag *d)
{
	size_t bad = 0;
	if (!utf8_valid_str(name, &bad))
		return ab_fail(d, AB_ERR_USAGE, "%s '%s' is not valid UTF-8 (byte %zu)", what, name, bad);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7F || (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
			return ab_fail(d, AB_ERR_USAGE, "%s '%s' holds a control character", what, name);
	return AB_OK;
}

enum ab_rc store_check_label(const char *label, struct ab_diag *d)
{
	size_t max = sizeof ((struct results_run *)0)->label - 1, n = strlen(label);
	if (n > max)
		return ab_fail(d, AB_ERR_USAGE, "label '%.40s...' is %zu characters long, more than %zu", label, n, max);
	if (n && (strspn(label, "0123456789") == n || !strcmp(label, "last") || store_set_spec(label)))
		return ab_fail(d, AB_ERR_USAGE, "label '%s' would read as a run (an id, 'last' or 'set:ID'): choose another",
			       label);
	return check_characters("label", label, d);
}

/* A baseline name must not read as a run spec (store_resolve_run): not a
 * run id, not 'last', not a label in use; and it must fit. */
static enum ab_rc check_baseline_name(struct store *st, const char *name, struct ab_diag *d)
{
	size_t max = sizeof ((struct store_baseline *)0)->name - 1;
	bool found = false;
	int64_t id;
	if (!*name || strlen(name) > max)
		return ab_fail(d, AB_ERR_USAGE, "baseline name '%.80s' must be 1 to %zu characters", name, max);
	if (strspn(name, "0123456789") == strlen(name) || !strcmp(name, "last") || store_set_spec(name))
		return ab_fail(d, AB_ERR_USAGE,
			       "baseline name '%s' would read as a run (an id, 'last' or 'set:ID'): choose another", name);
	enum ab_rc rc = check_characters("baseline name", name, d);
	if (rc)
		return rc;
	rc = store_query_id(st, "SELECT id FROM runs WHERE label = ? LIMIT 1", name, 0, &id, &found, d);
	if (!rc && found)
		rc = ab_fail(d, AB_ERR_USAGE, "baseline name '%s' is the label of run %" PRId64 ": choose another", name,
			     id);
	return rc;
}

/* Points name at run_id, or at run_set when it is not '' (run_id is then
 * one of its runs, for the cascade); set_at NULL: now. */
static enum ab_rc baseline_point(struct store *st, const char *name, int64_t run_id, const char *run_set,
				 const char *set_at, struct ab_diag *d)
{
	struct bind b;
	char now[32];
	enum ab_rc rc = run_exists(st, run_id, d);
	if (!rc)
		rc = store_prepare_bind(st,
					"INSERT OR REPLACE INTO baselines (name, run_id, set_at, run_set) VALUES (?, ?, ?, ?)",
					&b, d);
	if (rc)
		return rc;
	utc_now(now, sizeof now);
	b_text(&b, name);
	b_i64(&b, run_id);
	b_text(&b, set_at ? set_at : now);
	b_text(&b, run_set);
	return store_run_bound(st, &b, d, "set baseline '%s'", name);
}

enum ab_rc store_baseline_set(struct store *st, const char *name, int64_t run_id, struct ab_diag *d)
{
	enum ab_rc rc = check_baseline_name(st, name, d);
	return rc ? rc : baseline_point(st, name, run_id, "", NULL, d);
}

enum ab_rc store_baseline_set_run_set(struct store *st, const char *name, const struct results_run *set,
				      struct ab_diag *d)
{
	if (!set->run_set[0] || set->shard_index != 0)
		return ab_fail(d, AB_ERR_INTERNAL, "baseline '%s': run %lld is not a whole run set", name,
			       (long long)set->id);
	enum ab_rc rc = check_baseline_name(st, name, d);
	return rc ? rc : baseline_point(st, name, set->id, set->run_set, NULL, d);
}

enum ab_rc store_baseline_get(struct store *st, const char *name, int64_t *run_id, struct ab_diag *d)
{
	bool found = false;
	enum ab_rc rc = store_query_id(st, "SELECT run_id FROM baselines WHERE name = ?", name, 0, run_id, &found, d);
	if (!rc && !found) {
		char hint[160];
		store_name_hint(st, name, false, true, hint, sizeof hint);
		rc = ab_fail(d, AB_ERR_DATA, "no baseline '%s' in '%s'%s", name, st->path, hint);
	}
	return rc;
}

static void read_baseline(struct col *c, void *p)
{
	struct store_baseline *e = p;
	C_STR(c, e->name);
	e->run_id = c_i64(c);
	C_STR(c, e->set_at);
	C_STR(c, e->scenario_name);
	C_STR(c, e->device);
	C_STR(c, e->run_set);
	C_STR(c, e->run_uuid);
}

enum ab_rc store_baseline_list(struct store *st, struct store_baseline **out, int *n, struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = store_list_rows(st,
					"SELECT b.name, b.run_id, b.set_at, r.scenario_name, dv.name, b.run_set, r.uuid"
					" FROM baselines b"
					" JOIN runs r ON r.id = b.run_id JOIN devices dv ON dv.id = r.device_id"
					" ORDER BY b.name",
					NULL, sizeof **out, read_baseline, &v, n, "list baselines", d);
	*out = v;
	return rc;
}

enum ab_rc store_baseline_copy(struct store *st, const struct store_baseline *b, int64_t run_id, struct ab_diag *d)
{
	enum ab_rc rc = check_characters("baseline name", b->name, d);
	return rc ? rc : baseline_point(st, b->name, run_id, b->run_set, b->set_at, d);
}
