/*
 * json_out.c - numbers, the run header and writing documents (json_out.h).
 */
#include "print/json_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


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

static json_t *device(const struct results_device *dv)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:s, s:s, s:i, s:o}", "name", dv->name, "uuid", dv->uuid,
			 "backend", dv->backend, "cc_major", dv->cc_major, "cc_minor", dv->cc_minor, "sm_count",
			 dv->sm_count, "l2_bytes", (json_int_t)dv->l2_bytes, "mem_bytes", (json_int_t)dv->mem_bytes,
			 "driver_version", dv->driver_version, "runtime_version", dv->runtime_version, "default_sm_mhz",
			 dv->default_sm_mhz, "copy_gbps", json_out_num(dv->copy_gbps > 0 ? dv->copy_gbps : NAN));
}

/* Where the run's user arms came from (table run_arms), one object each. */
static json_t *arm_sources(const struct results_run *r)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < r->n_arm_sources; i++) {
		const struct results_arm_source *s = &r->arm_sources[i];
		char arm[2] = { s->arm, '\0' };
		ok = json_out_push(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "arm", arm, "name", s->name, "kind",
						 s->kind, "path", s->path, "sha256", s->sha256, "detail", s->detail));
	}
	return json_out_whole(a, ok);
}

/* run_set (null for a plain run), shard {index, count} (null unless a
 * single shard), set_runs (the shards' run ids when a whole set). */
static bool run_identity(json_t *o, const struct results_run *r)
{
	json_t *ids = json_array();
	bool ok = ids != NULL;
	for (int i = 0; ok && i < r->n_set_runs; i++)
		ok = json_out_push(ids, json_integer(r->set_run_ids[i]));
	ok = json_out_set(o, "id", json_integer(r->id)) && ok;
	ok = json_out_set(o, "uuid", r->uuid[0] ? json_string(r->uuid) : json_null()) && ok;
	ok = json_out_set(o, "run_set", r->run_set[0] ? json_string(r->run_set) : json_null()) && ok;
	ok = json_out_set(o, "shard", r->shard_index ? json_pack("{s:i, s:i}", "index", r->shard_index, "count",
							      r->shard_count)
						     : json_null()) && ok;
	return json_out_set(o, "set_runs", ids) && ok;
}

json_t *json_out_run(const struct results_run *r, bool full)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:s, s:i, s:i, "
			      "s:s, s:b, s:s, s:o}",
			      "status", r->status, "error", r->error, "label", r->label, "started_at", r->started_at,
			      "finished_at", r->finished_at, "scenario", r->scenario_name, "scenario_hash",
			      r->scenario_hash, "git_commit", r->git_commit, "host", r->host, "backend", r->backend,
			      "version", r->version, "quick", r->quick, "bracket", r->bracket, "arm_a", r->arm_a, "arm_b",
			      r->arm_b, "steps", r->steps, "forwards_per_step", r->forwards_per_step, "launch_gaps",
			      r->launch_gaps, "l2_flush", r->l2_flush, "notes", r->notes, "device", device(&r->device));
	json_t *id = json_object();
	bool ok = o && id && run_identity(id, r) && !json_object_update(id, o);
	json_decref(o);
	o = id;
	ok = ok && json_out_set(o, "cases_planned", json_integer(r->cases_planned)) &&
	     json_out_set(o, "resumed", json_integer(r->resumed)) &&
	     json_out_set(o, "timing", json_string(r->timing[0] ? r->timing : "events")) &&
	     json_out_set(o, "device_index", json_integer(r->device_index)) &&
	     json_out_set(o, "recheck", json_boolean(r->recheck));
	if (ok && full)
		ok = json_out_set(o, "scenario_path", json_string(r->scenario_path)) &&
		     json_out_set(o, "scenario_text", r->scenario_text ? json_string(r->scenario_text) : json_null()) &&
		     json_out_set(o, "command_line", r->command_line ? json_string(r->command_line) : json_null()) &&
		     json_out_set(o, "arm_sources", arm_sources(r));
	return json_out_whole(o, ok);
}

json_t *json_out_document(const char *format, json_t *body)
{
	json_t *doc = json_pack("{s:s, s:i}", "format", format, "format_version", JSON_OUT_FORMAT_VERSION);
	if (!body || !doc || json_object_update(doc, body)) {
		json_decref(doc);
		doc = NULL;
	}
	json_decref(body);
	return doc;
}

enum ab_rc json_out_print(json_t *doc, FILE *f, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	if (!doc)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory building JSON");
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF || ferror(f))
		rc = ab_fail(d, AB_ERR_IO, "cannot write JSON");
	json_decref(doc);
	return rc;
}
