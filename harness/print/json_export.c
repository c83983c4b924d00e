/*
 * json_export.c - the "abbench.export" and "abbench.show" documents
 * (json_out.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/figures.h"
#include "print/figure_fmt.h"
#include "print/json_out.h"

/* ---- abbench.export: everything ---------------------------------------- */

static json_t *clocks(const struct results_clocks *k)
{
	return json_pack("{s:b, s:i, s:i, s:I, s:i}", "valid", k->valid, "sm_mhz", k->sm_mhz, "mem_mhz", k->mem_mhz,
			 "throttle_reasons", (json_int_t)k->throttle_reasons, "temp_c", k->temp_c);
}

static json_t *numbers(const double *v, int n)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < n; i++)
		ok = json_out_push(a, json_out_num(v ? v[i] : NAN));
	return json_out_whole(a, ok);
}

static json_t *kernel(const void *item)
{
	const struct results_kernel *k = item;
	return json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "name", k->name, "family", k->family, "launches",
			 (json_int_t)k->launches, "total_ns", json_out_num(k->total_ns), "min_ns",
			 json_out_num(k->min_ns), "max_ns", json_out_num(k->max_ns));
}

static json_t *output(const void *item)
{
	const struct results_output *o = item;
	return json_pack("{s:s, s:s, s:I, s:b, s:I, s:o, s:o, s:b, s:b, s:I}", "tensor", o->tensor, "md5", o->md5,
			 "bytes", (json_int_t)o->bytes, "bit_exact", o->bit_exact, "mismatches",
			 (json_int_t)o->mismatches, "max_abs_err", json_out_num(o->max_abs_err), "max_err_ratio",
			 json_out_num(o->max_err_ratio), "has_reference", o->has_ref, "ref_ok", o->ref_ok,
			 "ref_skipped", (json_int_t)o->ref_skipped);
}

/* ---- where the bits differ, as stored (common/results.h) ---- */

/* An element of a divergence: its index and both sides' bits (null: none). */
static json_t *div_elem(const struct results_div_elem *e)
{
	if (e->index < 0)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:o}", "index", (json_int_t)e->index, "a_bits", (json_int_t)e->a_bits,
			 "b_bits", (json_int_t)e->b_bits, "reference", json_out_num(e->ref));
}

/* One tensor not byte-equal to the first A slot's, as the run stored it. */
static json_t *divergence(const void *item)
{
	const struct results_divergence *v = item;
	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:I, "
			 "s:I, s:o, s:b, s:I, s:I, s:I}", "tensor", v->tensor, "role", v->role, "dtype", v->dtype,
			 "stage", v->stage, "axes", v->axes, "dims", v->dims, "elements", (json_int_t)v->elems,
			 "differing", (json_int_t)v->n_diff, "ulp_histogram", json_out_ulp_histogram(v),
			 "class_mismatches", (json_int_t)v->n_class, "nan_payloads", (json_int_t)v->n_nan_bits,
			 "sign_flips", (json_int_t)v->n_sign, "max_ulp", (json_int_t)v->max_ulp, "at_max_ulp",
			 div_elem(&v->at_max_ulp), "max_abs", json_out_num(v->max_abs), "at_max_abs",
			 div_elem(&v->at_max_abs), "first", div_elem(&v->first), "rows", (json_int_t)v->rows,
			 "rows_touched", (json_int_t)v->rows_touched, "map", json_out_div_map(v, false),
			 "has_reference", v->has_ref, "ref_compared", (json_int_t)v->ref_compared, "b_closer",
			 (json_int_t)v->b_closer, "a_closer", (json_int_t)v->a_closer);
}

/* An arm's batch invariance (checked false: the sweep did not ask). */
static json_t *invariance(const struct results_invariance *v, const char *arm)
{
	return json_pack("{s:s, s:b, s:s, s:I, s:I, s:I, s:s, s:s}", "arm", arm, "checked", v->checked, "slot", v->slot,
			 "rows_compared", (json_int_t)v->rows_compared, "first_row", (json_int_t)v->first_row,
			 "other_value", (json_int_t)v->other_value, "tensor", v->tensor, "note", v->note);
}

/* host_median_ns, host_p90_ns null where not measured (docs/JSON.md);
 * check and divergences: what the slot compared and where its bytes differ. */
static json_t *slot(const void *item)
{
	const struct results_slot *s = item;
	const struct results_slot_check *k = &s->check;
	return json_pack("{s:s, s:s#, s:s, s:i, s:i, s:i, s:i, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			 "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:s, s:i, s:i, s:i, s:s}, s:o}", "label", s->label,
			 "arm", &s->arm, 1, "variant", s->variant, "position", s->position, "warmup", s->warmup,
			 "n_samples", s->n_samples, "n_discarded", s->n_discarded, "stopping_reason",
			 s->stopping_reason, "kernel_records_bad", (json_int_t)s->kernel_records_bad, "clocks_before",
			 clocks(&s->clocks_before), "clocks_after", clocks(&s->clocks_after), "samples_ns",
			 numbers(s->samples_ns, s->n_samples), "kernel_ns", numbers(s->kernel_ns, s->n_samples),
			 "kernels", json_out_array(s->kernels, sizeof *s->kernels, s->n_kernels, kernel), "outputs",
			 json_out_array(s->outputs, sizeof *s->outputs, s->n_outputs, output), "elapsed_s",
			 json_out_num(s->elapsed_s), "median_ns", json_out_num(s->median_ns), "p10_ns",
			 json_out_num(s->p10_ns), "p90_ns", json_out_num(s->p90_ns), "min_ns", json_out_num(s->min_ns),
			 "max_ns", json_out_num(s->max_ns), "mean_ns", json_out_num(s->mean_ns), "noise",
			 json_out_num(s->noise), "kernel_median_ns", json_out_num(s->kernel_median_ns),
			 "host_median_ns", json_out_num(s->host_median_ns), "host_p90_ns", json_out_num(s->host_p90_ns),
			 "check", "compared", k->compared, "calls_checked", k->calls_checked, "calls_differ",
			 k->calls_differ, "first_differ", k->first_differ, "differ_tensor", k->differ_tensor,
			 "divergences", json_out_array(s->div, sizeof *s->div, s->n_div, divergence));
}

/* The copy floor measured in the run (results_case.copy_floor_*), null
 * when it measured none. */
static json_t *copy_floor(const struct results_case *c)
{
	if (!(c->copy_floor_ns > 0))
		return json_null();
	return json_pack("{s:o, s:o, s:s, s:i, s:s}", "median_ns", json_out_num(c->copy_floor_ns), "kernel_median_ns",
			 json_out_num(c->copy_floor_kernel_ns > 0 ? c->copy_floor_kernel_ns : NAN), "method",
			 c->copy_floor_method, "samples", c->copy_floor_samples, "methods", c->copy_floor_detail);
}

static json_t *case_of(const void *item)
{
	const struct results_case *c = item;
	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:b, s:i, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:I, s:I, s:I, "
			 "s:I, s:[o, o]}", "ordinal", c->ordinal, "name", c->name, "site", c->site, "shape", c->shape,
			 "dtype", c->dtype, "eps", json_out_num(c->eps), "affine", c->affine, "count", c->count,
			 "input", c->input, "arm_a", c->arm_a, "arm_b", c->arm_b, "copy_floor", copy_floor(c), "slots",
			 json_out_array(c->slots, sizeof *c->slots, c->n_slots, slot), "sweep", c->sweep, "axis",
			 c->axis, "axis_value", (json_int_t)c->axis_value, "bytes_min", (json_int_t)c->bytes_min,
			 "bytes_a", (json_int_t)c->bytes_a, "bytes_b", (json_int_t)c->bytes_b, "invariance",
			 invariance(&c->inv[0], "a"), invariance(&c->inv[1], "b"));
}

enum ab_rc json_export_run(const struct printer_job *job, struct ab_diag *d)
{
	const struct results_run *r = job->run;
	json_t *body = json_pack("{s:o, s:o}", "run", json_out_run(r, true), "cases",
				 json_out_array(r->cases, sizeof *r->cases, r->n_cases, case_of));
	return json_out_print(json_out_document("abbench.export", body), job->f, d);
}

/* ---- abbench.show: the figures of the JSON view ------------------------------ */

/* Sets v (stolen) at path in obj: '.' nests objects, made on first use so
 * that they keep the place of their first key; "%c" in the last part is
 * arm (a, b; 0: none). The object v went into; NULL when out of memory. */
static json_t *set_path(json_t *obj, const char *path, char arm, json_t *v)
{
	char key[96];
	const char *dot = strchr(path, '.'), *c = strstr(path, "%c");
	if (!dot && arm && c) {
		snprintf(key, sizeof key, "%.*s%c%s", (int)(c - path), path, arm, c + 2);
		path = key;
	}
	if (!dot)
		return json_out_set(obj, path, v) ? obj : NULL;
	snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
	json_t *sub = json_object_get(obj, key);
	if (!sub && !json_out_set(obj, key, sub = json_object())) {
		json_decref(v);
		return NULL;
	}
	return set_path(sub, dot + 1, arm, v);
}

/* f's value at its path, and a second value (key2) beside it, in the same
 * object; arm: the case's arm an arm row is read for (a, b; 0: none). */
static bool put_value(json_t *obj, const struct figure *f, const struct figure_at *at, char arm)
{
	struct figure_value v;
	struct figure_at here = *at;
	if (arm)
		here.arm = arm == 'a' ? &at->c->a : &at->c->b;
	figure_value_of(f, &here, &v);
	json_t *in = set_path(obj, f->json ? f->json : f->key, arm, figure_fmt_json(f, &v));
	if (in && f->key2)
		in = set_path(in, f->json2 ? f->json2 : f->key2, arm, v.absent ? json_null() : figure_fmt_json2(f, &v));
	return in != NULL;
}

static bool fill(json_t *o, enum figure_level level, const struct figure_at *at);

/* A NESTED row: the level below as a list (a run's cases, a case's slots). */
static json_t *nested(enum figure_level level, const struct figure_at *at)
{
	json_t *a = json_array();
	bool run = level == FIGURE_RUN, ok = a != NULL;
	for (int i = 0; ok && i < (run ? at->run->n_cases : at->c->n_slots); i++) {
		struct figure_at below = { .run = at->run, .c = run ? &at->run->cases[i] : at->c,
					   .slot = run ? NULL : &at->c->slots[i] };
		json_t *o = json_object();
		ok = json_out_push(a, o) && fill(o, run ? FIGURE_CASE : FIGURE_SLOT, &below);
	}
	return json_out_whole(a, ok);
}

/* Puts the rows of the JSON view at level (a case's arm rows with it,
 * once per arm) in their order into o. */
static bool fill(json_t *o, enum figure_level level, const struct figure_at *at)
{
	const struct figure *rows[FIGURE_MAX];
	int n = figure_view_rows(FIGURE_IN_JSON, rows, FIGURE_MAX);
	bool ok = true;
	for (int i = 0; ok && i < n; i++) {
		const struct figure *f = rows[i];
		if (f->level == FIGURE_ARM && level == FIGURE_CASE)
			ok = put_value(o, f, at, 'a') && put_value(o, f, at, 'b');
		else if (f->level == level && f->hint == FIGURE_NESTED)
			ok = set_path(o, f->key, 0, nested(level, at)) != NULL;
		else if (f->level == level)
			ok = put_value(o, f, at, 0);
	}
	return ok;
}

enum ab_rc json_export_show(const struct printer_job *job, struct ab_diag *d)
{
	json_t *doc = json_out_document("abbench.show", json_pack("{s:o}", "run",
								  json_out_run(job->summary->run, false)));
	bool ok = doc && fill(doc, FIGURE_RUN, &(struct figure_at){ .run = job->summary });
	return json_out_print(json_out_whole(doc, ok), job->f, d);
}
