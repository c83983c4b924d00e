/*
 * test_figures.c - the table of figures (analysis/figures.h): its rows are
 * well formed (unique keys and JSON paths, one row per place of a view,
 * levels a view can show, a getter and a description each), and each
 * getter reads the summary's figure: for fake_run's case "x" (A around
 * 100 ns, B around 50 ns, 9 samples a slot, B not byte-equal) and "y"
 * (bit-exact, 12 samples), every value equals the summary field it names.
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
	assert_int_equal(n, 12);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_well_formed),
		cmocka_unit_test(test_json_paths_unique),
		cmocka_unit_test(test_view_rows_in_order),
		cmocka_unit_test(test_values_read_the_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
