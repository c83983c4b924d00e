/*
 * divergence.c - a case's stored divergences read for diff and for the
 * summary (divergence.h): coordinates from a tensor's axes and extents,
 * values from their bits, the first stage that departs, the per-case
 * figures of determinism and batch invariance, a sweep's verdict.
 */
#include "analysis/divergence.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ulp.h"
#include "common/suggest.h"

/* ---- coordinates and values -------------------------------------------- */

/* The comma-separated words of text into words[cap][width]; their count,
 * -1 when there are more than cap or one does not fit. */
static int split(const char *text, char (*words)[SITE_AXIS_NAME_MAX], int cap)
{
	int n = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ",");
		if (n == cap || len >= SITE_AXIS_NAME_MAX)
			return -1;
		memcpy(words[n], p, len);
		words[n++][len] = '\0';
		p += len + (p[len] == ',');
	}
	return n;
}

bool divergence_coords_of(const struct results_divergence *v, int64_t index, struct divergence_coords *out)
{
	char dims[SITE_MAX_RANK][SITE_AXIS_NAME_MAX];
	int n = split(v->axes, out->axis, SITE_MAX_RANK), m = split(v->dims, dims, SITE_MAX_RANK);
	if (n < 0 || n != m || index < 0)
		return false;
	out->rank = n;
	for (int k = n - 1; k >= 0; k--) {
		char *end;
		long long ext = strtoll(dims[k], &end, 10);
		if (*end || ext <= 0)
			return false;
		out->at[k] = index % ext;
		index /= ext;
	}
	return index == 0;
}

char *divergence_coords_text(const struct divergence_coords *c, int64_t index, char *buf, size_t len)
{
	size_t o = 0;
	if (c->rank <= 0) {
		snprintf(buf, len, "[%" PRId64 "]", index);
		return buf;
	}
	buf[0] = '\0';
	for (int k = 0; k < c->rank && o < len; k++) {
		char axis[SITE_AXIS_NAME_MAX];
		size_t i = 0;
		for (; c->axis[k][i] && i + 1 < sizeof axis; i++)
			axis[i] = (char)tolower((unsigned char)c->axis[k][i]);
		axis[i] = '\0';
		o += (size_t)snprintf(buf + o, len - o, "%s%s=%" PRId64, k ? ", " : "[", axis, c->at[k]);
	}
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}

static struct divergence_value value_of(const struct results_divergence *v, enum site_dtype dt,
					const struct results_div_elem *e)
{
	struct divergence_value x;
	memset(&x, 0, sizeof x);
	x.present = e->index >= 0;
	x.index = e->index;
	x.ulp = -1;
	x.abs_diff = x.ref = NAN;
	if (!x.present)
		return x;
	divergence_coords_of(v, e->index, &x.where);
	x.a_bits = e->a_bits;
	x.b_bits = e->b_bits;
	x.a = ulp_value(dt, e->a_bits);
	x.b = ulp_value(dt, e->b_bits);
	x.ref = e->ref;
	enum ulp_class ca = ulp_class_of(dt, e->a_bits), cb = ulp_class_of(dt, e->b_bits);
	if (ca == cb && ca != ULP_NAN) {
		uint64_t u = ulp_distance(dt, e->a_bits, e->b_bits);
		x.ulp = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	}
	if (ca == ULP_FINITE && cb == ULP_FINITE)
		x.abs_diff = fabs(x.b - x.a);
	return x;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

static void tensor_of(const struct results_divergence *v, struct divergence_tensor *t)
{
	t->v = v;
	if (!site_dtype_find(v->dtype, &t->dtype))
		t->dtype = SITE_BF16; /* results_check admits only the known ones */
	t->pct = pct(v->n_diff, v->elems);
	t->rows_pct = pct(v->rows_touched, v->rows);
	t->b_closer_pct = v->has_ref ? pct(v->b_closer, v->ref_compared) : NAN;
	t->max_ulp = value_of(v, t->dtype, &v->at_max_ulp);
	t->max_abs = value_of(v, t->dtype, &v->at_max_abs);
	t->first = value_of(v, t->dtype, &v->first);
}

/* ---- diff's report ------------------------------------------------------- */

static bool slot_nondeterministic(const struct results_slot *s)
{
	return s->check.calls_differ > 0;
}

/* The slot's compared list, its departure and the divergences asked for. */
static void slot_of(const struct results_slot *s, const char *only, struct divergence_slot *out)
{
	memset(out, 0, sizeof *out);
	out->slot = s;
	out->departure = -1;
	out->nondeterministic = slot_nondeterministic(s);
	int n = 0;
	for (const char *p = s->check.compared; *p && n < RESULTS_MAX_DIV;) {
		size_t len = strcspn(p, ",");
		snprintf(out->compared[n++], sizeof out->compared[0], "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
	out->n_compared = n;
	if (s->n_div > 0 && s->div[0].stage < n)
		out->departure = s->div[0].stage;
	for (int i = 0; i < s->n_div; i++)
		if (!only || !strcmp(only, s->div[i].tensor))
			tensor_of(&s->div[i], &out->tensors[out->n_tensors++]);
}

/* Whether the case has a tensor of that name among its slots' outputs,
 * compared lists or divergences. */
static bool case_has_tensor(const struct results_case *c, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		for (int o = 0; o < s->n_outputs; o++)
			if (!strcmp(s->outputs[o].tensor, name))
				return true;
		for (const char *p = s->check.compared; (p = strstr(p, name)); p += n)
			if ((p == s->check.compared || p[-1] == ',') && (p[n] == ',' || !p[n]))
				return true;
	}
	return false;
}

/* "out, mean, rstd": the case's tensors, for the message. */
static void tensor_names(const struct results_case *c, char *buf, size_t len)
{
	const struct results_slot *s = NULL;
	for (int i = 0; i < c->n_slots; i++)
		if (!s || strlen(c->slots[i].check.compared) > strlen(s->check.compared))
			s = &c->slots[i];
	buf[0] = '\0';
	if (s && s->check.compared[0]) {
		snprintf(buf, len, "%s", s->check.compared);
		for (char *p = buf; (p = strchr(p, ',')); p++)
			*p = ' ';
		return;
	}
	for (int o = 0; s && o < s->n_outputs; o++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", o ? " " : "", s->outputs[o].tensor);
}

enum ab_rc divergence_report_of(const struct results_run *r, const struct results_case *c, const char *only,
				struct divergence_report *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	out->run = r;
	out->c = c;
	out->only = only;
	if (only && !case_has_tensor(c, only)) {
		char names[256], copy[256];
		const char *words[RESULTS_MAX_DIV];
		int n = 0;
		tensor_names(c, names, sizeof names);
		snprintf(copy, sizeof copy, "%s", names);
		for (char *w = copy; *w && n < RESULTS_MAX_DIV;) {
			char *end = w + strcspn(w, " ");
			words[n++] = w;
			w = *end ? (*end = '\0', end + 1) : end;
		}
		const char *near = suggest_nearest(only, words, n);
		if (near)
			return ab_fail(d, AB_ERR_USAGE, "case '%s' has no tensor '%s' (did you mean '%s'?)", c->name, only,
				       near);
		return ab_fail(d, AB_ERR_USAGE, "case '%s' has no tensor '%s' (its tensors: %s)", c->name, only, names);
	}
	if (!(out->slots = calloc((size_t)c->n_slots + 1, sizeof *out->slots)))
		return ab_fail(d, AB_ERR_NOMEM, "out of memory reading the divergences of '%s'", c->name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		bool exact = true;
		for (int o = 0; o < s->n_outputs; o++)
			exact = exact && s->outputs[o].bit_exact;
		out->measured = out->measured || s->check.calls_checked > 0 || s->check.compared[0];
		if (exact && !s->n_div && !slot_nondeterministic(s))
			out->n_equal++;
		else
			slot_of(s, only, &out->slots[out->n_slots++]);
	}
	return AB_OK;
}

void divergence_report_free(struct divergence_report *rep)
{
	free(rep->slots);
	rep->slots = NULL;
	rep->n_slots = 0;
}

/* ---- the summary's figures ---------------------------------------------- */

/* The place of element index of x into *at (rank 0 when unknown). */
static void place_of(const struct results_divergence *x, int64_t index, struct divergence_coords *at)
{
	if (!divergence_coords_of(x, index, at))
		at->rank = 0;
}

/* s->div: the B slots' outputs' divergences. */
static void case_divergence(struct summary_case *s)
{
	struct summary_divergence *v = &s->div;
	const struct results_case *c = s->c;
	bool missing = false;
	memset(v, 0, sizeof *v);
	v->first_index = v->max_ulp_index = -1;
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *sl = &c->slots[i];
		if (sl->arm != 'b')
			continue;
		int outs = 0;
		for (int o = 0; o < sl->n_outputs; o++)
			outs += !sl->outputs[o].bit_exact;
		for (int k = 0; k < sl->n_div; k++) {
			const struct results_divergence *x = &sl->div[k];
			if (!v->departure)
				v->departure = x->tensor;
			if (strcmp(x->role, "output"))
				continue;
			outs--;
			if (!v->tensor || x->n_diff > v->n_diff) {
				v->slot = sl->label;
				v->tensor = x->tensor;
				v->n_diff = x->n_diff;
				v->elems = x->elems;
				v->rows = x->rows;
				v->rows_touched = x->rows_touched;
				v->first_index = x->first.index;
				place_of(x, x->first.index, &v->first_at);
			}
			if (x->max_ulp > v->max_ulp) {
				v->max_ulp = x->max_ulp;
				v->max_ulp_tensor = x->tensor;
				v->max_ulp_index = x->at_max_ulp.index;
				place_of(x, x->at_max_ulp.index, &v->max_ulp_at);
			}
			v->n_class += x->n_class;
			v->has_ref = v->has_ref || x->has_ref;
			v->ref_compared += x->ref_compared;
			v->b_closer += x->b_closer;
		}
		missing = missing || outs > 0;
	}
	v->measured = !missing;
	v->pct = missing ? NAN : v->elems ? 100.0 * (double)v->n_diff / (double)v->elems : 0;
}

static void case_determinism(struct summary_case *s)
{
	struct summary_determinism *m = &s->det;
	memset(m, 0, sizeof *m);
	for (int i = 0; i < s->c->n_slots; i++) {
		const struct results_slot *sl = &s->c->slots[i];
		m->slots_checked += sl->check.calls_checked > 0;
		if (!m->nondeterministic && sl->check.calls_checked > m->calls)
			m->calls = sl->check.calls_checked; /* deterministic so far: the most calls a slot hashed */
		if (!slot_nondeterministic(sl) || (m->slot && sl->check.calls_differ <= m->calls_differ))
			continue;
		m->nondeterministic = true;
		m->slot = sl->label;
		m->calls_differ = sl->check.calls_differ;
		m->calls = sl->check.calls_checked;
	}
}

static void case_invariance(struct summary_case *s)
{
	struct summary_case_invariance *v = &s->inv;
	memset(v, 0, sizeof *v);
	v->first_row = -1;
	for (int a = 0; a < 2; a++) {
		const struct results_invariance *x = &s->c->inv[a];
		if (!x->checked)
			continue;
		if (x->rows_compared > v->rows_compared)
			v->rows_compared = x->rows_compared;
		if (x->first_row >= 0 && v->verdict != SUMMARY_INVARIANCE_NO) {
			v->verdict = SUMMARY_INVARIANCE_NO;
			v->arm = a ? 'b' : 'a';
			v->first_row = x->first_row;
			v->other_value = x->other_value;
			v->tensor = x->tensor;
		} else if (v->verdict == SUMMARY_INVARIANCE_NOT_CHECKED) {
			v->verdict = SUMMARY_INVARIANCE_YES;
		}
	}
}

void divergence_case(struct summary_case *s)
{
	case_divergence(s);
	case_determinism(s);
	case_invariance(s);
}

void divergence_sweep(const struct summary_run *S, struct summary_sweep *w)
{
	w->invariance = SUMMARY_INVARIANCE_NOT_CHECKED;
	w->n_checked = 0;
	w->break_case = -1;
	for (int i = 0; i < w->n; i++) {
		const struct summary_case *c = &S->cases[w->idx[i]];
		if (c->inv.verdict == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		w->n_checked++;
		if (c->inv.verdict == SUMMARY_INVARIANCE_NO && w->break_case < 0) {
			w->break_case = w->idx[i];
			w->break_arm = c->inv.arm;
			w->break_row = c->inv.first_row;
			w->break_other = c->inv.other_value;
			w->break_tensor = c->inv.tensor;
		}
	}
	if (w->n_checked)
		w->invariance = w->break_case >= 0 ? SUMMARY_INVARIANCE_NO : SUMMARY_INVARIANCE_YES;
}
