/*
 * test_figure_fmt.c - figures formatted by hint (print/figure_fmt.h): each
 * hint in text and markdown as written out by hand, an unknown value as
 * its reason or n/a, a second value, and never "nan": every row of the
 * table, read from a case whose every figure is unknown, prints words in
 * both human sinks and null or an empty cell in the machine ones.
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
#include "print/figure_fmt.h"
#include "fixtures.h"

static char md_buf[1024];

/* figure_md into a string. */
static const char *md(const struct figure *f, const struct figure_value *v)
{
	FILE *m = fmemopen(md_buf, sizeof md_buf, "w");
	assert_non_null(m);
	figure_fmt_md(m, f, v);
	fputc('\0', m);
	fclose(m);
	return md_buf;
}

static struct figure_value val(double x)
{
	return (struct figure_value){ .x = x, .x2 = NAN, .lo = NAN, .hi = NAN };
}

static void test_numbers(void **state)
{
	(void)state;
	char b[128];
	struct figure f = { .key = "t", .head = "t", .hint = FIGURE_DURATION };
	struct figure_value v = val(16190);
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "16.19 us");
	v.x2 = 38100;
	f.label2 = "host";
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "16.19 us, host 38.10 us");
	f.label = "GPU"; /* the launch-bound mark: both figures, each named */
	v = val(22600);
	v.x2 = 38100;
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "GPU 22.60 us, host 38.10 us");
	assert_string_equal(md(&f, &v), "GPU 22.60 us, host 38.10 us");
	f = (struct figure){ .key = "w", .head = "w", .hint = FIGURE_TEXT };
	v = val(NAN); /* an unknown text: its words, JSON null */
	v.absent = true;
	v.words = "none";
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "none");
	assert_string_equal(md(&f, &v), "none");
	json_t *j = figure_fmt_json(&f, &v);
	assert_true(json_is_null(j));
	json_decref(j);
	f = (struct figure){ .key = "c2", .key2 = "of", .head = "c", .hint = FIGURE_COUNT };
	v = val(3);
	v.x2 = 12;
	j = figure_fmt_json2(&f, &v); /* a count's second value is an integer */
	assert_true(json_is_integer(j) && json_integer_value(j) == 12);
	json_decref(j);
	f = (struct figure){ .key = "r", .head = "r", .hint = FIGURE_RATIO, .digits = 3, .ci = true };
	v = val(4.0012);
	v.lo = 3.99;
	v.hi = 4.009;
	v.good = true;
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "4.001x [3.990, 4.009]");
	assert_string_equal(md(&f, &v), "**4.001x** [3.990, 4.009]");
	v.lo = NAN;
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "4.001x [n/a]");
	f = (struct figure){ .key = "c", .head = "c", .hint = FIGURE_COUNT };
	v = val(40);
	v.x2 = 20;
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "40/20");
	f = (struct figure){ .key = "g", .head = "g", .hint = FIGURE_BANDWIDTH };
	v = val(3.21);
	v.x2 = 19.83;
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "3.2 (19.8%)");
	v.words = "cache-resident";
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "3.2 (cache-resident)");
	f = (struct figure){ .key = "d", .head = "d", .hint = FIGURE_FRACTION };
	v = val(0.0013);
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "0.13%");
	f = (struct figure){ .key = "s", .head = "s", .hint = FIGURE_SPREAD };
	v = val(16190);
	v.lo = 16160;
	v.hi = 16230;
	v.n = 40;
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "16.19 us [16.16, 16.23] n=40");
}

static void test_words(void **state)
{
	(void)state;
	char b[128];
	struct figure f = { .key = "f", .head = "f", .hint = FIGURE_FLAG };
	struct figure_value v = val(0);
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "NO");
	assert_string_equal(md(&f, &v), "**no**");
	v.x = 1;
	assert_string_equal(md(&f, &v), "yes");
	v.absent = true;
	v.words = "n/a (no outputs recorded)";
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "n/a (no outputs recorded)");
	f = (struct figure){ .key = "n", .head = "n", .hint = FIGURE_NAME };
	v = val(NAN);
	v.text = "sw[T=16]";
	assert_string_equal(md(&f, &v), "`sw[T=16]`");
	f.hint = FIGURE_TEXT;
	v.text = "max_samples|x";
	assert_string_equal(md(&f, &v), "max\\_samples\\|x");
	v.text = "a\x1b[31m";
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "a\\x1B[31m");
	f.hint = FIGURE_DIGEST;
	v.text = "0123456789abcdef0123456789abcdef+fedcba9876543210fedcba9876543210";
	assert_string_equal(figure_fmt_text(&f, &v, b, sizeof b), "01234567+fedcba98");
	json_t *j = figure_fmt_json(&f, &v);
	assert_int_equal(json_array_size(j), 2);
	json_decref(j);
}

/* Every row of the table read where nothing is known: words, never nan. */
static void test_never_nan(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 3, true } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 1);
	struct results_case *c = &r->cases[0];
	for (int s = 0; s < c->n_slots; s++) { /* no samples, no outputs */
		c->slots[s].n_samples = 0;
		c->slots[s].n_outputs = 0;
		c->slots[s].median_ns = c->slots[s].p10_ns = c->slots[s].p90_ns = c->slots[s].noise = NAN;
		c->slots[s].kernel_median_ns = c->slots[s].mean_ns = c->slots[s].min_ns = c->slots[s].max_ns = NAN;
	}
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *sc = &S->cases[0];
	struct figure_at at = { S, sc, &sc->b, &sc->slots[1] };
	for (int i = 0; i < n_figures; i++) {
		struct figure_value v;
		char b[256];
		if (figures[i].hint == FIGURE_NESTED)
			continue;
		figure_value_of(&figures[i], &at, &v);
		figure_fmt_text(&figures[i], &v, b, sizeof b);
		if (strstr(b, "nan") || strstr(md(&figures[i], &v), "nan"))
			fail_msg("row %s prints %s", figures[i].key, b);
		json_t *j = figure_fmt_json(&figures[i], &v);
		assert_non_null(j);
		char *dump = json_dumps(j, JSON_ENCODE_ANY);
		if (strstr(dump, "nan"))
			fail_msg("row %s writes %s", figures[i].key, dump);
		free(dump);
		json_decref(j);
	}
	fx_summary_free(S);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_never_nan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
