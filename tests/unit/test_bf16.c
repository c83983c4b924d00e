/*
 * test_bf16.c - bf16_from_float / bf16_to_float against known bit patterns.
 *
 * Expected values are worked out by hand from the IEEE layouts: a float
 * 0xHHHHLLLL rounds to 0xHHHH when LLLL < 0x8000, to 0xHHHH + 1 when
 * LLLL > 0x8000, and on a tie (LLLL == 0x8000) to whichever of the two is
 * even; every NaN becomes 0x7FFF (the GPU's cvt.rn.bf16.f32).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "kernels/common/bf16.h"

static float from_bits(uint32_t b)
{
	float f;
	memcpy(&f, &b, sizeof f);
	return f;
}

static uint32_t to_bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

static void expect_round(uint32_t fbits, bf16_t want)
{
	bf16_t got = bf16_from_float(from_bits(fbits));
	if (got != want)
		print_error("0x%08x -> 0x%04x, want 0x%04x\n", fbits, got, want);
	assert_int_equal(got, want);
}

static void test_exact_values(void **state)
{
	(void)state;
	expect_round(0x3F800000u, 0x3F80); /* 1.0f */
	expect_round(0xC0000000u, 0xC000); /* -2.0f */
	expect_round(0x00000000u, 0x0000); /* +0 */
	expect_round(0x80000000u, 0x8000); /* -0 keeps its sign */
	assert_int_equal(bf16_from_float(1.0f), 0x3F80);
}

static void test_round_nearest_even(void **state)
{
	(void)state;
	expect_round(0x3F807FFFu, 0x3F80); /* below half: down */
	expect_round(0x3F808001u, 0x3F81); /* above half: up */
	expect_round(0x3F808000u, 0x3F80); /* tie, 0x3F80 even: down */
	expect_round(0x3F818000u, 0x3F82); /* tie, 0x3F81 odd: up to 0x3F82 */
	expect_round(0xBF808000u, 0xBF80); /* the same on negatives */
	expect_round(0xBF818000u, 0xBF82);
	expect_round(0x3FFF8000u, 0x4000); /* tie carrying into the exponent */
}

static void test_overflow_and_max(void **state)
{
	(void)state;
	expect_round(0x7F7F7FFFu, 0x7F7F); /* just below the tie: max finite bf16 */
	expect_round(0x7F7F8000u, 0x7F80); /* tie, 0x7F7F odd: up, to +Inf */
	expect_round(0xFF7F8000u, 0xFF80); /* to -Inf */
	expect_round(0x7F7FFFFFu, 0x7F80); /* FLT_MAX rounds to +Inf */
	expect_round(0x7F800000u, 0x7F80); /* +Inf stays */
	expect_round(0xFF800000u, 0xFF80); /* -Inf stays */
	assert_true(isinf(bf16_to_float(0x7F80)) && bf16_to_float(0x7F80) > 0);
}

static void test_nan_canonical(void **state)
{
	(void)state;
	expect_round(0x7FC00000u, 0x7FFF); /* quiet NaN */
	expect_round(0xFFC00001u, 0x7FFF); /* negative NaN, sign dropped */
	expect_round(0x7F800001u, 0x7FFF); /* signalling NaN whose top half looks like Inf */
	expect_round(0x7FFFFFFFu, 0x7FFF); /* would carry out of the sign bit without the NaN rule */
	assert_true(bf16_is_nan(0x7FFF));
	assert_true(bf16_is_nan(0xFFC1));
	assert_false(bf16_is_nan(0x7F80));
	assert_false(bf16_is_nan(0xFF80));
	assert_true(isnan(bf16_to_float(0x7FFF)));
}

static void test_subnormals(void **state)
{
	(void)state;
	expect_round(0x00008000u, 0x0000); /* tie between 0 and the smallest subnormal: even, 0 */
	expect_round(0x00018000u, 0x0002); /* tie between 0x0001 and 0x0002: even, 0x0002 */
	expect_round(0x00010000u, 0x0001); /* exactly the smallest bf16 subnormal, 2^-133 */
	expect_round(0x00008001u, 0x0001); /* above half of it */
	expect_round(0x80008000u, 0x8000); /* negative tie to -0 */
	expect_round(0x007F8000u, 0x0080); /* largest subnormal tie rounds up to the smallest normal */
	assert_true(bf16_to_float(0x0001) == ldexpf(1.0f, -133));
}

static void test_to_float(void **state)
{
	(void)state;
	assert_true(bf16_to_float(0x3F80) == 1.0f);
	assert_true(bf16_to_float(0xC040) == -3.0f);
	assert_true(bf16_to_float(0x4049) == 3.140625f); /* 0x40490000 */
	assert_int_equal(to_bits(bf16_to_float(0x8000)), 0x80000000u);
	assert_int_equal(to_bits(bf16_to_float(0x7F7F)), 0x7F7F0000u);
}

/* Every non-NaN bf16 survives float and back unchanged; every NaN pattern
 * comes back canonical. */
static void test_round_trip_all(void **state)
{
	(void)state;
	for (uint32_t h = 0; h <= 0xFFFFu; h++) {
		bf16_t back = bf16_from_float(bf16_to_float((bf16_t)h));
		bf16_t want = bf16_is_nan((bf16_t)h) ? BF16_CANONICAL_NAN : (bf16_t)h;
		if (back != want)
			fail_msg("0x%04x came back as 0x%04x", h, back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_values),   cmocka_unit_test(test_round_nearest_even),
		cmocka_unit_test(test_overflow_and_max), cmocka_unit_test(test_nan_canonical),
		cmocka_unit_test(test_subnormals),     cmocka_unit_test(test_to_float),
		cmocka_unit_test(test_round_trip_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
