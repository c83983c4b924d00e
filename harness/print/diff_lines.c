/*
 * diff_lines.c - the sentences of a divergence report (diff_lines.h).
 */
#include "print/diff_lines.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/ulp.h"

/* Appends to buf (cut at len). */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* A share in %: two decimals, or two significant digits below 0.01%
 * (one element of a million is 0.0001%, not 0.00%). */
static const char *pct_text(double pct, char *buf, size_t len)
{
	if (pct > 0 && pct < 0.01)
		snprintf(buf, len, "%.2g%%", pct);
	else
		snprintf(buf, len, "%.2f%%", pct);
	return buf;
}

/* "1.2578125 (0x3fa1)", "-inf (0xff80)", "NaN (0x7fff)"; an integer as it is. */
static void value_text(enum site_dtype dt, double v, int64_t bits, char *buf, size_t len)
{
	int digits = dt == SITE_F32 ? 8 : 4;
	if (site_dtype_is_int(dt)) {
		snprintf(buf, len, "%" PRId64, bits);
		return;
	}
	if (isnan(v))
		snprintf(buf, len, "NaN (0x%0*" PRIx64 ")", digits, (uint64_t)bits);
	else
		snprintf(buf, len, "%.9g (0x%0*" PRIx64 ")", v, digits, (uint64_t)bits);
}

/* "at [b=0, t=3, w=5]: A 1.5 (0x3fc0), B 1.5078125 (0x3fc1), reference 1.503 (|B - A| ...)". */
static void elem_text(const struct divergence_tensor *t, const struct divergence_value *x, char *buf, size_t len)
{
	char where[160], a[64], b[64];
	if (!x->present) {
		snprintf(buf, len, "none");
		return;
	}
	divergence_coords_text(&x->where, x->index, where, sizeof where);
	value_text(t->dtype, x->a, x->a_bits, a, sizeof a);
	value_text(t->dtype, x->b, x->b_bits, b, sizeof b);
	snprintf(buf, len, "at %s (element %" PRId64 "): A %s, B %s", where, x->index, a, b);
	if (!t->v->has_ref)
		add(buf, len, ", no reference");
	else
		add(buf, len, ", reference %.9g", x->ref);
}

void diff_tensor_lines(const struct divergence_tensor *t, struct diff_tensor_lines *L)
{
	const struct results_divergence *v = t->v;
	char e[360];
	memset(L, 0, sizeof *L);
	snprintf(L->title, sizeof L->title, "%s (%s, %s, [%s] = [%s])", v->tensor, v->role, v->dtype, v->axes, v->dims);
	char p[32];
	snprintf(L->count, sizeof L->count, "%" PRId64 " of %" PRId64 " elements differ (%s)", v->n_diff, v->elems,
		 pct_text(t->pct, p, sizeof p));
	for (int k = 0; k < RESULTS_ULP_BUCKETS; k++)
		add(L->hist, sizeof L->hist, "%s%s: %" PRId64, k ? " | " : "", ulp_bucket_name(k), v->ulp_hist[k]);
	snprintf(L->classes, sizeof L->classes, "class mismatches (NaN/Inf/finite) %" PRId64 ", NaN payloads %" PRId64
		 ", sign flips %" PRId64, v->n_class, v->n_nan_bits, v->n_sign);
	elem_text(t, &t->max_ulp, e, sizeof e);
	if (t->max_ulp.present)
		snprintf(L->max_ulp, sizeof L->max_ulp, "%" PRId64 " ULP %s", v->max_ulp, e);
	else
		snprintf(L->max_ulp, sizeof L->max_ulp, "none (every difference is a class mismatch or a NaN payload)");
	elem_text(t, &t->max_abs, e, sizeof e);
	if (t->max_abs.present)
		snprintf(L->max_abs, sizeof L->max_abs, "%.9g %s", v->max_abs, e);
	else
		snprintf(L->max_abs, sizeof L->max_abs, "none (no differing pair is finite on both sides)");
	elem_text(t, &t->first, e, sizeof e);
	snprintf(L->first, sizeof L->first, "%s", e);
	if (t->first.ulp >= 0)
		add(L->first, sizeof L->first, "; %" PRId64 " ULP", t->first.ulp);
	else
		add(L->first, sizeof L->first, "; %s", ulp_class_of(t->dtype, t->first.a_bits) ==
							 ulp_class_of(t->dtype, t->first.b_bits)
						     ? "NaN payloads differ"
						     : "a class mismatch");
	snprintf(L->rows, sizeof L->rows, "%" PRId64 " of %" PRId64 " rows hold a difference (%s); map %d x %d (%s, ",
		 v->rows_touched, v->rows, pct_text(t->rows_pct, p, sizeof p), v->map_rows, v->map_cols,
		 v->map_by_head ? "rows x heads" : "rows x row blocks");
	add(L->rows, sizeof L->rows, "%" PRId64 " row%s a line, %" PRId64 " %s a column)", v->map_row_bin,
	    v->map_row_bin == 1 ? "" : "s", v->map_col_bin, v->map_by_head ? "head(s)" : "element(s)");
	if (!v->has_ref)
		snprintf(L->ref, sizeof L->ref, "no reference");
	else if (!v->ref_compared)
		snprintf(L->ref, sizeof L->ref, "no differing element is finite on both sides with a finite reference");
	else
		snprintf(L->ref, sizeof L->ref, "B is the nearer on %.1f%% of the %" PRId64 " compared (A on %.1f%%, "
			 "equally near %.1f%%)", t->b_closer_pct, v->ref_compared,
			 100.0 * (double)v->a_closer / (double)v->ref_compared,
			 100.0 * (double)(v->ref_compared - v->a_closer - v->b_closer) / (double)v->ref_compared);
}

void diff_slot_head(const struct divergence_slot *s, char *buf, size_t len)
{
	bool exact = true;
	for (int o = 0; o < s->slot->n_outputs; o++)
		exact = exact && s->slot->outputs[o].bit_exact;
	snprintf(buf, len, "%s (%s): %s", s->slot->label, s->slot->variant,
		 exact ? "outputs byte-equal to the first A slot's" : "not byte-equal to the first A slot");
	if (s->nondeterministic)
		add(buf, len, "; NONDETERMINISTIC");
}

void diff_compared(const struct divergence_slot *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!s->n_compared) {
		snprintf(buf, len, "nothing compared (the first A slot)");
		return;
	}
	for (int k = 0; k < s->n_compared; k++) {
		bool differs = false;
		for (int i = 0; i < s->slot->n_div; i++)
			differs = differs || s->slot->div[i].stage == k;
		add(buf, len, "%s%s %s", k ? ", " : "", s->compared[k], differs ? "DIFFERS" : "equal");
	}
	if (s->departure >= 0)
		add(buf, len, "; the first stage that departs: '%s'", s->compared[s->departure]);
	if (s->n_compared == s->slot->n_outputs)
		add(buf, len, " (both arms write none of the chain's intermediates: outputs only)");
}

void diff_determinism(const struct results_slot *s, char *buf, size_t len)
{
	const struct results_slot_check *k = &s->check;
	if (!k->calls_checked)
		snprintf(buf, len, "not checked (a run stored before schema 10)");
	else if (!k->calls_differ)
		snprintf(buf, len, "deterministic: the outputs of its %d hashed calls (samples 1-4, every power of two, the "
			 "last) are alike", k->calls_checked);
	else
		snprintf(buf, len, "NONDETERMINISTIC: %d of its %d hashed calls (samples 1-4, every power of two, the last) "
			 "gave other outputs than the first; first at sample %d ('%s')", k->calls_differ, k->calls_checked,
			 k->first_differ, k->differ_tensor);
}

void diff_invariance(const struct summary_run *S, const struct summary_case *c, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int w = 0; S && w < S->n_sweeps; w++) {
		const struct summary_sweep *sw = &S->sweeps[w];
		if (strcmp(sw->name, c->c->sweep) || sw->invariance == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		if (sw->invariance == SUMMARY_INVARIANCE_YES) {
			snprintf(buf, len, "batch-invariant: yes across %s = ", sw->axis);
			for (int i = 0; i < sw->n; i++)
				add(buf, len, "%s%" PRId64, i ? ", " : "", S->cases[sw->idx[i]].c->axis_value);
		} else {
			const struct results_case *b = S->cases[sw->break_case].c;
			snprintf(buf, len, "batch-invariant: NO: arm %c's row %" PRId64 " of '%s' at %s = %" PRId64
				 " differs from the same row at %s = %" PRId64, sw->break_arm, sw->break_row,
				 sw->break_tensor ? sw->break_tensor : "", sw->axis, b->axis_value, sw->axis, sw->break_other);
		}
		if (sw->n_checked < sw->n)
			add(buf, len, " (%d of the sweep's %d cases compared)", sw->n_checked, sw->n);
		return;
	}
}

bool diff_case_differs(const struct summary_case *c)
{
	return c->verdict == SUMMARY_CASE_NOT_EXACT || c->inv.verdict == SUMMARY_INVARIANCE_NO || c->div.departure;
}

void diff_case_line(const struct summary_case *c, char *buf, size_t len)
{
	const struct summary_divergence *v = &c->div;
	char p[32];
	buf[0] = '\0';
	if (!v->measured)
		snprintf(buf, len, "B: not byte-equal; where it differs was not measured (a run stored before schema 10)");
	else if (!v->tensor)
		snprintf(buf, len, "B: byte-equal to A1");
	else
		snprintf(buf, len, "B: %" PRId64 " of %" PRId64 " elements of '%s' differ (%s)", v->n_diff, v->elems,
			 v->tensor, pct_text(v->pct, p, sizeof p));
	if (v->measured && v->tensor && v->max_ulp)
		add(buf, len, ", max %" PRId64 " ULP", v->max_ulp);
	if (v->measured && v->n_class)
		add(buf, len, ", %" PRId64 " NaN/Inf where the other side is of another class", v->n_class);
	if (v->departure)
		add(buf, len, "; departs at '%s'", v->departure);
	if (c->det.nondeterministic)
		add(buf, len, "; NONDETERMINISTIC: %s, %d of %d calls differed", c->det.slot, c->det.calls_differ,
		    c->det.calls);
	else if (c->det.slots_checked)
		add(buf, len, "; deterministic");
}
