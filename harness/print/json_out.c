/*
 * json_out.c - numbers, lists, the run header, the run list and writing
 * documents (json_out.h).
 */
#include "print/json_out.h"

#include <math.h>
#include <stdio.h>

#include "common/ulp.h"

json_t *json_out_whole(json_t *v, bool ok)
{
	if (ok)
		return v;
	json_decref(v);
	return NULL;
}

json_t *json_out_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_out_interval(struct stats_interval iv)
{
	return json_pack("{s:o, s:o, s:o}", "point", json_out_num(iv.point), "low", json_out_num(iv.low), "high",
			 json_out_num(iv.high));
}

bool json_out_set(json_t *obj, const char *key, json_t *v)
{
	return v && obj && json_object_set_new(obj, key, v) == 0;
}

bool json_out_push(json_t *arr, json_t *v)
{
	return v && arr && json_array_append_new(arr, v) == 0;
}

json_t *json_out_array(const void *items, size_t size, int n, json_t *(*item)(const void *))
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < n; i++)
		ok = json_out_push(a, item((const char *)items + (size_t)i * size));
	return json_out_whole(a, ok);
}

json_t *json_out_ulp_histogram(const struct results_divergence *v)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	for (int k = 0; ok && k < RESULTS_ULP_BUCKETS; k++)
		ok = json_out_set(o, ulp_bucket_name(k), json_integer(v->ulp_hist[k]));
	return json_out_whole(o, ok);
}

json_t *json_out_div_map(const struct results_divergence *v, bool by_row)
{
	json_t *cells = json_array(), *row = cells;
	bool ok = cells != NULL;
	for (int r = 0; ok && v->map && r < v->map_rows; r++) {
		if (by_row)
			ok = json_out_push(cells, row = json_array());
		for (int c = 0; ok && c < v->map_cols; c++)
			ok = json_out_push(row, json_integer(v->map[(size_t)r * (size_t)v->map_cols + (size_t)c]));
	}
	return json_pack("{s:b, s:i, s:i, s:I, s:I, s:o}", "by_head", v->map_by_head, "rows", v->map_rows, "cols",
			 v->map_cols, "row_bin", (json_int_t)v->map_row_bin, "col_bin", (json_int_t)v->map_col_bin,
			 "cells", json_out_whole(cells, ok));
}

static json_t *device(const struct results_device *dv)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:s, s:s, s:i, s:o}", "name", dv->name, "uuid",
			 dv->uuid, "backend", dv->backend, "cc_major", dv->cc_major, "cc_minor", dv->cc_minor,
			 "sm_count", dv->sm_count, "l2_bytes", (json_int_t)dv->l2_bytes, "mem_bytes",
			 (json_int_t)dv->mem_bytes, "driver_version", dv->driver_version, "runtime_version",
			 dv->runtime_version, "default_sm_mhz", dv->default_sm_mhz, "copy_gbps",
			 json_out_num(dv->copy_gbps > 0 ? dv->copy_gbps : NAN));
}

/* Where a user arm came from (table run_arms). */
static json_t *arm_source(const void *item)
{
	const struct results_arm_source *s = item;
	return json_pack("{s:s#, s:s, s:s, s:s, s:s, s:s}", "arm", &s->arm, 1, "name", s->name, "kind", s->kind, "path",
			 s->path, "sha256", s->sha256, "detail", s->detail);
}

static json_t *run_id(const void *item)
{
	return json_integer(*(const int64_t *)item);
}

/* run_set is null for a plain run, shard {index, count} null unless a
 * single shard, set_runs the shards' run ids when a whole set. */
json_t *json_out_run(const struct results_run *r, bool full)
{
	json_t *o = json_pack("{s:I, s:s?, s:s?, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, "
			      "s:s, s:s, s:s, s:i, s:i, s:s, s:b, s:s, s:o, s:i, s:i, s:s, s:i, s:b}", "id",
			      (json_int_t)r->id, "uuid", r->uuid[0] ? r->uuid : NULL, "run_set",
			      r->run_set[0] ? r->run_set : NULL, "shard",
			      r->shard_index ? json_pack("{s:i, s:i}", "index", r->shard_index, "count", r->shard_count)
					     : json_null(),
			      "set_runs", json_out_array(r->set_run_ids, sizeof *r->set_run_ids, r->n_set_runs, run_id),
			      "status", r->status, "error", r->error, "label", r->label, "started_at", r->started_at,
			      "finished_at", r->finished_at, "scenario", r->scenario_name, "scenario_hash",
			      r->scenario_hash, "git_commit", r->git_commit, "host", r->host, "backend", r->backend,
			      "version", r->version, "quick", r->quick, "bracket", r->bracket, "arm_a", r->arm_a,
			      "arm_b", r->arm_b, "steps", r->steps, "forwards_per_step", r->forwards_per_step,
			      "launch_gaps", r->launch_gaps, "l2_flush", r->l2_flush, "notes", r->notes, "device",
			      device(&r->device), "cases_planned", r->cases_planned, "resumed", r->resumed, "timing",
			      r->timing[0] ? r->timing : "events", "device_index", r->device_index, "recheck",
			      r->recheck);
	if (!o || !full)
		return o;
	json_t *provenance = json_pack("{s:s, s:s?, s:s?, s:o}", "scenario_path", r->scenario_path, "scenario_text",
				       r->scenario_text, "command_line", r->command_line, "arm_sources",
				       json_out_array(r->arm_sources, sizeof *r->arm_sources, r->n_arm_sources,
						      arm_source));
	return json_out_whole(o, !json_object_update_new(o, provenance));
}

/* A run of the run list (abbench.list), its fields named as json_out_run
 * names them. */
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

json_t *json_out_document(const char *format, json_t *body)
{
	json_t *doc = json_pack("{s:s, s:i}", "format", format, "format_version", JSON_OUT_FORMAT_VERSION);
	bool ok = doc && !json_object_update(doc, body);
	json_decref(body);
	return json_out_whole(doc, ok);
}

enum ab_rc json_out_print(json_t *doc, FILE *f, struct ab_diag *d)
{
	if (!doc)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory building JSON");
	bool bad = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF || ferror(f);
	json_decref(doc);
	return bad ? ab_fail(d, AB_ERR_IO, "cannot write JSON") : AB_OK;
}
