/*
 * diff_json.c - the abbench.diff document (diff_json.h). A value that is
 * not finite (NaN, an infinity) is the string "nan", "inf" or "-inf", so
 * that it is never confused with an unknown (null); its bits say which NaN.
 */
#include "print/diff_json.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/ulp.h"
#include "print/json_out.h"
#include "print/plot.h"

static json_t *value(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

static json_t *coords(const struct divergence_coords *c)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	for (int k = 0; ok && k < c->rank; k++) {
		char axis[SITE_AXIS_NAME_MAX];
		size_t i = 0;
		for (; c->axis[k][i] && i + 1 < sizeof axis; i++)
			axis[i] = (char)tolower((unsigned char)c->axis[k][i]);
		axis[i] = '\0';
		ok = json_out_set(o, axis, json_integer(c->at[k]));
	}
	return ok ? o : (json_decref(o), NULL);
}

/* An element, or null when there is none. */
static json_t *elem(const struct divergence_tensor *t, const struct divergence_value *x)
{
	if (!x->present)
		return json_null();
	json_t *o = json_object();
	bool ok = o != NULL;
	ok = json_out_set(o, "index", json_integer(x->index)) && ok;
	ok = json_out_set(o, "coords", coords(&x->where)) && ok;
	ok = json_out_set(o, "a", value(x->a)) && ok;
	ok = json_out_set(o, "b", value(x->b)) && ok;
	ok = json_out_set(o, "a_bits", json_integer(x->a_bits)) && ok;
	ok = json_out_set(o, "b_bits", json_integer(x->b_bits)) && ok;
	ok = json_out_set(o, "reference", t->v->has_ref ? value(x->ref) : json_null()) && ok;
	ok = json_out_set(o, "ulp", x->ulp >= 0 ? json_integer(x->ulp) : json_null()) && ok;
	ok = json_out_set(o, "abs_diff", json_out_num(x->abs_diff)) && ok;
	return ok ? o : (json_decref(o), NULL);
}

/* ["B", "T", "W"] from "B,T,W"; [1, 64, 64] from "1,64,64" (numbers). */
static json_t *list(const char *text, bool numbers)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (const char *p = text; ok && *p;) {
		size_t len = strcspn(p, ",");
		char word[64];
		snprintf(word, sizeof word, "%.*s", (int)len, p);
		ok = json_out_push(a, numbers ? json_integer(strtoll(word, NULL, 10)) : json_string(word));
		p += len + (p[len] == ',');
	}
	return ok ? a : (json_decref(a), NULL);
}

static json_t *histogram(const struct results_divergence *v)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	for (int k = 0; k < RESULTS_ULP_BUCKETS; k++)
		ok = json_out_set(o, ulp_bucket_name(k), json_integer(v->ulp_hist[k])) && ok;
	return ok ? o : (json_decref(o), NULL);
}

static json_t *map(const struct results_divergence *v)
{
	json_t *o = json_object(), *cells = json_array();
	bool ok = o && cells;
	for (int r = 0; ok && r < v->map_rows; r++) {
		json_t *row = json_array();
		ok = row != NULL;
		for (int c = 0; ok && c < v->map_cols; c++)
			ok = json_out_push(row, json_integer(v->map[(size_t)r * (size_t)v->map_cols + (size_t)c]));
		ok = json_out_push(cells, row) && ok;
	}
	ok = json_out_set(o, "by_head", json_boolean(v->map_by_head)) && ok;
	ok = json_out_set(o, "rows", json_integer(v->map_rows)) && ok;
	ok = json_out_set(o, "cols", json_integer(v->map_cols)) && ok;
	ok = json_out_set(o, "row_bin", json_integer(v->map_row_bin)) && ok;
	ok = json_out_set(o, "col_bin", json_integer(v->map_col_bin)) && ok;
	ok = json_out_set(o, "cells", cells) && ok;
	return ok ? o : (json_decref(o), NULL);
}

static json_t *reference(const struct divergence_tensor *t)
{
	const struct results_divergence *v = t->v;
	if (!v->has_ref)
		return json_null();
	json_t *o = json_object();
	bool ok = o != NULL;
	ok = json_out_set(o, "compared", json_integer(v->ref_compared)) && ok;
	ok = json_out_set(o, "b_closer", json_integer(v->b_closer)) && ok;
	ok = json_out_set(o, "a_closer", json_integer(v->a_closer)) && ok;
	ok = json_out_set(o, "b_closer_percent", json_out_num(t->b_closer_pct)) && ok;
	return ok ? o : (json_decref(o), NULL);
}

static json_t *tensor(const struct printer_diff *p, int s, int t)
{
	const struct divergence_tensor *x = &p->rep->slots[s].tensors[t];
	const struct results_divergence *v = x->v;
	char stem[96], name[110];
	json_t *o = json_object();
	bool ok = o != NULL;
	heatmap_stem(p->rep->slots[s].slot->label, v->tensor, stem, sizeof stem);
	snprintf(name, sizeof name, "%s.png", stem);
	ok = json_out_set(o, "tensor", json_string(v->tensor)) && ok;
	ok = json_out_set(o, "role", json_string(v->role)) && ok;
	ok = json_out_set(o, "dtype", json_string(v->dtype)) && ok;
	ok = json_out_set(o, "axes", list(v->axes, false)) && ok;
	ok = json_out_set(o, "shape", list(v->dims, true)) && ok;
	ok = json_out_set(o, "elements", json_integer(v->elems)) && ok;
	ok = json_out_set(o, "differing", json_integer(v->n_diff)) && ok;
	ok = json_out_set(o, "percent", json_out_num(x->pct)) && ok;
	ok = json_out_set(o, "ulp_histogram", histogram(v)) && ok;
	ok = json_out_set(o, "class_mismatches", json_integer(v->n_class)) && ok;
	ok = json_out_set(o, "nan_payloads", json_integer(v->n_nan_bits)) && ok;
	ok = json_out_set(o, "sign_flips", json_integer(v->n_sign)) && ok;
	ok = json_out_set(o, "max_ulp", elem(x, &x->max_ulp)) && ok;
	ok = json_out_set(o, "max_abs", elem(x, &x->max_abs)) && ok;
	ok = json_out_set(o, "first", elem(x, &x->first)) && ok;
	ok = json_out_set(o, "rows", json_integer(v->rows)) && ok;
	ok = json_out_set(o, "rows_touched", json_integer(v->rows_touched)) && ok;
	ok = json_out_set(o, "map", map(v)) && ok;
	ok = json_out_set(o, "reference", reference(x)) && ok;
	ok = json_out_set(o, "heatmap", p->drawn && p->drawn[s * RESULTS_MAX_DIV + t] ? json_string(name) : json_null()) &&
	     ok;
	return ok ? o : (json_decref(o), NULL);
}

static json_t *determinism(const struct results_slot *s)
{
	const struct results_slot_check *k = &s->check;
	json_t *o = json_object();
	bool ok = o != NULL;
	ok = json_out_set(o, "calls_checked", json_integer(k->calls_checked)) && ok;
	ok = json_out_set(o, "calls_differ", json_integer(k->calls_differ)) && ok;
	ok = json_out_set(o, "first_differ", k->first_differ ? json_integer(k->first_differ) : json_null()) && ok;
	ok = json_out_set(o, "tensor", k->differ_tensor[0] ? json_string(k->differ_tensor) : json_null()) && ok;
	ok = json_out_set(o, "nondeterministic", json_boolean(k->calls_differ > 0)) && ok;
	return ok ? o : (json_decref(o), NULL);
}

static json_t *slot(const struct printer_diff *p, int s)
{
	const struct divergence_slot *sl = &p->rep->slots[s];
	json_t *o = json_object(), *compared = json_array(), *tensors = json_array();
	bool ok = o && compared && tensors, exact = true;
	for (int i = 0; i < sl->slot->n_outputs; i++)
		exact = exact && sl->slot->outputs[i].bit_exact;
	for (int k = 0; ok && k < sl->n_compared; k++)
		ok = json_out_push(compared, json_string(sl->compared[k]));
	for (int t = 0; ok && t < sl->n_tensors; t++)
		ok = json_out_push(tensors, tensor(p, s, t));
	ok = json_out_set(o, "label", json_string(sl->slot->label)) && ok;
	ok = json_out_set(o, "arm", json_string(sl->slot->arm == 'a' ? "a" : "b")) && ok;
	ok = json_out_set(o, "variant", json_string(sl->slot->variant)) && ok;
	ok = json_out_set(o, "byte_equal", json_boolean(exact)) && ok;
	ok = json_out_set(o, "compared", compared) && ok;
	ok = json_out_set(o, "departure",
			  sl->departure >= 0 ? json_string(sl->compared[sl->departure]) : json_null()) && ok;
	ok = json_out_set(o, "determinism", determinism(sl->slot)) && ok;
	ok = json_out_set(o, "tensors", tensors) && ok;
	return ok ? o : (json_decref(o), NULL);
}

static const char *invariance_word(enum summary_invariance v)
{
	return v == SUMMARY_INVARIANCE_YES ? "yes" : v == SUMMARY_INVARIANCE_NO ? "no" : "not_checked";
}

/* The case's figures as the summary has them (summary.h). */
static json_t *case_summary(const struct summary_case *c)
{
	const struct summary_divergence *v = &c->div;
	json_t *o = json_object();
	bool ok = o != NULL;
	ok = json_out_set(o, "measured", json_boolean(v->measured)) && ok;
	ok = json_out_set(o, "tensor", v->tensor ? json_string(v->tensor) : json_null()) && ok;
	ok = json_out_set(o, "differing", json_integer(v->n_diff)) && ok;
	ok = json_out_set(o, "elements", json_integer(v->elems)) && ok;
	ok = json_out_set(o, "percent", json_out_num(v->pct)) && ok;
	ok = json_out_set(o, "max_ulp", json_integer(v->max_ulp)) && ok;
	ok = json_out_set(o, "departure", v->departure ? json_string(v->departure) : json_null()) && ok;
	ok = json_out_set(o, "nondeterministic", json_boolean(c->det.nondeterministic)) && ok;
	ok = json_out_set(o, "calls_differ", json_integer(c->det.calls_differ)) && ok;
	ok = json_out_set(o, "calls", json_integer(c->det.calls)) && ok;
	ok = json_out_set(o, "batch_invariant", json_string(invariance_word(c->inv.verdict))) && ok;
	return ok ? o : (json_decref(o), NULL);
}

/* The case's sweep's batch invariance; null when none asked for it. */
static json_t *invariance(const struct summary_run *S, const struct summary_case *c)
{
	for (int w = 0; S && w < S->n_sweeps; w++) {
		const struct summary_sweep *sw = &S->sweeps[w];
		if (strcmp(sw->name, c->c->sweep) || sw->invariance == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		json_t *o = json_object(), *values = json_array(), *brk = json_null();
		bool ok = o && values;
		for (int i = 0; ok && i < sw->n; i++)
			ok = json_out_push(values, json_integer(S->cases[sw->idx[i]].c->axis_value));
		if (ok && sw->invariance == SUMMARY_INVARIANCE_NO) {
			char arm[2] = { sw->break_arm, '\0' };
			brk = json_object();
			ok = brk && json_out_set(brk, "arm", json_string(arm));
			ok = ok && json_out_set(brk, "row", json_integer(sw->break_row));
			ok = ok && json_out_set(brk, "value", json_integer(S->cases[sw->break_case].c->axis_value));
			ok = ok && json_out_set(brk, "other_value", json_integer(sw->break_other));
			ok = ok && json_out_set(brk, "tensor", json_string(sw->break_tensor ? sw->break_tensor : ""));
		}
		ok = json_out_set(o, "sweep", json_string(sw->name)) && ok;
		ok = json_out_set(o, "axis", json_string(sw->axis)) && ok;
		ok = json_out_set(o, "verdict", json_string(invariance_word(sw->invariance))) && ok;
		ok = json_out_set(o, "values", values) && ok;
		ok = json_out_set(o, "checked", json_integer(sw->n_checked)) && ok;
		ok = json_out_set(o, "break", brk) && ok;
		return ok ? o : (json_decref(o), NULL);
	}
	return json_null();
}

static json_t *case_head(const struct results_case *c)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	ok = json_out_set(o, "name", json_string(c->name)) && ok;
	ok = json_out_set(o, "site", json_string(c->site)) && ok;
	ok = json_out_set(o, "shape", json_string(c->shape)) && ok;
	ok = json_out_set(o, "dtype", json_string(c->dtype)) && ok;
	ok = json_out_set(o, "arm_a", json_string(c->arm_a)) && ok;
	ok = json_out_set(o, "arm_b", json_string(c->arm_b)) && ok;
	return ok ? o : (json_decref(o), NULL);
}

enum ab_rc diff_json_print(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_diff *p = job->diff;
	json_t *body = json_object(), *slots = json_array();
	bool ok = body && slots;
	for (int s = 0; ok && s < p->rep->n_slots; s++)
		ok = json_out_push(slots, slot(p, s));
	ok = json_out_set(body, "run", json_out_run(p->rep->run, false)) && ok;
	ok = json_out_set(body, "case", case_head(p->rep->c)) && ok;
	ok = json_out_set(body, "only", p->rep->only ? json_string(p->rep->only) : json_null()) && ok;
	ok = json_out_set(body, "measured", json_boolean(p->rep->measured)) && ok;
	ok = json_out_set(body, "summary", case_summary(p->sc)) && ok;
	ok = json_out_set(body, "invariance", invariance(p->summary, p->sc)) && ok;
	ok = json_out_set(body, "slots", slots) && ok;
	ok = json_out_set(body, "equal_slots", json_integer(p->rep->n_equal)) && ok;
	return json_out_print(json_out_document("abbench.diff", json_out_whole(body, ok)), job->f, d);
}
