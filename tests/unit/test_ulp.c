/*
 * test_ulp.c - common/ulp.h per dtype: ordered-integer distances across
 * zero, through the subnormals, to the infinities; classes (NaN, Inf,
 * finite); sign bits; buckets; values decoded from bits.
 *
 * Bit patterns: bf16 1.0 = 0x3F80, -1.0 = 0xBF80, +Inf 0x7F80, NaN
 * 0x7FC0/0x7FFF, smallest subnormal 0x0001, largest finite 0x7F7F; f16
 * 1.0 = 0x3C00, +Inf 0x7C00, largest finite 0x7BFF (65504); f32 1.0 =
 * 0x3F800000, +Inf 0x7F800000.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "common/ulp.h"

static void test_across_zero(void **state)
{
	(void)state;
	/* +0 and -0: one apart; the smallest subnormals one from their zero */
	assert_int_equal(ulp_distance(SITE_BF16, 0x0000, 0x8000), 1);
	assert_int_equal(ulp_distance(SITE_BF16, 0x0001, 0x0000), 1);
	assert_int_equal(ulp_distance(SITE_BF16, 0x8001, 0x8000), 1);
	assert_int_equal(ulp_distance(SITE_BF16, 0x0001, 0x8001), 3); /* +s, +0, -0, -s */
	assert_int_equal(ulp_distance(SITE_F16, 0x0000, 0x8000), 1);
	assert_int_equal(ulp_distance(SITE_F32, 0x00000000, 0x80000000), 1);
	assert_int_equal(ulp_distance(SITE_F32, 0x00000001, 0x80000001), 3);
	/* v against -v: 2 m + 1 */
	assert_int_equal(ulp_distance(SITE_BF16, 0x3F80, 0xBF80), 2 * 0x3F80 + 1);
	assert_int_equal(ulp_distance(SITE_F16, 0x3C00, 0xBC00), 2 * 0x3C00 + 1);
	assert_int_equal(ulp_distance(SITE_F32, 0x3F800000, 0xBF800000), 2ull * 0x3F800000 + 1);
	/* symmetric */
	assert_int_equal(ulp_distance(SITE_F32, 0xBF800000, 0x3F800000), 2ull * 0x3F800000 + 1);
}

static void test_neighbours(void **state)
{
	(void)state;
	assert_int_equal(ulp_distance(SITE_BF16, 0x3F80, 0x3F81), 1);
	assert_int_equal(ulp_distance(SITE_BF16, 0xBF80, 0xBF81), 1);
	assert_int_equal(ulp_distance(SITE_BF16, 0x3F80, 0x3F7F), 1); /* across a binade */
	assert_int_equal(ulp_distance(SITE_BF16, 0x0080, 0x007F), 1); /* normal to subnormal */
	assert_int_equal(ulp_distance(SITE_F16, 0x0400, 0x03FF), 1);
	assert_int_equal(ulp_distance(SITE_F32, 0x00800000, 0x007FFFFF), 1);
	/* the largest finite value is one ULP from its infinity */
	assert_int_equal(ulp_distance(SITE_BF16, 0x7F7F, 0x7F80), 1);
	assert_int_equal(ulp_distance(SITE_F16, 0x7BFF, 0x7C00), 1);
	assert_int_equal(ulp_distance(SITE_F32, 0x7F7FFFFF, 0x7F800000), 1);
	assert_int_equal(ulp_distance(SITE_BF16, 0xFF80, 0x7F80), 2 * 0x7F80 + 1);
}

static void test_integers(void **state)
{
	(void)state;
	assert_int_equal(ulp_distance(SITE_I32, -3, 4), 7);
	assert_int_equal(ulp_distance(SITE_U8, 255, 0), 255);
	assert_true(ulp_distance(SITE_I64, INT64_MIN, INT64_MAX) == UINT64_MAX);
	assert_true(ulp_negative(SITE_I32, -1));
	assert_false(ulp_negative(SITE_U8, 200));
	assert_int_equal(ulp_class_of(SITE_I32, 0x7FFFFFFF), ULP_FINITE);
	int32_t neg[] = { -5 };
	assert_int_equal(ulp_bits_at(SITE_I32, neg, 0), -5);
	uint8_t u[] = { 0, 250 };
	assert_int_equal(ulp_bits_at(SITE_U8, u, 1), 250);
	assert_true(ulp_value(SITE_I64, -7) == -7.0);
}

static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(ulp_class_of(SITE_BF16, 0x7FC0), ULP_NAN);
	assert_int_equal(ulp_class_of(SITE_BF16, 0xFFFF), ULP_NAN);
	assert_int_equal(ulp_class_of(SITE_BF16, 0x7F80), ULP_INF);
	assert_int_equal(ulp_class_of(SITE_BF16, 0xFF80), ULP_INF);
	assert_int_equal(ulp_class_of(SITE_BF16, 0x7F7F), ULP_FINITE);
	assert_int_equal(ulp_class_of(SITE_BF16, 0x0001), ULP_FINITE);
	assert_int_equal(ulp_class_of(SITE_F16, 0x7C01), ULP_NAN);
	assert_int_equal(ulp_class_of(SITE_F16, 0xFC00), ULP_INF);
	assert_int_equal(ulp_class_of(SITE_F16, 0x7BFF), ULP_FINITE);
	assert_int_equal(ulp_class_of(SITE_F32, 0x7F800001), ULP_NAN);
	assert_int_equal(ulp_class_of(SITE_F32, 0xFF800000), ULP_INF);
	assert_true(ulp_negative(SITE_BF16, 0x8000));
	assert_false(ulp_negative(SITE_F32, 0x7F800000));
}

static void test_values(void **state)
{
	(void)state;
	assert_true(ulp_value(SITE_BF16, 0x3F80) == 1.0);
	assert_true(ulp_value(SITE_BF16, 0xBFC0) == -1.5);
	assert_true(ulp_value(SITE_BF16, 0x0001) == ldexp(1, -133)); /* the smallest subnormal */
	assert_true(ulp_value(SITE_BF16, 0x7F80) == INFINITY);
	assert_true(isnan(ulp_value(SITE_BF16, 0x7FFF)));
	assert_true(ulp_value(SITE_F16, 0x3C00) == 1.0);
	assert_true(ulp_value(SITE_F16, 0x7BFF) == 65504.0);
	assert_true(ulp_value(SITE_F16, 0x0001) == ldexp(1, -24));
	assert_true(ulp_value(SITE_F32, 0x3F800000) == 1.0);
	assert_true(ulp_value(SITE_F32, 0x00000001) == ldexp(1, -149));
	assert_true(signbit(ulp_value(SITE_F32, 0x80000000)));
	float f = 0.1f;
	uint32_t bits;
	memcpy(&bits, &f, 4);
	assert_true(ulp_value(SITE_F32, bits) == (double)f);
}

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(ulp_bucket(1), 0);
	assert_int_equal(ulp_bucket(2), 1);
	assert_int_equal(ulp_bucket(3), 2);
	assert_int_equal(ulp_bucket(10), 2);
	assert_int_equal(ulp_bucket(11), 3);
	assert_int_equal(ulp_bucket(1000), 3);
	assert_int_equal(ulp_bucket(1001), 4);
	assert_string_equal(ulp_bucket_name(3), "11-1000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_across_zero), cmocka_unit_test(test_neighbours), cmocka_unit_test(test_integers),
		cmocka_unit_test(test_classes),     cmocka_unit_test(test_values),     cmocka_unit_test(test_buckets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
