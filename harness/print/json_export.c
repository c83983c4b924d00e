/*
 * json_export.c - the "abbench.export" and "abbench.show" documents
 * (json_export.h).
 */
#include "print/json_export.h"

#include <math.h>

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
	if (!ok)
		json_decref(a);
	return ok ? a : NULL;
}

static json_t *kernels(const struct results_slot *s)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < s->n_kernels; i++) {
		const struct results_kernel *k = &s->kernels[i];
		ok = json_out_push(a, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "name", k->name, "family", k->family,
						"launches", (json_int_t)k->launches, "total_ns", json_out_num(k->total_ns),
						"min_ns", json_out_num(k->min_ns), "max_ns", json_out_num(k->max_ns)));
	}
	if (!ok)
		json_decref(a);
	return ok ? a : NULL;
}

static json_t *outputs(const struct results_slot *s)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < s->n_outputs; i++) {
		const struct results_output *o = &s->outputs[i];
		ok = json_out_push(a, json_pack("{s:s, s:s, s:I, s:b, s:I, s:o, s:o, s:b, s:b, s:I}", "tensor", o->tensor,
						"md5", o->md5, "bytes", (json_int_t)o->bytes, "bit_exact", o->bit_exact,
						"mismatches", (json_int_t)o->mismatches, "max_abs_err",
						json_out_num(o->max_abs_err), "max_err_ratio",
						json_out_num(o->max_err_ratio), "has_reference", o->has_ref, "ref_ok",
						o->ref_ok, "ref_skipped", (json_int_t)o->ref_skipped));
	}
	if (!ok)
		json_decref(a);
	return ok ? a : NULL;
}

static json_t *slot_stats(const struct results_slot *s)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "elapsed_s", json_out_num(s->elapsed_s),
			 "median_ns", json_out_num(s->median_ns), "p10_ns", json_out_num(s->p10_ns), "p90_ns",
			 json_out_num(s->p90_ns), "min_ns", json_out_num(s->min_ns), "max_ns", json_out_num(s->max_ns),
			 "mean_ns", json_out_num(s->mean_ns), "noise", json_out_num(s->noise), "kernel_median_ns",
			 json_out_num(s->kernel_median_ns));
}

static json_t *slot(const struct results_slot *s)
{
	char arm[2] = { s->arm, '\0' };
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "label",
			      s->label, "arm", arm, "variant", s->variant, "position", s->position, "warmup", s->warmup,
			      "n_samples", s->n_samples, "n_discarded", s->n_discarded, "stopping_reason",
			      s->stopping_reason, "kernel_records_bad", (json_int_t)s->kernel_records_bad, "clocks_before",
			      clocks(&s->clocks_before), "clocks_after", clocks(&s->clocks_after), "samples_ns",
			      numbers(s->samples_ns, s->n_samples), "kernel_ns", numbers(s->kernel_ns, s->n_samples),
			      "kernels", kernels(s), "outputs", outputs(s));
	json_t *st = slot_stats(s);
	if (!o || !st || json_object_update(o, st)) {
		json_decref(o);
		o = NULL;
	}
	json_decref(st);
	return o;
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

static json_t *case_of(const struct results_case *c, json_t *slots)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:b, s:i, s:s, s:s, s:s, s:o, s:o}", "ordinal",
			      c->ordinal, "name", c->name, "site", c->site, "shape", c->shape, "dtype", c->dtype, "eps",
			      json_out_num(c->eps), "affine", c->affine, "count", c->count, "input", c->input, "arm_a",
			      c->arm_a, "arm_b", c->arm_b, "copy_floor", copy_floor(c), "slots", slots);
	bool ok = o && json_out_set(o, "sweep", json_string(c->sweep)) &&
		  json_out_set(o, "axis", json_string(c->axis)) &&
		  json_out_set(o, "axis_value", json_integer(c->axis_value)) &&
		  json_out_set(o, "bytes_min", json_integer(c->bytes_min)) &&
		  json_out_set(o, "bytes_a", json_integer(c->bytes_a)) &&
		  json_out_set(o, "bytes_b", json_integer(c->bytes_b));
	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

json_t *json_export_run(const struct results_run *r)
{
	json_t *cases = json_array(), *run = json_out_run(r, true);
	bool ok = cases && run;
	for (int i = 0; ok && i < r->n_cases; i++) {
		const struct results_case *c = &r->cases[i];
		json_t *slots = json_array();
		ok = slots != NULL;
		for (int k = 0; ok && k < c->n_slots; k++)
			ok = json_out_push(slots, slot(&c->slots[k]));
		ok = json_out_push(cases, ok ? case_of(c, slots) : (json_decref(slots), NULL)) && ok;
	}
	if (!ok) {
		json_decref(cases);
		json_decref(run);
		return NULL;
	}
	return json_out_document("abbench.export", json_pack("{s:o, s:o}", "run", run, "cases", cases));
}

/* ---- abbench.show: the figures show prints ------------------------------ */

static json_t *md5s(const struct results_slot *s)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int i = 0; ok && i < s->n_outputs; i++)
		ok = json_out_push(a, json_string(s->outputs[i].md5));
	if (!ok)
		json_decref(a);
	return ok ? a : NULL;
}

static json_t *show_slot(const struct summary_slot *ss)
{
	const struct results_slot *s = ss->slot;
	char arm[2] = { s->arm, '\0' };
	return json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:s, s:o, s:b, s:b, s:b}", "label", s->label, "arm",
			 arm, "variant", s->variant, "n_samples", s->n_samples, "median_ns", json_out_num(s->median_ns),
			 "p10_ns", json_out_num(s->p10_ns), "p90_ns", json_out_num(s->p90_ns), "kernel_median_ns",
			 json_out_num(s->kernel_median_ns), "stopping_reason", s->stopping_reason, "md5", md5s(s),
			 "bit_exact", ss->bit_exact, "has_reference", ss->has_ref, "ref_ok", ss->ref_ok);
}

static json_t *summary_of(const struct summary_case *s)
{
	json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:o, s:o, s:b, s:b, s:b, s:b, s:o, s:s}", "median_a_ns",
			      json_out_num(s->a.time.median_ns), "median_b_ns", json_out_num(s->b.time.median_ns), "n_a",
			      s->a.time.n, "n_b", s->b.time.n, "speedup", json_out_interval(s->speedup), "drift",
			      json_out_num(s->drift), "b_byte_equal", s->b_byte_equal, "a_deterministic", s->a_deterministic,
			      "has_reference", s->has_ref, "ref_ok", s->ref_ok, "saving_per_forward_ns",
			      json_out_num(s->per_forward.saving_ns), "verdict", summary_case_verdict_key(s->verdict));
	bool ok = o && json_out_set(o, "copy_floor_ns", json_out_num(s->copy_floor_ns)) &&
		  json_out_set(o, "a_over_copy", json_out_num(s->a_over_copy)) &&
		  json_out_set(o, "b_over_copy", json_out_num(s->b_over_copy)) &&
		  json_out_set(o, "b_kernel_over_copy", json_out_num(s->b_kernel_over_copy)) &&
		  json_out_set(o, "a_gbps", json_out_num(s->a.bw.gbps)) &&
		  json_out_set(o, "b_gbps", json_out_num(s->b.bw.gbps)) &&
		  json_out_set(o, "a_pct_copy", json_out_num(s->a.bw.pct_copy)) &&
		  json_out_set(o, "b_pct_copy", json_out_num(s->b.bw.pct_copy));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The run's word and the cases counted by verdict (the report's first line). */
static json_t *run_verdict(const struct summary_run *s)
{
	json_t *counts = json_object();
	bool ok = counts != NULL;
	for (int k = 0; ok && k < SUMMARY_CASE_KINDS; k++)
		ok = json_out_set(counts, summary_case_verdict_key((enum summary_case_verdict)k),
				  json_integer(s->n_verdict[k]));
	if (!ok) {
		json_decref(counts);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:b}", "word", summary_verdict_str(s->verdict), "counts", counts, "drift_judged",
			 s->have_profile);
}

static json_t *show_case(const struct summary_case *sc)
{
	const struct results_case *c = sc->c;
	json_t *slots = json_array();
	bool ok = slots != NULL;
	for (int k = 0; ok && k < sc->n_slots; k++)
		ok = json_out_push(slots, show_slot(&sc->slots[k]));
	if (!ok) {
		json_decref(slots);
		return NULL;
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:o}", "name", c->name, "site", c->site, "shape",
			 c->shape, "dtype", c->dtype, "input", c->input, "count", c->count, "arm_a", sc->arm_a, "arm_b",
			 sc->arm_b, "slots", slots, "summary", summary_of(sc));
}

static json_t *projection(const struct summary_run *s)
{
	return json_pack("{s:o, s:o, s:o, s:o}", "per_forward_ns", json_out_num(s->per_forward.saving_ns),
			 "per_step_ns", json_out_num(s->per_step.saving_ns), "per_image_ns",
			 json_out_num(s->per_image.saving_ns), "eager_per_step_ns", json_out_num(s->per_step.a_ns));
}

json_t *json_export_show(const struct summary_run *s)
{
	json_t *cases = json_array();
	bool ok = cases != NULL;
	for (int i = 0; ok && i < s->n_cases; i++)
		ok = json_out_push(cases, show_case(&s->cases[i]));
	if (!ok) {
		json_decref(cases);
		return NULL;
	}
	return json_out_document("abbench.show", json_pack("{s:o, s:o, s:o, s:o}", "run", json_out_run(s->run, false),
							   "verdict", run_verdict(s), "cases", cases, "projection",
							   projection(s)));
}
