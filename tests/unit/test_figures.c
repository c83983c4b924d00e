/*
 * test_figures.c - the table of figures (analysis/figures.h): its rows are
 * well formed (unique keys and JSON paths, one row per place of a view,
 * levels a view can show, a getter and a description each), and each
 * getter reads the summary's figure: for fake_run's case "x" (A around
 * 100 ns, B around 50 ns, 9 samples a slot, B not byte-equal) and "y"
 * (bit-exact, 12 samples), every value equals the summary field it names;
 * the round's rows (issues 28, 29) on planted host times and a planted
 * divergence: the host time beside the GPU's, the launch-bound mark with
 * both, the divergence's counts, places and words, and words, never a
 * number, where a figure is unknown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/figures.h"
#include "fixtures.h"

/* Which levels each view's printer can show. */
static bool view_takes(enum figure_view v, const struct figure *f)
{
	switch (v) {
	case FIGURE_IN_CSV: return f->hint != FIGURE_NESTED && f->hint != FIGURE_SPREAD;
	case FIGURE_IN_JSON: return f->hint != FIGURE_SPREAD;
	case FIGURE_IN_SHOW: return f->level == FIGURE_SLOT && f->hint != FIGURE_NESTED;
	default: return (f->level == FIGURE_CASE || f->level == FIGURE_ARM) && f->hint != FIGURE_NESTED;
	}
}

/* The object a JSON row goes into: its level's (an arm row its case's).
 * Places of the JSON view count per object; of the others, per view. */
static int group(const struct figure *f)
{
	return f->level == FIGURE_ARM ? FIGURE_CASE : f->level;
}

static bool same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void test_rows_well_formed(void **state)
{
	(void)state;
	assert_true(n_figures > 40 && n_figures <= FIGURE_MAX);
	for (int i = 0; i < n_figures; i++) {
		const struct figure *f = &figures[i];
		assert_non_null(f->key);
		assert_non_null(f->desc);
		assert_true(f->hint < FIGURE_HINTS && f->level < FIGURE_LEVELS);
		if (f->hint != FIGURE_NESTED && !f->get)
			fail_msg("row %s has no getter", f->key);
		for (int j = 0; j < i; j++)
			if (!strcmp(f->key, figures[j].key))
				fail_msg("two rows named %s", f->key);
		for (int v = 0; v < FIGURE_VIEWS; v++) {
			if (!f->at[v])
				continue;
			if (!view_takes((enum figure_view)v, f))
				fail_msg("row %s cannot be in view %s", f->key, figure_view_str((enum figure_view)v));
			if (v >= FIGURE_IN_SHOW && !f->head)
				fail_msg("row %s is in a table but has no head", f->key);
			for (int j = 0; j < i; j++)
				if (figures[j].at[v] == f->at[v] && (v != FIGURE_IN_JSON || group(&figures[j]) == group(f)))
					fail_msg("rows %s and %s share place %d of view %s", figures[j].key, f->key, f->at[v],
						 figure_view_str((enum figure_view)v));
		}
		if (f->level == FIGURE_ARM && f->at[FIGURE_IN_JSON] && !strstr(f->json ? f->json : "", "%c"))
			fail_msg("arm row %s has no %%c in its JSON path", f->key);
	}
}

/* JSON paths of one level (arm rows count as their case's) differ. */
static void test_json_paths_unique(void **state)
{
	(void)state;
	for (int i = 0; i < n_figures; i++)
		for (int j = 0; j < i; j++) {
			const struct figure *f = &figures[i], *g = &figures[j];
			if (!f->at[FIGURE_IN_JSON] || !g->at[FIGURE_IN_JSON] || group(f) != group(g))
				continue;
			if (!strcmp(f->json ? f->json : f->key, g->json ? g->json : g->key))
				fail_msg("rows %s and %s write the same JSON key", f->key, g->key);
		}
}

static void test_view_rows_in_order(void **state)
{
	(void)state;
	const struct figure *rows[128];
	int n = figure_view_rows(FIGURE_IN_CSV, rows, 128);
	assert_string_equal(rows[0]->key, "case");
	assert_string_equal(rows[5]->key, "slot");
	for (int i = 1; i < n; i++)
		assert_true(rows[i - 1]->at[FIGURE_IN_CSV] < rows[i]->at[FIGURE_IN_CSV]);
	assert_int_equal(figure_find("verdict")->at[FIGURE_IN_CSV], 49); /* a column never moves */
	for (int v = FIGURE_IN_SHOW; v < FIGURE_VIEWS; v++) /* a table's columns fit figure_fmt's 63 */
		assert_true(figure_view_rows((enum figure_view)v, rows, 128) < 30);
	n = figure_view_rows(FIGURE_IN_SHOW, rows, 128);
	assert_int_equal(n, 13);
	assert_string_equal(rows[0]->key, "slot");
	assert_null(figure_find("no such figure"));
	assert_string_equal(figure_find("speedup")->key, "speedup");
}

/* The value of row key at at, into *v (words may point into v->buf: a
 * value is read where it was filled, never copied). */
static void value(const char *key, const struct figure_at *at, struct figure_value *v)
{
	const struct figure *f = figure_find(key);
	assert_non_null(f);
	figure_value_of(f, at, v);
}

static void test_values_read_the_summary(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 9, false }, { "y", 300, 100, 12, true } };
	struct results_run *r = fake_run(7, "s", "cpu0", fc, 2);
	r->cases[1].copy_floor_ns = 80;
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *x = &S->cases[0], *y = &S->cases[1];
	struct figure_at at = { S, x, &x->a, &x->slots[1] };
	struct figure_value v;
	value("speedup", &at, &v);
	assert_true(same(v.x, x->speedup.point) && same(v.lo, x->speedup.low) && same(v.hi, x->speedup.high));
	assert_true(isnan(v.lo)); /* B has 9 samples: no interval */
	assert_false(v.good); /* x lost bit-exactness */
	value("verdict", &at, &v);
	assert_string_equal(v.text, "not_exact");
	assert_string_equal(v.words, "lost bit-exactness");
	assert_true(v.bad);
	value("case_bit_exact", &at, &v);
	assert_true(v.x == 0 && v.bad && !v.absent);
	value("arm_median_ns", &at, &v);
	assert_true(v.x == x->a.time.median_ns);
	value("n_ab", &at, &v);
	assert_true(v.x == 18 && v.x2 == 9);
	value("bit_exact", &at, &v); /* slot B of x */
	assert_true(v.x == 0 && !v.absent);
	value("slot", &at, &v);
	assert_string_equal(v.text, "B");
	value("copy_floor_ns", &at, &v); /* not measured: absent, with why */
	assert_true(v.absent);
	assert_string_equal(v.words, "not measured");
	value("run_id", &at, &v);
	assert_true(v.x == 7);
	at = (struct figure_at){ S, y, &y->b, &y->slots[0] };
	value("arm_over_copy", &at, &v);
	assert_true(!v.absent && v.x == y->b_over_copy);
	value("speedup", &at, &v);
	assert_true(v.good);
	value("verdict.counts.faster", &at, &v);
	assert_true(v.x == S->n_verdict[SUMMARY_CASE_FASTER]);
	fx_summary_free(S);
	results_run_free(r);
}

/* Arm b of case x: 500 ns a call on the host, 9 samples, against its ~50
 * ns median (launch_gaps = hide): launch-bound. Case y: none measured. */
static void test_host_rows(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 9, false }, { "y", 300, 100, 12, true } };
	struct results_run *r = fake_run(7, "s", "cpu0", fc, 2);
	struct results_slot *b = &r->cases[0].slots[1];
	snprintf(r->launch_gaps, sizeof r->launch_gaps, "hide");
	b->host_ns = calloc((size_t)b->n_samples, sizeof *b->host_ns);
	assert_non_null(b->host_ns);
	for (int i = 0; i < b->n_samples; i++)
		b->host_ns[i] = 500 + i; /* median 504, p90 507.2 */
	b->host_median_ns = 504;
	b->host_p90_ns = 507.2;
	for (int i = 0; i < 3; i++)
		r->cases[0].slots[i].host_median_ns = r->cases[0].slots[i].host_p90_ns = i == 1 ? 504 : NAN;
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *x = &S->cases[0], *y = &S->cases[1];
	struct figure_at at = { S, x, &x->b, &x->slots[1] };
	struct figure_value v;
	value("arm_host_median_ns", &at, &v);
	assert_true(!v.absent && v.x == 504 && fabs(v.x2 - 507.2) < 1e-9);
	value("arm_gpu_ns", &at, &v);
	assert_true(!v.absent && v.x == x->b.time.median_ns);
	value("arm_launch_bound", &at, &v);
	assert_true(!v.absent && v.x == x->b.time.median_ns && v.x2 == 504);
	value("host_median_ns", &at, &v); /* slot B */
	assert_true(!v.absent && v.x == 504);
	value("launch_bound", &at, &v);
	assert_true(!v.absent && v.x == 1);
	assert_string_equal(v.text, "yes");
	at.arm = &x->a;
	at.slot = &x->slots[0];
	value("arm_host_median_ns", &at, &v); /* A: none measured */
	assert_true(v.absent && isnan(v.x2));
	assert_string_equal(v.words, "not measured");
	value("arm_launch_bound", &at, &v);
	assert_true(v.absent);
	assert_string_equal(v.words, "not measured");
	value("host_median_ns", &at, &v);
	assert_true(v.absent);
	at = (struct figure_at){ S, y, &y->b, &y->slots[1] };
	value("launch_bound", &at, &v); /* neither arm measured: unknown (CSV empty, JSON false) */
	assert_true(v.absent && v.x == 0);
	value("arm_gpu_ns", &at, &v);
	assert_true(v.absent);
	fx_summary_free(S);
	results_run_free(r);
}

/* A divergence planted in case x's summary: 3 of 12 elements of 'out' in
 * slot B, the first and the largest (2 ULP) at [t=1, w=1], 1 row of 3,
 * departing at 'out', B nearer the reference on 2 of 3; slot B's calls 2
 * of 7 differ; row 0 differs from T = 1's. Case y: not measured. */
static void test_divergence_rows(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 9, false }, { "y", 300, 100, 12, true } };
	struct results_run *r = fake_run(7, "s", "cpu0", fc, 2);
	snprintf(r->cases[0].axis, sizeof r->cases[0].axis, "T");
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	struct summary_case *x = &S->cases[0], *y = &S->cases[1];
	struct divergence_coords at11 = { 2, { "T", "W" }, { 1, 1 } };
	x->div = (struct summary_divergence){ .measured = true, .slot = "B", .tensor = "out", .n_diff = 3, .elems = 12,
					      .rows_touched = 1, .rows = 3, .first_index = 5, .first_at = at11,
					      .pct = 25, .max_ulp = 2, .max_ulp_tensor = "out", .max_ulp_index = 5,
					      .max_ulp_at = at11, .departure = "out", .has_ref = true,
					      .ref_compared = 3, .b_closer = 2 };
	x->det = (struct summary_determinism){ 3, true, "B", 2, 7 };
	x->inv = (struct summary_case_invariance){ SUMMARY_INVARIANCE_NO, 'b', 0, 1, 4, "out" };
	y->div = (struct summary_divergence){ .measured = false, .pct = NAN, .first_index = -1, .max_ulp_index = -1 };
	y->det = (struct summary_determinism){ 0 };
	struct figure_at at = { S, x, NULL, NULL };
	struct figure_value v;
	value("diff_elements", &at, &v);
	assert_true(!v.absent && v.x == 3 && v.x2 == 12);
	value("diff_pct", &at, &v);
	assert_true(!v.absent && v.x == 25);
	value("diff_max_ulp", &at, &v);
	assert_true(!v.absent && v.x == 2);
	value("diff_first_at", &at, &v);
	assert_string_equal(v.text, "out[t=1, w=1]");
	value("diff_max_ulp_at", &at, &v);
	assert_string_equal(v.text, "out[t=1, w=1]");
	value("diff_rows", &at, &v);
	assert_true(v.x == 1 && v.x2 == 3);
	value("departure", &at, &v);
	assert_string_equal(v.text, "out");
	value("b_nearer_pct", &at, &v);
	assert_true(fabs(v.x - 200.0 / 3) < 1e-9);
	value("deterministic", &at, &v);
	assert_true(v.x == 0 && v.bad && !v.absent);
	assert_string_equal(v.text, "NO: B, 2 of 7 calls differ");
	value("calls_differ", &at, &v);
	assert_true(v.x == 2 && v.x2 == 7);
	value("batch_invariant", &at, &v);
	assert_string_equal(v.text, "no");
	assert_string_equal(v.words, "NO: arm b's row 0 of 'out' differs from the same row at T = 1");
	value("invariance_row", &at, &v);
	assert_true(!v.absent && v.x == 0);
	at.c = y; /* not measured: every figure unknown, in words */
	const char *const unknown[] = { "diff_elements", "diff_pct", "diff_max_ulp", "diff_first_at", "diff_tensor",
					"b_nearer_pct", "deterministic", "calls_differ", "invariance_row" };
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
		value(unknown[i], &at, &v);
		if (!v.absent || !v.words)
			fail_msg("%s of an unmeasured case is not unknown in words", unknown[i]);
	}
	value("batch_invariant", &at, &v);
	assert_string_equal(v.text, "not_checked");
	assert_string_equal(v.words, "not checked");
	fx_summary_free(S);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_well_formed),
		cmocka_unit_test(test_json_paths_unique),
		cmocka_unit_test(test_view_rows_in_order),
		cmocka_unit_test(test_values_read_the_summary),
		cmocka_unit_test(test_host_rows),
		cmocka_unit_test(test_divergence_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
