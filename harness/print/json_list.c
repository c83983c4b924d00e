/*
 * json_list.c - the run list as JSON (json_list.h): the fields of
 * struct results_run_summary, named as the run header of the other
 * documents names them (json_out.c).
 */
#include "print/json_list.h"

#include "print/json_out.h"

/* null for a whole run, {"index", "count"} for a shard. */
static json_t *shard_of(const struct results_run_summary *s)
{
	return s->shard_count ? json_pack("{s:i, s:i}", "index", s->shard_index, "count", s->shard_count) : json_null();
}

static json_t *run_of(const struct results_run_summary *s)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:b, s:s, s:s, s:o}", "id",
			 (json_int_t)s->id, "started_at", s->started_at, "status", s->status, "label", s->label, "scenario",
			 s->scenario_name, "backend", s->backend, "device", s->device, "cases", s->n_cases, "git_commit",
			 s->git_commit, "quick", s->quick, "fake_timer", s->fake_timer, "recheck", s->recheck, "only_cases",
			 s->only_cases, "run_set", s->run_set, "shard", shard_of(s));
}

json_t *json_list_runs(const struct results_run_summary *const *runs, int n)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < n; i++)
		ok = json_out_push(a, run_of(runs[i]));
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return json_out_document("abbench.list", json_pack("{s:o}", "runs", a));
}
