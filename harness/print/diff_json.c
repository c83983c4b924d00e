/*
 * diff_json.c - the abbench.diff document (json_out.h). A value that is
 * not finite (NaN, an infinity) is the string "nan", "inf" or "-inf", so
 * that it is never confused with an unknown (null); its bits say which NaN.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print/json_out.h"
#include "print/plot.h"

static json_t *value(double v)
{
	return isfinite(v) ? json_real(v) : json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static json_t *coords(const struct divergence_coords *c)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	for (int k = 0; ok && k < c->rank; k++) {
		char axis[SITE_AXIS_NAME_MAX] = "";
		for (size_t i = 0; c->axis[k][i] && i + 1 < sizeof axis; i++)
			axis[i] = (char)tolower((unsigned char)c->axis[k][i]);
		ok = json_out_set(o, axis, json_integer(c->at[k]));
	}
	return json_out_whole(o, ok);
}

/* An element, or null when there is none. */
static json_t *elem(const struct divergence_tensor *t, const struct divergence_value *x)
{
	if (!x->present)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:o}", "index", (json_int_t)x->index, "coords",
			 coords(&x->where), "a", value(x->a), "b", value(x->b), "a_bits", (json_int_t)x->a_bits,
			 "b_bits", (json_int_t)x->b_bits, "reference", t->v->has_ref ? value(x->ref) : json_null(),
			 "ulp", x->ulp >= 0 ? json_integer(x->ulp) : json_null(), "abs_diff",
			 json_out_num(x->abs_diff));
}

/* ["B", "T", "W"] from "B,T,W"; [1, 64, 64] from "1,64,64" (numbers). */
static json_t *list(const char *text, bool numbers)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (const char *p = text; ok && *p;) {
		size_t len = strcspn(p, ",");
		ok = json_out_push(a, numbers ? json_integer(strtoll(p, NULL, 10)) : json_stringn(p, len));
		p += len + (p[len] == ',');
	}
	return json_out_whole(a, ok);
}

/* reference: null without one; heatmap: the PNG's name beside the
 * document, null when none was drawn. */
static json_t *tensor(const struct printer_diff *p, int s, int t)
{
	const struct divergence_tensor *x = &p->rep->slots[s].tensors[t];
	const struct results_divergence *v = x->v;
	char stem[96];
	heatmap_stem(p->rep->slots[s].slot->label, v->tensor, stem, sizeof stem);
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:o, "
			 "s:o, s:o}", "tensor", v->tensor, "role", v->role, "dtype", v->dtype, "axes",
			 list(v->axes, false), "shape", list(v->dims, true), "elements", (json_int_t)v->elems,
			 "differing", (json_int_t)v->n_diff, "percent", json_out_num(x->pct), "ulp_histogram",
			 json_out_ulp_histogram(v), "class_mismatches", (json_int_t)v->n_class, "nan_payloads",
			 (json_int_t)v->n_nan_bits, "sign_flips", (json_int_t)v->n_sign, "max_ulp",
			 elem(x, &x->max_ulp), "max_abs", elem(x, &x->max_abs), "first", elem(x, &x->first), "rows",
			 (json_int_t)v->rows, "rows_touched", (json_int_t)v->rows_touched, "map",
			 json_out_div_map(v, true), "reference",
			 v->has_ref ? json_pack("{s:I, s:I, s:I, s:o}", "compared", (json_int_t)v->ref_compared,
						"b_closer", (json_int_t)v->b_closer, "a_closer",
						(json_int_t)v->a_closer, "b_closer_percent",
						json_out_num(x->b_closer_pct))
				    : json_null(),
			 "heatmap",
			 p->drawn && p->drawn[s * RESULTS_MAX_DIV + t] ? json_sprintf("%s.png", stem) : json_null());
}

static json_t *slot(const struct printer_diff *p, int s)
{
	const struct divergence_slot *sl = &p->rep->slots[s];
	const struct results_slot_check *k = &sl->slot->check;
	json_t *compared = json_array(), *tensors = json_array();
	bool ok = compared && tensors;
	for (int i = 0; ok && i < sl->n_compared; i++)
		ok = json_out_push(compared, json_string(sl->compared[i]));
	for (int t = 0; ok && t < sl->n_tensors; t++)
		ok = json_out_push(tensors, tensor(p, s, t));
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:s?, s:{s:i, s:i, s:o, s:s?, s:b}, s:o}", "label", sl->slot->label,
			 "arm", sl->slot->arm == 'a' ? "a" : "b", "variant", sl->slot->variant, "byte_equal",
			 p->sc->slots[sl->slot - p->rep->c->slots].bit_exact, "compared", json_out_whole(compared, ok),
			 "departure", sl->departure >= 0 ? sl->compared[sl->departure] : NULL, "determinism",
			 "calls_checked", k->calls_checked, "calls_differ", k->calls_differ, "first_differ",
			 k->first_differ ? json_integer(k->first_differ) : json_null(), "tensor",
			 k->differ_tensor[0] ? k->differ_tensor : NULL, "nondeterministic", k->calls_differ > 0,
			 "tensors", json_out_whole(tensors, ok));
}

static const char *invariance_word(enum summary_invariance v)
{
	return v == SUMMARY_INVARIANCE_YES ? "yes" : v == SUMMARY_INVARIANCE_NO ? "no" : "not_checked";
}

/* The case's figures as the summary has them (summary.h). */
static json_t *case_summary(const struct summary_case *c)
{
	const struct summary_divergence *v = &c->div;
	return json_pack("{s:b, s:s?, s:I, s:I, s:o, s:I, s:s?, s:b, s:i, s:i, s:s}", "measured", v->measured, "tensor",
			 v->tensor, "differing", (json_int_t)v->n_diff, "elements", (json_int_t)v->elems, "percent",
			 json_out_num(v->pct), "max_ulp", (json_int_t)v->max_ulp, "departure", v->departure,
			 "nondeterministic", c->det.nondeterministic, "calls_differ", c->det.calls_differ, "calls",
			 c->det.calls, "batch_invariant", invariance_word(c->inv.verdict));
}

/* The case's sweep's batch invariance; null when none asked for it. */
static json_t *invariance(const struct summary_run *S, const struct summary_case *c)
{
	for (int w = 0; S && w < S->n_sweeps; w++) {
		const struct summary_sweep *sw = &S->sweeps[w];
		if (strcmp(sw->name, c->c->sweep) || sw->invariance == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		json_t *values = json_array(), *brk = json_null();
		bool ok = values != NULL;
		for (int i = 0; ok && i < sw->n; i++)
			ok = json_out_push(values, json_integer(S->cases[sw->idx[i]].c->axis_value));
		if (sw->invariance == SUMMARY_INVARIANCE_NO)
			brk = json_pack("{s:s#, s:I, s:I, s:I, s:s}", "arm", &sw->break_arm, 1, "row",
					(json_int_t)sw->break_row, "value",
					(json_int_t)S->cases[sw->break_case].c->axis_value, "other_value",
					(json_int_t)sw->break_other, "tensor",
					sw->break_tensor ? sw->break_tensor : "");
		return json_pack("{s:s, s:s, s:s, s:o, s:i, s:o}", "sweep", sw->name, "axis", sw->axis, "verdict",
				 invariance_word(sw->invariance), "values", json_out_whole(values, ok), "checked",
				 sw->n_checked, "break", brk);
	}
	return json_null();
}

enum ab_rc diff_json_print(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_diff *p = job->diff;
	const struct results_case *c = p->rep->c;
	json_t *slots = json_array();
	bool ok = slots != NULL;
	for (int s = 0; ok && s < p->rep->n_slots; s++)
		ok = json_out_push(slots, slot(p, s));
	json_t *body = json_pack("{s:o, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:s?, s:b, s:o, s:o, s:o, s:i}", "run",
				 json_out_run(p->rep->run, false), "case", "name", c->name, "site", c->site, "shape",
				 c->shape, "dtype", c->dtype, "arm_a", c->arm_a, "arm_b", c->arm_b, "only",
				 p->rep->only, "measured", p->rep->measured, "summary", case_summary(p->sc),
				 "invariance", invariance(p->summary, p->sc), "slots", json_out_whole(slots, ok),
				 "equal_slots", p->rep->n_equal);
	return json_out_print(json_out_document("abbench.diff", body), job->f, d);
}
