/*
 * store_rows.c - each table's columns bound and read in one order: the
 * order of the column lists in store_int.h (DEVICE_COLS, RUN_COLS, ...),
 * so that an INSERT and the SELECT of the same table can never disagree.
 * A new column is one line in the list, one in its store_bind_* and one
 * in its store_read_*.
 */
#include "store/store.h"
#include "store/store_int.h"

void store_bind_device(struct bind *b, const struct results_device *dv)
{
	B_STR(b, dv->name);
	B_STR(b, dv->uuid);
	B_STR(b, dv->backend);
	b_i64(b, dv->cc_major);
	b_i64(b, dv->cc_minor);
	b_i64(b, dv->sm_count);
	b_i64(b, dv->l2_bytes);
	b_i64(b, dv->mem_bytes);
	B_STR(b, dv->driver_version);
	B_STR(b, dv->runtime_version);
	b_i64(b, dv->default_sm_mhz);
	b_real(b, isfinite(dv->copy_gbps) && dv->copy_gbps > 0 ? dv->copy_gbps : 0);
}

void store_read_device(struct col *c, struct results_device *dv)
{
	C_STR(c, dv->name);
	C_STR(c, dv->uuid);
	C_STR(c, dv->backend);
	dv->cc_major = c_int(c);
	dv->cc_minor = c_int(c);
	dv->sm_count = c_int(c);
	dv->l2_bytes = c_i64(c);
	dv->mem_bytes = c_i64(c);
	C_STR(c, dv->driver_version);
	C_STR(c, dv->runtime_version);
	dv->default_sm_mhz = c_int(c);
	dv->copy_gbps = c_real(c);
}

void store_bind_run(struct bind *b, const struct results_run *r, int64_t device_id)
{
	B_STR(b, r->started_at);
	if (r->finished_at[0]) /* a run copied by store_import_run */
		B_STR(b, r->finished_at);
	else
		b_null(b); /* set by store_finish_run / store_fail_run */
	B_STR(b, r->status);
	B_STR(b, r->error);
	B_STR(b, r->label);
	B_STR(b, r->scenario_name);
	B_STR(b, r->scenario_path);
	b_text(b, r->scenario_text);
	B_STR(b, r->scenario_hash);
	b_text(b, r->command_line);
	B_STR(b, r->git_commit);
	B_STR(b, r->host);
	B_STR(b, r->backend);
	B_STR(b, r->version);
	b_i64(b, r->quick);
	B_STR(b, r->bracket);
	B_STR(b, r->arm_a);
	B_STR(b, r->arm_b);
	b_i64(b, r->steps);
	b_i64(b, r->forwards_per_step);
	B_STR(b, r->launch_gaps);
	b_i64(b, r->l2_flush);
	B_STR(b, r->notes);
	B_STR(b, r->uuid);
	B_STR(b, r->run_set);
	b_i64(b, r->shard_index);
	b_i64(b, r->shard_count);
	b_i64(b, device_id);
	B_STR(b, r->only_cases);
	b_i64(b, r->fake_timer);
	b_i64(b, r->device_index);
	B_STR(b, r->noise_measure);
	b_i64(b, r->cases_planned);
	b_i64(b, r->resumed);
	B_STR(b, r->timing);
	b_i64(b, r->recheck);
}

/* Returns the device_id column (only_cases follows it). */
int64_t store_read_run(struct col *c, struct results_run *r, bool *ok)
{
	C_STR(c, r->started_at);
	C_STR(c, r->finished_at);
	C_STR(c, r->status);
	C_STR(c, r->error);
	C_STR(c, r->label);
	C_STR(c, r->scenario_name);
	C_STR(c, r->scenario_path);
	r->scenario_text = c_dup(c, ok);
	C_STR(c, r->scenario_hash);
	r->command_line = c_dup(c, ok);
	C_STR(c, r->git_commit);
	C_STR(c, r->host);
	C_STR(c, r->backend);
	C_STR(c, r->version);
	r->quick = c_bool(c);
	C_STR(c, r->bracket);
	C_STR(c, r->arm_a);
	C_STR(c, r->arm_b);
	r->steps = c_int(c);
	r->forwards_per_step = c_int(c);
	C_STR(c, r->launch_gaps);
	r->l2_flush = c_bool(c);
	C_STR(c, r->notes);
	C_STR(c, r->uuid);
	C_STR(c, r->run_set);
	r->shard_index = c_int(c);
	r->shard_count = c_int(c);
	int64_t device_id = c_i64(c);
	C_STR(c, r->only_cases);
	r->fake_timer = c_bool(c);
	r->device_index = c_int(c);
	C_STR(c, r->noise_measure);
	r->cases_planned = c_int(c);
	r->resumed = c_int(c);
	C_STR(c, r->timing);
	r->recheck = c_bool(c);
	return device_id;
}
void store_bind_case(struct bind *b, const struct results_case *c)
{
	B_STR(b, c->name);
	B_STR(b, c->site);
	B_STR(b, c->shape);
	B_STR(b, c->dtype);
	b_real(b, c->eps);
	b_i64(b, c->affine);
	b_i64(b, c->count);
	B_STR(b, c->input);
	B_STR(b, c->sweep);
	B_STR(b, c->axis);
	b_i64(b, c->axis_value);
	b_i64(b, c->bytes_min);
	b_i64(b, c->bytes_a);
	b_i64(b, c->bytes_b);
	B_STR(b, c->arm_a);
	B_STR(b, c->arm_b);
	b_real(b, c->copy_floor_ns > 0 ? c->copy_floor_ns : NAN); /* 0: a case never measured */
	b_real(b, c->copy_floor_kernel_ns > 0 ? c->copy_floor_kernel_ns : NAN);
	B_STR(b, c->copy_floor_method);
	b_i64(b, c->copy_floor_samples);
	B_STR(b, c->copy_floor_detail);
}

void store_read_case(struct col *c, struct results_case *k)
{
	k->ordinal = c_int(c);
	C_STR(c, k->name);
	C_STR(c, k->site);
	C_STR(c, k->shape);
	C_STR(c, k->dtype);
	k->eps = c_real(c);
	k->affine = c_bool(c);
	k->count = c_int(c);
	C_STR(c, k->input);
	C_STR(c, k->sweep);
	C_STR(c, k->axis);
	k->axis_value = c_i64(c);
	k->bytes_min = c_i64(c);
	k->bytes_a = c_i64(c);
	k->bytes_b = c_i64(c);
	C_STR(c, k->arm_a);
	C_STR(c, k->arm_b);
	k->copy_floor_ns = c_real(c);
	k->copy_floor_kernel_ns = c_real(c);
	C_STR(c, k->copy_floor_method);
	k->copy_floor_samples = c_int(c);
	C_STR(c, k->copy_floor_detail);
}

static void bind_clocks(struct bind *b, const struct results_clocks *k)
{
	b_i64(b, k->valid);
	b_i64(b, k->sm_mhz);
	b_i64(b, k->mem_mhz);
	b_i64(b, (int64_t)k->throttle_reasons); /* the bit pattern, as SQLite has no unsigned */
	b_i64(b, k->temp_c);
}

static void read_clocks(struct col *c, struct results_clocks *k)
{
	k->valid = c_bool(c);
	k->sm_mhz = c_int(c);
	k->mem_mhz = c_int(c);
	k->throttle_reasons = (uint64_t)c_i64(c);
	k->temp_c = c_int(c);
}

void store_bind_slot(struct bind *b, const struct results_slot *s)
{
	b_i64(b, s->position);
	B_STR(b, s->label);
	b_char(b, s->arm);
	B_STR(b, s->variant);
	b_i64(b, s->warmup);
	b_i64(b, s->n_samples);
	b_i64(b, s->n_discarded);
	B_STR(b, s->stopping_reason);
	b_real(b, s->elapsed_s);
	b_real(b, s->median_ns);
	b_real(b, s->p10_ns);
	b_real(b, s->p90_ns);
	b_real(b, s->min_ns);
	b_real(b, s->max_ns);
	b_real(b, s->mean_ns);
	b_real(b, s->noise);
	b_real(b, s->kernel_median_ns);
	b_i64(b, s->kernel_records_bad);
	bind_clocks(b, &s->clocks_before);
	bind_clocks(b, &s->clocks_after);
}

void store_read_slot(struct col *c, struct results_slot *s)
{
	char arm[2];
	s->position = c_int(c);
	C_STR(c, s->label);
	C_STR(c, arm);
	s->arm = arm[0];
	C_STR(c, s->variant);
	s->warmup = c_int(c);
	s->n_samples = c_int(c);
	s->n_discarded = c_int(c);
	C_STR(c, s->stopping_reason);
	s->elapsed_s = c_real(c);
	s->median_ns = c_real(c);
	s->p10_ns = c_real(c);
	s->p90_ns = c_real(c);
	s->min_ns = c_real(c);
	s->max_ns = c_real(c);
	s->mean_ns = c_real(c);
	s->noise = c_real(c);
	s->kernel_median_ns = c_real(c);
	s->kernel_records_bad = c_i64(c);
	read_clocks(c, &s->clocks_before);
	read_clocks(c, &s->clocks_after);
}

void store_bind_kernel(struct bind *b, const struct results_kernel *k)
{
	B_STR(b, k->name);
	B_STR(b, k->family);
	b_i64(b, k->launches);
	b_real(b, k->total_ns);
	b_real(b, k->min_ns);
	b_real(b, k->max_ns);
}

void store_read_kernel(struct col *c, struct results_kernel *k)
{
	C_STR(c, k->name);
	C_STR(c, k->family);
	k->launches = c_i64(c);
	k->total_ns = c_real(c);
	k->min_ns = c_real(c);
	k->max_ns = c_real(c);
}

void store_bind_output(struct bind *b, const struct results_output *o)
{
	B_STR(b, o->tensor);
	B_STR(b, o->md5);
	b_i64(b, o->bytes);
	b_i64(b, o->bit_exact);
	b_i64(b, o->mismatches);
	b_real(b, o->max_abs_err);
	b_real(b, o->max_err_ratio);
	b_i64(b, o->ref_ok);
	b_i64(b, o->ref_skipped);
	b_i64(b, o->has_ref);
}

void store_read_output(struct col *c, struct results_output *o)
{
	C_STR(c, o->tensor);
	C_STR(c, o->md5);
	o->bytes = c_i64(c);
	o->bit_exact = c_bool(c);
	o->mismatches = c_i64(c);
	o->max_abs_err = c_real(c);
	o->max_err_ratio = c_real(c);
	o->ref_ok = c_bool(c);
	o->ref_skipped = c_i64(c);
	o->has_ref = c_bool(c);
}

void store_bind_arm_source(struct bind *b, const struct results_arm_source *a)
{
	b_char(b, a->arm);
	B_STR(b, a->name);
	B_STR(b, a->kind);
	B_STR(b, a->path);
	B_STR(b, a->sha256);
	B_STR(b, a->detail);
}

void store_read_arm_source(struct col *c, struct results_arm_source *a)
{
	const unsigned char *arm = sqlite3_column_text(c->s, c->i++);
	a->arm = arm ? (char)arm[0] : '?';
	C_STR(c, a->name);
	C_STR(c, a->kind);
	C_STR(c, a->path);
	C_STR(c, a->sha256);
	C_STR(c, a->detail);
}
