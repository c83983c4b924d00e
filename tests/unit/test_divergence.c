/*
 * test_divergence.c - run/divergence.h's walk on planted differences
 * whose figures are known: one ULP in one row, a sign flip, a NaN where A
 * has a number, NaN payloads, an infinity, in bf16, f16 and f32 (and i32);
 * the map per row and per head; the reference's side; and the same
 * figures (maps included) on 1, 2, 3, 5 and 16 threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "run/divergence.h"

/* A [rows, cols] tensor of dtype dt, every element 1.5 (or 3 for i32). */
struct plant {
	enum site_dtype dt;
	int64_t rows, cols;
	unsigned char *a, *b;
};

static int64_t one_and_half(enum site_dtype dt)
{
	switch (dt) {
	case SITE_BF16:
		return 0x3FC0;
	case SITE_F16:
		return 0x3E00;
	case SITE_F32:
		return 0x3FC00000;
	default:
		return 3;
	}
}

static void put(enum site_dtype dt, void *base, int64_t i, int64_t bits)
{
	size_t sz = site_dtype_size(dt);
	if (sz == 2) {
		uint16_t v = (uint16_t)bits;
		memcpy((char *)base + i * 2, &v, 2);
	} else if (sz == 4) {
		uint32_t v = (uint32_t)bits;
		memcpy((char *)base + i * 4, &v, 4);
	}
}

static struct plant plant_new(enum site_dtype dt, int64_t rows, int64_t cols)
{
	struct plant p = { dt, rows, cols, NULL, NULL };
	size_t bytes = (size_t)(rows * cols) * site_dtype_size(dt);
	p.a = malloc(bytes);
	p.b = malloc(bytes);
	for (int64_t i = 0; i < rows * cols; i++)
		put(dt, p.a, i, one_and_half(dt));
	memcpy(p.b, p.a, bytes);
	return p;
}

static void plant_free(struct plant *p)
{
	free(p->a);
	free(p->b);
}

static struct results_divergence walk(const struct plant *p, int k, const double *ref, bool *differs)
{
	struct divergence_input in = { p->dt, p->a, p->b, p->rows * p->cols, 2, { p->rows, p->cols }, ref };
	struct results_divergence out;
	struct ab_diag d;
	memset(&out, 0, sizeof out);
	assert_int_equal(divergence_compare(&in, k, differs, &out, &d), AB_OK);
	return out;
}

static void test_equal(void **state)
{
	(void)state;
	struct plant p = plant_new(SITE_BF16, 4, 8);
	bool differs = true;
	struct results_divergence v = walk(&p, 1, NULL, &differs);
	assert_false(differs);
	assert_null(v.map);
	plant_free(&p);
}

/* One ULP at row 3, column 5 of 8 x 16: every figure. */
static void one_ulp(enum site_dtype dt)
{
	struct plant p = plant_new(dt, 8, 16);
	int64_t at = 3 * 16 + 5;
	put(dt, p.b, at, one_and_half(dt) + 1);
	bool differs;
	struct results_divergence v = walk(&p, 1, NULL, &differs);
	assert_true(differs);
	assert_int_equal(v.n_diff, 1);
	assert_int_equal(v.elems, 128);
	assert_int_equal(v.ulp_hist[0], 1);
	assert_int_equal(v.ulp_hist[1] + v.ulp_hist[2] + v.ulp_hist[3] + v.ulp_hist[4], 0);
	assert_int_equal(v.n_class + v.n_nan_bits + v.n_sign, 0);
	assert_int_equal(v.max_ulp, 1);
	assert_int_equal(v.at_max_ulp.index, at);
	assert_int_equal(v.first.index, at);
	assert_int_equal(v.at_max_abs.index, at);
	assert_int_equal(v.first.a_bits, one_and_half(dt));
	assert_int_equal(v.first.b_bits, one_and_half(dt) + 1);
	/* one ULP at 1.5: 2^-7 (bf16), 2^-10 (f16), 2^-23 (f32) */
	double ulp = dt == SITE_BF16 ? ldexp(1, -7) : dt == SITE_F16 ? ldexp(1, -10) : ldexp(1, -23);
	assert_true(v.max_abs == ulp);
	assert_int_equal(v.rows, 8);
	assert_int_equal(v.rows_touched, 1);
	assert_false(v.map_by_head);
	assert_int_equal(v.map_rows, 8);
	assert_int_equal(v.map_cols, 16);
	for (int i = 0; i < 128; i++)
		assert_int_equal(v.map[i], i == at ? 1 : 0);
	assert_false(v.has_ref);
	free(v.map);
	plant_free(&p);
}

static void test_one_ulp(void **state)
{
	(void)state;
	one_ulp(SITE_BF16);
	one_ulp(SITE_F16);
	one_ulp(SITE_F32);
}

/* A sign flip of 1.5 and a NaN where A has 1.5, NaN payloads (0x7FFF
 * against 0x7FC0) and +Inf against -Inf. */
static void specials(enum site_dtype dt, int64_t sign, int64_t nan_a, int64_t nan_b, int64_t inf)
{
	struct plant p = plant_new(dt, 2, 8);
	int64_t v15 = one_and_half(dt);
	put(dt, p.b, 1, v15 | sign);  /* -1.5 */
	put(dt, p.b, 4, nan_a);       /* NaN where A has 1.5 */
	put(dt, p.a, 9, nan_a);       /* NaN on both sides, other bits */
	put(dt, p.b, 9, nan_b);
	put(dt, p.a, 12, inf);        /* +Inf against -Inf */
	put(dt, p.b, 12, inf | sign);
	bool differs;
	struct results_divergence v = walk(&p, 1, NULL, &differs);
	assert_int_equal(v.n_diff, 4);
	assert_int_equal(v.n_class, 1);
	assert_int_equal(v.n_nan_bits, 1);
	assert_int_equal(v.n_sign, 2);
	assert_int_equal(v.ulp_hist[4], 2); /* both beyond 1000 */
	assert_int_equal(v.n_diff, v.ulp_hist[4] + v.n_class + v.n_nan_bits);
	assert_int_equal(v.max_ulp, 2 * inf + 1);
	assert_int_equal(v.at_max_ulp.index, 12);
	assert_int_equal(v.first.index, 1);
	assert_int_equal(v.at_max_abs.index, 1); /* only the sign flip is finite on both sides */
	assert_true(v.max_abs == 3.0);
	assert_int_equal(v.rows_touched, 2);
	free(v.map);
	plant_free(&p);
}

static void test_specials(void **state)
{
	(void)state;
	specials(SITE_BF16, 0x8000, 0x7FC0, 0x7FFF, 0x7F80);
	specials(SITE_F16, 0x8000, 0x7E00, 0x7FFF, 0x7C00);
	specials(SITE_F32, 0x80000000, 0x7FC00000, 0x7FFFFFFF, 0x7F800000);
}

static void test_integers(void **state)
{
	(void)state;
	struct plant p = plant_new(SITE_I32, 3, 4);
	put(SITE_I32, p.b, 5, -4); /* 3 -> -4: 7 apart, a sign flip */
	put(SITE_I32, p.b, 6, 5);  /* 3 -> 5: 2 apart */
	bool differs;
	struct results_divergence v = walk(&p, 1, NULL, &differs);
	assert_int_equal(v.n_diff, 2);
	assert_int_equal(v.ulp_hist[1], 1);
	assert_int_equal(v.ulp_hist[2], 1);
	assert_int_equal(v.n_sign, 1);
	assert_int_equal(v.max_ulp, 7);
	assert_true(v.max_abs == 7.0);
	free(v.map);
	plant_free(&p);
}

/* B nearer the reference in two elements, A in one, a tie in one. */
static void test_reference_side(void **state)
{
	(void)state;
	struct plant p = plant_new(SITE_BF16, 1, 8);
	double ref[8];
	for (int i = 0; i < 8; i++)
		ref[i] = 1.5;
	put(SITE_BF16, p.a, 0, 0x3FC1), ref[0] = 1.5; /* A off, B exact: B nearer */
	put(SITE_BF16, p.a, 1, 0x3FC2), put(SITE_BF16, p.b, 1, 0x3FC1); /* B nearer */
	put(SITE_BF16, p.b, 2, 0x3FC1);                                 /* A nearer */
	put(SITE_BF16, p.a, 3, 0x3FC1), put(SITE_BF16, p.b, 3, 0x3FBF); /* a tie */
	put(SITE_BF16, p.b, 4, 0x3FC1), ref[4] = NAN;                   /* not compared */
	bool differs;
	struct results_divergence v = walk(&p, 1, ref, &differs);
	assert_true(v.has_ref);
	assert_int_equal(v.n_diff, 5);
	assert_int_equal(v.ref_compared, 4);
	assert_int_equal(v.b_closer, 2);
	assert_int_equal(v.a_closer, 1);
	assert_true(v.first.ref == 1.5);
	free(v.map);
	plant_free(&p);
}

/* [2, 300, 4, 8]: per head, rows binned (600 -> 256 rows of 3). */
static void test_map_by_head(void **state)
{
	(void)state;
	int64_t shape[4] = { 2, 300, 4, 8 }, n = 2 * 300 * 4 * 8;
	uint16_t *a = calloc((size_t)n, 2), *b = calloc((size_t)n, 2);
	b[((1 * 300 + 10) * 4 + 2) * 8 + 7] = 1; /* b=1, t=10, h=2 */
	b[((0 * 300 + 0) * 4 + 3) * 8 + 0] = 1;  /* b=0, t=0, h=3 */
	struct divergence_input in = { SITE_BF16, a, b, n, 4, { shape[0], shape[1], shape[2], shape[3] }, NULL };
	struct results_divergence v;
	struct ab_diag d;
	bool differs;
	assert_int_equal(divergence_compare(&in, 1, &differs, &v, &d), AB_OK);
	assert_true(v.map_by_head);
	assert_int_equal(v.rows, 2400);
	assert_int_equal(v.rows_touched, 2);
	assert_int_equal(v.map_cols, 4);
	assert_int_equal(v.map_row_bin, 3);
	assert_int_equal(v.map_rows, 200);
	assert_int_equal(v.map[(310 / 3) * 4 + 2], 1);
	assert_int_equal(v.map[0 * 4 + 3], 1);
	free(v.map);
	free(a);
	free(b);
}

static bool same_elem(const struct results_div_elem *x, const struct results_div_elem *y)
{
	return x->index == y->index && x->a_bits == y->a_bits && x->b_bits == y->b_bits &&
	       (x->ref == y->ref || (isnan(x->ref) && isnan(y->ref)));
}

/* Scattered differences of every kind over 2^20 + 3 elements (rows of
 * 1027): the same figures and maps on 1, 2, 3, 5 and 16 threads. */
static void test_threads_same(void **state)
{
	(void)state;
	int64_t cols = 1027, rows = ((1 << 20) + 3 + cols - 1) / cols, n = rows * cols;
	struct plant p = plant_new(SITE_F32, rows, cols);
	double *ref = malloc((size_t)n * sizeof *ref);
	for (int64_t i = 0; i < n; i++)
		ref[i] = 1.5 + (i % 3 - 1) * 1e-7;
	for (int64_t i = 7; i < n; i += 4099)
		put(SITE_F32, p.b, i, 0x3FC00000 + (i % 5) - 2 + (i % 5 == 2));
	put(SITE_F32, p.b, n - 1, 0x7FC00000);
	put(SITE_F32, p.b, n / 2, 0xBFC00000);
	bool differs;
	struct results_divergence one = walk(&p, 1, ref, &differs);
	assert_true(one.n_diff > 200);
	assert_int_equal(one.max_ulp, 2 * 0x3FC00000 + 1);
	for (int k = 2; k <= 16; k += k < 3 ? 1 : k < 5 ? 2 : 11) {
		struct results_divergence v = walk(&p, k, ref, &differs);
		assert_int_equal(v.n_diff, one.n_diff);
		assert_memory_equal(v.ulp_hist, one.ulp_hist, sizeof v.ulp_hist);
		assert_int_equal(v.n_class, one.n_class);
		assert_int_equal(v.n_sign, one.n_sign);
		assert_int_equal(v.max_ulp, one.max_ulp);
		assert_true(v.max_abs == one.max_abs);
		assert_true(same_elem(&v.at_max_ulp, &one.at_max_ulp) && same_elem(&v.at_max_abs, &one.at_max_abs));
		assert_true(same_elem(&v.first, &one.first));
		assert_int_equal(v.rows_touched, one.rows_touched);
		assert_int_equal(v.b_closer, one.b_closer);
		assert_int_equal(v.a_closer, one.a_closer);
		assert_int_equal(v.ref_compared, one.ref_compared);
		assert_memory_equal(v.map, one.map, (size_t)(v.map_rows * v.map_cols) * sizeof *v.map);
		free(v.map);
	}
	free(one.map);
	free(ref);
	plant_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal),          cmocka_unit_test(test_one_ulp),
		cmocka_unit_test(test_specials),       cmocka_unit_test(test_integers),
		cmocka_unit_test(test_reference_side), cmocka_unit_test(test_map_by_head),
		cmocka_unit_test(test_threads_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
