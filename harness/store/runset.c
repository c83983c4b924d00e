/*
 * runset.c - a run set read as one run (runset.h): pick each shard's 'ok'
 * run, check that the loaded shards belong together, and join their cases
 * in the scenario's order.
 */
#include "store/runset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/results_check.h"

/* The one 'ok' run of shard k among the members (sorted by shard). */
static enum ab_rc pick_shard(const char *set, const struct runset_member *m, int n, int k, int count,
			     int64_t *id, struct ab_diag *d)
{
	const struct runset_member *failed = NULL;
	*id = 0;
	for (int i = 0; i < n; i++) {
		if (m[i].shard_index != k)
			continue;
		if (strcmp(m[i].status, "ok")) {
			failed = failed ? failed : &m[i];
			continue;
		}
		if (*id)
			return ab_fail(d, AB_ERR_DATA, "run set '%s' has two 'ok' runs of shard %d/%d (runs %lld and %lld)",
				       set, k, count, (long long)*id, (long long)m[i].id);
		*id = m[i].id;
	}
	if (*id)
		return AB_OK;
	if (failed)
		return ab_fail(d, AB_ERR_DATA, "run set '%s' is incomplete: shard %d/%d has no 'ok' run (run %lld is '%s'%s%s)",
			       set, k, count, (long long)failed->id, failed->status, failed->error[0] ? ": " : "",
			       failed->error);
	return ab_fail(d, AB_ERR_DATA, "run set '%s' is incomplete: shard %d/%d has no run", set, k, count);
}

enum ab_rc runset_pick(const char *set, const char *where, const struct runset_member *m, int n, int64_t **ids,
		       int *count, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	*ids = NULL;
	*count = n ? m[0].shard_count : 0;
	if (n == 0)
		return ab_fail(d, AB_ERR_DATA, "no run set '%s' in '%s'", set, where);
	for (int i = 0; !rc && i < n; i++)
		if (m[i].shard_count < 1 || m[i].shard_count > RESULTS_MAX_SHARDS)
			rc = ab_fail(d, AB_ERR_DATA, "run set '%s': run %lld has shard_count %d, not 1 to %d", set,
				     (long long)m[i].id, m[i].shard_count, RESULTS_MAX_SHARDS);
		else if (m[i].shard_count != *count)
			rc = ab_fail(d, AB_ERR_DATA, "run set '%s' mixes shard counts (%d in run %lld, %d in run %lld)", set,
				     *count, (long long)m[0].id, m[i].shard_count, (long long)m[i].id);
	if (!rc && !(*ids = calloc((size_t)*count, sizeof **ids)))
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory reading run set '%s'", set);
	for (int k = 1; !rc && k <= *count; k++)
		rc = pick_shard(set, m, n, k, *count, &(*ids)[k - 1], d);
	if (rc) {
		free(*ids);
		*ids = NULL;
	}
	return rc;
}

/* Shard s must have been measured like shard 1 (f). */
static enum ab_rc check_alike(const char *set, const struct results_run *f, const struct results_run *s,
			      struct ab_diag *d)
{
	static const char *const what[] = { "scenario (hash)", "bracket", "backend", "device", "build",
					    "--quick setting" };
	const char *fa[] = { f->scenario_hash, f->bracket, f->backend, f->device.name, f->git_commit,
			     f->quick ? "on" : "off" };
	const char *sa[] = { s->scenario_hash, s->bracket, s->backend, s->device.name, s->git_commit,
			     s->quick ? "on" : "off" };
	for (size_t i = 0; i < sizeof what / sizeof what[0]; i++)
		if (strcmp(fa[i], sa[i]))
			return ab_fail(d, AB_ERR_DATA, "run set '%s': shards differ in %s: run %lld has '%s', run %lld '%s'",
				       set, what[i], (long long)f->id, fa[i], (long long)s->id, sa[i]);
	return AB_OK;
}

static int by_ordinal(const void *a, const void *b)
{
	int x = ((const struct results_case *)a)->ordinal, y = ((const struct results_case *)b)->ordinal;
	return (x > y) - (x < y);
}

/* Moves the cases of every shard into the first one, in ordinal order. */
static enum ab_rc join_cases(const char *set, struct results_run **shard, int n, struct ab_diag *d)
{
	struct results_run *r = shard[0];
	int total = 0;
	for (int i = 0; i < n; i++)
		total += shard[i]->n_cases;
	struct results_case *all = calloc((size_t)total + 1, sizeof *all);
	if (!all)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory joining run set '%s'", set);
	int k = 0;
	for (int i = 0; i < n; i++) {
		memcpy(all + k, shard[i]->cases, (size_t)shard[i]->n_cases * sizeof *all);
		k += shard[i]->n_cases;
		free(shard[i]->cases);
		shard[i]->cases = NULL;
		shard[i]->n_cases = 0;
	}
	qsort(all, (size_t)total, sizeof *all, by_ordinal);
	r->cases = all;
	r->n_cases = total;
	for (int i = 1; i < total; i++)
		if (all[i].ordinal == all[i - 1].ordinal)
			return ab_fail(d, AB_ERR_DATA, "run set '%s': two shards hold case %d ('%s' and '%s')", set,
				       all[i].ordinal, all[i - 1].name, all[i].name);
	return AB_OK;
}

/* The joined run's header: the set's identity and its time span. */
static void set_header(const char *set, struct results_run **shard, int n, int64_t *ids, struct results_run *r)
{
	for (int i = 1; i < n; i++) {
		if (strcmp(shard[i]->started_at, r->started_at) < 0)
			memcpy(r->started_at, shard[i]->started_at, sizeof r->started_at);
		if (strcmp(shard[i]->finished_at, r->finished_at) > 0)
			memcpy(r->finished_at, shard[i]->finished_at, sizeof r->finished_at);
		r->cases_planned += shard[i]->cases_planned; /* the set plans what its shards do */
		r->resumed += shard[i]->resumed;
	}
	snprintf(r->run_set, sizeof r->run_set, "%s", set);
	r->uuid[0] = '\0';
	r->shard_index = 0;
	r->shard_count = n;
	r->set_run_ids = ids;
	r->n_set_runs = n;
}

enum ab_rc runset_join(const char *set, struct results_run **shard, int n, int64_t *ids, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 1; !rc && i < n; i++)
		rc = check_alike(set, shard[0], shard[i], d);
	if (!rc)
		rc = join_cases(set, shard, n, d);
	if (!rc)
		set_header(set, shard, n, ids, shard[0]);
	return rc;
}
