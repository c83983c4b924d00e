/*
 * test_refcheck.c - refcheck_compare: tolerance, NaN, Inf and skip semantics.
 *
 * Outputs are bf16 patterns whose values are exact (1.0 = 0x3F80,
 * 1.5 = 0x3FC0, 2.0 = 0x4000, +Inf = 0x7F80, -Inf = 0xFF80, NaN = 0x7FFF),
 * so every expected error below is exact arithmetic.
 *
 * test_threads_same: refcheck_compare_k on 2, 3, 5, 16 threads and by its
 * own choice gives one thread's figures bit for bit (sizes 1, 7, 1000 and
 * 2^20 + 3, with NaN, Inf, skipped and failing elements).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "run/refcheck.h"

static struct results_output run(const bf16_t *out, const double *ref, const double *tol, int64_t n)
{
	struct results_output r;
	memset(&r, 0x5A, sizeof r); /* every field must be written */
	strcpy(r.tensor, "out");
	refcheck_compare(out, ref, tol, n, &r);
	assert_string_equal(r.tensor, "out"); /* other fields untouched */
	return r;
}

static void test_within_tolerance(void **state)
{
	(void)state;
	const bf16_t out[] = { 0x3F80, 0x3FC0, 0x4000 };
	const double ref[] = { 1.0, 1.25, 2.0625 };
	const double tol[] = { 0.0, 0.5, 0.125 };
	struct results_output r = run(out, ref, tol, 3);
	assert_true(r.ref_ok);
	assert_true(r.max_abs_err == 0.25);   /* |1.5 - 1.25| */
	assert_true(r.max_err_ratio == 0.5);  /* 0.0625 / 0.125 = 0.5, 0.25 / 0.5 = 0.5 */
	assert_int_equal(r.ref_skipped, 0);
}

static void test_outside_tolerance(void **state)
{
	(void)state;
	const bf16_t out[] = { 0x3F80, 0x4000 };
	const double ref[] = { 1.0, 1.75 };
	const double tol[] = { 0.1, 0.125 };
	struct results_output r = run(out, ref, tol, 2);
	assert_false(r.ref_ok);
	assert_true(r.max_abs_err == 0.25);
	assert_true(r.max_err_ratio == 2.0);
}

/* Exactly at the tolerance passes; zero tolerance needs an exact match. */
static void test_boundary(void **state)
{
	(void)state;
	const bf16_t out[] = { 0x4000, 0x3F80 };
	const double ref[] = { 1.75, 1.0 };
	const double tol[] = { 0.25, 0.0 };
	struct results_output r = run(out, ref, tol, 2);
	assert_true(r.ref_ok);
	assert_true(r.max_err_ratio == 1.0);
	const double tol0[] = { 0.25, 0.0 };
	const double ref2[] = { 1.75, 1.0 + 0x1p-30 };
	r = run(out, ref2, tol0, 2);
	assert_false(r.ref_ok);
	assert_true(isinf(r.max_err_ratio));
}

static void test_nan_semantics(void **state)
{
	(void)state;
	const bf16_t nan_out[] = { 0x7FFF, 0xFFC1 };
	const double ref_nan[] = { NAN, NAN };
	const double tol[] = { 0.0, 0.0 };
	struct results_output r = run(nan_out, ref_nan, tol, 2);
	assert_true(r.ref_ok);
	assert_true(r.max_abs_err == 0.0);

	const bf16_t finite[] = { 0x3F80 };
	r = run(finite, ref_nan, tol, 1); /* NaN expected, finite given */
	assert_false(r.ref_ok);
	assert_true(isinf(r.max_abs_err));

	const double ref_one[] = { 1.0 };
	const double big[] = { 1e30 };
	r = run(nan_out, ref_one, big, 1); /* NaN given where a value is expected */
	assert_false(r.ref_ok);
}

static void test_inf_semantics(void **state)
{
	(void)state;
	const bf16_t out[] = { 0x7F80, 0xFF80 };
	const double ref[] = { INFINITY, -INFINITY };
	const double tol[] = { 0.0, 0.0 };
	assert_true(run(out, ref, tol, 2).ref_ok);

	const double ref_swapped[] = { -INFINITY, INFINITY };
	assert_false(run(out, ref_swapped, tol, 2).ref_ok);

	const double ref_finite[] = { 3e38, -3e38 };
	const double huge[] = { 1e300, 1e300 };
	assert_false(run(out, ref_finite, huge, 2).ref_ok); /* Inf where finite expected */

	const bf16_t one[] = { 0x3F80 };
	const double ref_inf[] = { INFINITY };
	assert_false(run(one, ref_inf, huge, 1).ref_ok);
}

/* tol = NaN: not compared, counted, and not in the maxima. */
static void test_skipped(void **state)
{
	(void)state;
	const bf16_t out[] = { 0x7FFF, 0x3F80, 0x7F80, 0x4000 };
	const double ref[] = { 5.0, 1.0, 0.0, 2.0 };
	const double tol[] = { NAN, 0.0, NAN, 0.0 };
	struct results_output r = run(out, ref, tol, 4);
	assert_true(r.ref_ok);
	assert_int_equal(r.ref_skipped, 2);
	assert_true(r.max_abs_err == 0.0);
	assert_true(r.max_err_ratio == 0.0);
}

static void test_empty(void **state)
{
	(void)state;
	struct results_output r = run(NULL, NULL, NULL, 0);
	assert_true(r.ref_ok);
	assert_int_equal(r.ref_skipped, 0);
	assert_true(r.max_abs_err == 0.0 && r.max_err_ratio == 0.0);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* One element of a mixed output: mostly within tolerance, some past it,
 * some skipped, NaN and Inf on either side, an Inf error over an Inf
 * tolerance (a NaN ratio, which fmax drops). */
static void mixed_elem(bf16_t *out, double *ref, double *tol)
{
	uint64_t r = next();
	double v = (double)(int)(r % 2048) / 256.0 - 4.0;
	*out = bf16_from_float((float)v);
	*ref = v + (double)(int)((r >> 11) % 64) / 4096.0;
	*tol = (double)((r >> 17) % 32) / 1024.0;
	switch ((r >> 23) % 64) {
	case 0: *tol = NAN; break;
	case 1: *ref = NAN; break;
	case 2: *out = 0x7FFF; break;
	case 3: *ref = INFINITY; *tol = INFINITY; break;
	case 4: *out = 0x7F80; *ref = INFINITY; break;
	case 5: *tol = 0.0; break;
	default: break;
	}
}

static void test_threads_same(void **state)
{
	(void)state;
	static const int64_t ns[] = { 1, 7, 1000, (1 << 20) + 3 };
	static const int ks[] = { 2, 3, 5, 16, 0 };
	for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
		int64_t n = ns[a];
		bf16_t *out = malloc((size_t)n * sizeof *out);
		double *ref = malloc((size_t)n * sizeof *ref), *tol = malloc((size_t)n * sizeof *tol);
		assert_true(out && ref && tol);
		for (int64_t i = 0; i < n; i++)
			mixed_elem(&out[i], &ref[i], &tol[i]);
		for (int pass = 0; pass < 2; pass++) {
			if (pass) /* all pass but the last element: ref_ok from the last part */
				for (int64_t i = 0; i < n; i++) {
					ref[i] = isnan(ref[i]) ? 0.0 : ref[i];
					tol[i] = i == n - 1 ? 0.0 : 1e9;
					out[i] = i == n - 1 ? 0x3F80 : out[i] == 0x7FFF ? 0x3F80 : out[i];
				}
			struct results_output one, k;
			refcheck_compare_k(out, ref, tol, n, &one, 1);
			for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
				refcheck_compare_k(out, ref, tol, n, &k, ks[j]);
				assert_memory_equal(&one.max_abs_err, &k.max_abs_err, sizeof k.max_abs_err);
				assert_memory_equal(&one.max_err_ratio, &k.max_err_ratio, sizeof k.max_err_ratio);
				assert_int_equal(one.ref_ok, k.ref_ok);
				assert_int_equal(one.has_ref, k.has_ref);
				assert_int_equal(one.ref_skipped, k.ref_skipped);
			}
			if (pass)
				assert_false(one.ref_ok);
		}
		free(out);
		free(ref);
		free(tol);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_within_tolerance), cmocka_unit_test(test_outside_tolerance),
		cmocka_unit_test(test_boundary),         cmocka_unit_test(test_nan_semantics),
		cmocka_unit_test(test_inf_semantics),    cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_empty),            cmocka_unit_test(test_threads_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
