/*
 * test_plugin_h.c - the conversions include/abbench/plugin.h gives plugin
 * writers: bf16 and f16 from and to float, against known bit patterns
 * (round to nearest even at every kind of boundary, ties, subnormals,
 * overflow to Inf, NaN to 0x7FFF), every 16-bit value through a round
 * trip, and, where the compiler has _Float16, a sweep of float bit
 * patterns against its conversion; and abbench_axis.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "abbench/plugin.h"

static float f(uint32_t bits)
{
	return abbench_bits_f32(bits);
}

static uint32_t bits_of(float x)
{
	uint32_t b;
	memcpy(&b, &x, sizeof b);
	return b;
}

static const struct {
	uint32_t in;
	uint16_t bf16, f16;
} known[] = {
	{ 0x3F800000, 0x3F80, 0x3C00 }, /* 1 */
	{ 0xC0000000, 0xC000, 0xC000 }, /* -2 */
	{ 0x00000000, 0x0000, 0x0000 }, { 0x80000000, 0x8000, 0x8000 }, /* +-0 */
	{ 0x3F808000, 0x3F80, 0x3C04 }, /* bf16: a tie, to the even 0x3F80 */
	{ 0x3F818000, 0x3F82, 0x3C0C }, /* bf16: a tie, to the even 0x3F82 */
	{ 0x3F808001, 0x3F81, 0x3C04 }, /* bf16: past the tie, up */
	{ 0x3F801000, 0x3F80, 0x3C00 }, /* f16: 1 + 2^-11, a tie, to the even 0x3C00 */
	{ 0x3F803000, 0x3F80, 0x3C02 }, /* f16: 1 + 3 * 2^-11, a tie, to the even 0x3C02 */
	{ 0x3FFFF000, 0x4000, 0x4000 }, /* f16: 2 - 2^-12, a tie whose carry reaches the exponent */
	{ 0x477FE000, 0x4780, 0x7BFF }, /* 65504: f16's largest finite */
	{ 0x477FEFFF, 0x4780, 0x7BFF }, /* just under 65520 */
	{ 0x477FF000, 0x4780, 0x7C00 }, /* 65520: f16 rounds to Inf */
	{ 0x7F7FFFFF, 0x7F80, 0x7C00 }, /* float's largest: Inf in both */
	{ 0x7F7F7FFF, 0x7F7F, 0x7C00 },
	{ 0x7F800000, 0x7F80, 0x7C00 }, { 0xFF800000, 0xFF80, 0xFC00 }, /* +-Inf */
	{ 0x7FC00000, 0x7FFF, 0x7FFF }, { 0xFFC00001, 0x7FFF, 0x7FFF }, /* NaN, negative NaN with payload */
	{ 0x7F800001, 0x7FFF, 0x7FFF }, /* a signalling NaN: never Inf */
	{ 0x38800000, 0x3880, 0x0400 }, /* 2^-14: f16's smallest normal */
	{ 0x387FC000, 0x3880, 0x03FF }, /* f16's largest subnormal; bf16 rounds up */
	{ 0x33800000, 0x3380, 0x0001 }, /* 2^-24: f16's smallest subnormal */
	{ 0x33000000, 0x3300, 0x0000 }, /* 2^-25: a tie, to zero */
	{ 0x33000001, 0x3300, 0x0001 }, /* past it: up */
	{ 0x33C00000, 0x33C0, 0x0002 }, /* 1.5 * 2^-24: a tie, to the even 2 */
	{ 0x34200000, 0x3420, 0x0002 }, /* 2.5 * 2^-24: a tie, to the even 2 */
	{ 0xB3A00000, 0xB3A0, 0x8001 }, /* -1.25 * 2^-24 */
	{ 0x00000001, 0x0000, 0x0000 }, /* float subnormals */
	{ 0x00008000, 0x0000, 0x0000 }, { 0x00018000, 0x0002, 0x0000 },
};

static void test_known_patterns(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		uint16_t b = abbench_f32_to_bf16(f(known[i].in)), h = abbench_f32_to_f16(f(known[i].in));
		if (b != known[i].bf16 || h != known[i].f16)
			fail_msg("0x%08X: bf16 0x%04X (want 0x%04X), f16 0x%04X (want 0x%04X)", (unsigned)known[i].in,
				 b, known[i].bf16, h, known[i].f16);
	}
	assert_int_equal(bits_of(abbench_f16_to_f32(0x0001)), 0x33800000);
	assert_int_equal(bits_of(abbench_f16_to_f32(0x03FF)), 0x387FC000);
	assert_int_equal(bits_of(abbench_f16_to_f32(0x0400)), 0x38800000);
	assert_int_equal(bits_of(abbench_f16_to_f32(0x7BFF)), 0x477FE000);
	assert_int_equal(bits_of(abbench_f16_to_f32(0xFC00)), 0xFF800000);
	assert_int_equal(bits_of(abbench_f16_to_f32(0x8000)), 0x80000000);
	assert_true(abbench_f16_to_f32(0x7E00) != abbench_f16_to_f32(0x7E00)); /* NaN */
	assert_int_equal(bits_of(abbench_bf16_to_f32(0x0001)), 0x00010000);
	assert_int_equal(bits_of(abbench_bf16_to_f32(0xC000)), 0xC0000000);
}

/* Widening is exact, so every value comes back; every NaN becomes 0x7FFF. */
static void test_round_trips(void **state)
{
	(void)state;
	for (uint32_t v = 0; v <= 0xFFFF; v++) {
		uint16_t h = (uint16_t)v;
		int bf_nan = (h & 0x7FFF) > 0x7F80, f16_nan = (h & 0x7FFF) > 0x7C00;
		uint16_t b = abbench_f32_to_bf16(abbench_bf16_to_f32(h)), g = abbench_f32_to_f16(abbench_f16_to_f32(h));
		if (b != (bf_nan ? 0x7FFF : h) || g != (f16_nan ? 0x7FFF : h))
			fail_msg("0x%04X: bf16 back as 0x%04X, f16 back as 0x%04X", (unsigned)h, b, g);
	}
}

/* Against the compiler's own float -> _Float16 (libgcc's, round to
 * nearest even) over a sweep of float bit patterns, NaNs aside. */
static void test_against_float16(void **state)
{
	(void)state;
#ifdef __FLT16_MAX__
	for (uint64_t v = 0; v <= 0xFFFFFFFFull; v += 4093) {
		float x = f((uint32_t)v);
		if (x != x)
			continue;
		_Float16 want = (_Float16)x;
		uint16_t w;
		memcpy(&w, &want, sizeof w);
		uint16_t got = abbench_f32_to_f16(x);
		if (got != w)
			fail_msg("0x%08X: 0x%04X, _Float16 says 0x%04X", (unsigned)v, got, w);
	}
#else
	skip();
#endif
}

static void test_axis(void **state)
{
	(void)state;
	struct abbench_call call = { .rank = 3, .shape = { 2, 16, 256 }, .axes = { "B", "T", "W" } };
	assert_true(abbench_axis(&call, "T") == 16);
	assert_true(abbench_axis(&call, "W") == 256);
	assert_true(abbench_axis(&call, "H") == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_patterns),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_against_float16),
		cmocka_unit_test(test_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
