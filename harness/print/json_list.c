/*
 * json_list.c - the run list as JSON (json_out.h): the fields of
 * struct results_run_summary, named as the run header of the other
 * documents names them (json_out.c).
 */
#include "print/json_out.h"

/* shard: null for a whole run, {"index", "count"} for a shard. */
static json_t *run_of(const void *item)
{
	const struct results_run_summary *s = *(const struct results_run_summary *const *)item;
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:b, s:s, s:s, s:o}", "id",
			 (json_int_t)s->id, "started_at", s->started_at, "status", s->status, "label", s->label,
			 "scenario", s->scenario_name, "backend", s->backend, "device", s->device, "cases", s->n_cases,
			 "git_commit", s->git_commit, "quick", s->quick, "fake_timer", s->fake_timer, "recheck",
			 s->recheck, "only_cases", s->only_cases, "run_set", s->run_set, "shard",
			 s->shard_count ? json_pack("{s:i, s:i}", "index", s->shard_index, "count", s->shard_count)
					: json_null());
}

enum ab_rc json_list_runs(const struct printer_job *job, struct ab_diag *d)
{
	json_t *runs = json_out_array(job->runs, sizeof *job->runs, job->n_runs, run_of);
	return json_out_print(json_out_document("abbench.list", json_pack("{s:o}", "runs", runs)), job->f, d);
}
