/*
 * test_inputs.c - the seeded generator, bf16 rounding and the fill patterns.
 *
 * Golden values come from an independent Python script run on the
 * development machine: splitmix64, FNV-1a 64 and xoshiro256** written from
 * their published definitions with Python integers masked to 64 bits, the
 * key derived as inputs.h documents, uniforms and Irwin-Hall normals with
 * Python floats (IEEE doubles, same order of additions), and bf16 rounding
 * done exactly on fractions.Fraction (find the binade, divide by the
 * quantum 2^(max(e,-126)-7), round half to even, re-encode) rather than by
 * bit manipulation. Its output:
 *   seed 42, "ln_modulate_img", tensor 0:
 *     raw     0xffc88bd8c49510cf 0xec58a965ef8d10bf 0x284b16b3b3caac08 0xe154c973fa896f5c
 *     uniform 0.9991538433283333
 *     normals 0.4178688788336862 -0.5784138853953023
 *     normal(0,1) bf16: 3ed6 bf14 be80 bf92 bf49 3f78 bfa9 3ec9
 *   seed 42, "ln_modulate_img", tensor 3, WEIGHT: 3f7e 3f67 3f41 3f54
 *   seed 7, "qk", tensor 1, uniform(-2, 3): 3ede bfac bfcf 3f94
 *   seed 0, "", tensor -1, raw: 0x6f8441468485c51f 0x9d0994b251eee3c0
 *
 * The fills of any dtype (declared sites): bf16 through inputs_fill gives
 * the very bytes of the activation fill for every distribution; f16
 * rounding at its boundaries, and straight from the double (a value a
 * float would round to a tie first); f32 as C's conversion of the same
 * doubles; randint within its bounds and over all of them; integer
 * constants; special's f16 and f32 patterns.
 *
 * test_chunked_same: inputs_fill_k on 2, 3, 7 and 16 threads and by its
 * own choice (chunks from the stream jumped ahead) against a serial loop
 * written here from inputs.h's derivation, or for special against one
 * chunk (the serial fill): the same bytes and the same final stream, at
 * 0, 1, 5, 1000 and 2^20 + 7 elements, several seeds, every generator.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/inputs.h"

static void test_golden_stream(void **state)
{
	struct inputs_rng r;
	(void)state;
	inputs_rng_seed(&r, 42, "ln_modulate_img", 0);
	assert_true(inputs_rng_next(&r) == 0xffc88bd8c49510cfull);
	assert_true(inputs_rng_next(&r) == 0xec58a965ef8d10bfull);
	assert_true(inputs_rng_next(&r) == 0x284b16b3b3caac08ull);
	assert_true(inputs_rng_next(&r) == 0xe154c973fa896f5cull);
	inputs_rng_seed(&r, 42, "ln_modulate_img", 0);
	assert_true(inputs_uniform(&r) == 0.9991538433283333);
	inputs_rng_seed(&r, 42, "ln_modulate_img", 0);
	assert_true(inputs_normal(&r) == 0.4178688788336862);
	assert_true(inputs_normal(&r) == -0.5784138853953023);
	inputs_rng_seed(&r, 0, "", -1);
	assert_true(inputs_rng_next(&r) == 0x6f8441468485c51full);
	assert_true(inputs_rng_next(&r) == 0x9d0994b251eee3c0ull);
}

static void test_golden_fills(void **state)
{
	static const bf16_t act[8] = { 0x3ed6, 0xbf14, 0xbe80, 0xbf92, 0xbf49, 0x3f78, 0xbfa9, 0x3ec9 };
	static const bf16_t weight[4] = { 0x3f7e, 0x3f67, 0x3f41, 0x3f54 };
	static const bf16_t unif[4] = { 0x3ede, 0xbfac, 0xbfcf, 0x3f94 };
	struct scenario_input normal = { .dist = SCENARIO_DIST_NORMAL, .mean = 0, .std = 1 };
	struct scenario_input uniform = { .dist = SCENARIO_DIST_UNIFORM, .low = -2, .high = 3 };
	struct inputs_rng r;
	bf16_t buf[8];
	(void)state;

	inputs_rng_seed(&r, 42, "ln_modulate_img", 0);
	inputs_fill_activation(buf, 8, 8, &normal, &r);
	assert_memory_equal(buf, act, sizeof act);
	inputs_rng_seed(&r, 42, "ln_modulate_img", 3);
	inputs_fill_param(buf, 4, SITE_PARAM_WEIGHT, &r);
	assert_memory_equal(buf, weight, sizeof weight);
	inputs_rng_seed(&r, 7, "qk", 1);
	inputs_fill_activation(buf, 4, 4, &uniform, &r);
	assert_memory_equal(buf, unif, sizeof unif);
}

static void test_bf16_from_double(void **state)
{
	(void)state;
	/* exact ties between neighbours: to the even one */
	assert_int_equal(inputs_bf16_from_double(1 + 0x1p-8), 0x3f80);
	assert_int_equal(inputs_bf16_from_double(1 + 3 * 0x1p-8), 0x3f82);
	/* just above a tie: up. Through float this would double-round to the
	 * tie (1 + 2^-8) and then down to 0x3f80. */
	assert_int_equal(inputs_bf16_from_double(1 + 0x1p-8 + 0x1p-40), 0x3f81);
	assert_int_equal(bf16_from_float((float)(1 + 0x1p-8 + 0x1p-40)), 0x3f80);
	/* subnormal ties and rounding */
	assert_int_equal(inputs_bf16_from_double(0x1p-134), 0x0000);
	assert_int_equal(inputs_bf16_from_double(3 * 0x1p-134), 0x0002);
	assert_int_equal(inputs_bf16_from_double(0x1p-134 + 0x1p-160), 0x0001);
	assert_int_equal(inputs_bf16_from_double(-0x1p-133), 0x8001);
	assert_int_equal(inputs_bf16_from_double(0x1p-126 - 0x1p-140), 0x0080); /* rounds up to the smallest normal */
	/* overflow: the tie above max finite goes to Inf (0x7f7f is odd) */
	assert_int_equal(inputs_bf16_from_double(0x1.ffp127), 0x7f80);
	assert_int_equal(inputs_bf16_from_double(0x1.ffp127 * (1 - 0x1p-50)), 0x7f7f);
	assert_int_equal(inputs_bf16_from_double(-1e300), 0xff80);
	assert_int_equal(inputs_bf16_from_double(-INFINITY), 0xff80);
	assert_int_equal(inputs_bf16_from_double(NAN), 0x7fff);
	assert_int_equal(inputs_bf16_from_double(-NAN), 0x7fff);
	/* ordinary values (python Fraction rounding: 0.1 -> 3dcd, -3.3e38 -> ff78) */
	assert_int_equal(inputs_bf16_from_double(-1.5), 0xbfc0);
	assert_int_equal(inputs_bf16_from_double(0.1), 0x3dcd);
	assert_int_equal(inputs_bf16_from_double(-3.3e38), 0xff78);
	assert_int_equal(inputs_bf16_from_double(1e-300), 0x0000);
	assert_int_equal(inputs_bf16_from_double(-0.0), 0x8000);
	assert_int_equal(inputs_bf16_from_double(5e-324), 0x0000);
}

static void test_bf16_agrees_with_float_path(void **state)
{
	/* For doubles that are exactly floats there is one rounding either way,
	 * so the result must equal bf16.h's float rounding. */
	struct inputs_rng r;
	(void)state;
	inputs_rng_seed(&r, 1, "agree", 0);
	for (int i = 0; i < 100000; i++) {
		uint32_t bits = (uint32_t)inputs_rng_next(&r);
		float f;
		memcpy(&f, &bits, sizeof f);
		if (isnan(f))
			continue;
		if (inputs_bf16_from_double(f) != bf16_from_float(f))
			fail_msg("bits %08x: %04x vs %04x", bits, inputs_bf16_from_double(f), bf16_from_float(f));
	}
}

static void test_same_bytes_twice(void **state)
{
	struct scenario_input sp = { .dist = SCENARIO_DIST_SPECIAL, .mean = 0.5, .std = 2 };
	bf16_t *a = malloc(4096 * sizeof *a), *b = malloc(4096 * sizeof *b);
	struct inputs_rng r;
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	inputs_rng_seed(&r, 1234, "case", 2);
	inputs_fill_activation(a, 4096, 128, &sp, &r);
	inputs_rng_seed(&r, 1234, "case", 2);
	inputs_fill_activation(b, 4096, 128, &sp, &r);
	assert_memory_equal(a, b, 4096 * sizeof *a);
	free(a);
	free(b);
}

static uint64_t first(uint64_t seed, const char *name, int idx)
{
	struct inputs_rng r;
	inputs_rng_seed(&r, seed, name, idx);
	return inputs_rng_next(&r);
}

static void test_streams_differ(void **state)
{
	(void)state;
	uint64_t base = first(42, "img", 0);
	assert_true(base != first(42, "txt", 0));
	assert_true(base != first(42, "img", 1));
	assert_true(base != first(43, "img", 0));
	assert_true(first(42, "img", 1) != first(42, "txt", 1));
	assert_true(base == first(42, "img", 0));
}

static void test_normal_moments(void **state)
{
	/* 1e5 Irwin-Hall(12)-6 deviates: mean 0 (sd of the mean 0.0032), variance
	 * 1 (sd of the sample variance sqrt((2.9 - 1) / 1e5) = 0.0044, the
	 * distribution's fourth moment being 3 - 1.2/12); bounds at ~6 sd. */
	struct inputs_rng r;
	double sum = 0, ss = 0, lo = 0, hi = 0;
	const int n = 100000;
	(void)state;
	inputs_rng_seed(&r, 99, "moments", 0);
	for (int i = 0; i < n; i++) {
		double z = inputs_normal(&r);
		sum += z;
		ss += z * z;
		lo = fmin(lo, z);
		hi = fmax(hi, z);
	}
	double mean = sum / n, var = (ss - sum * mean) / (n - 1);
	assert_true(fabs(mean) < 0.02);
	assert_true(fabs(var - 1) < 0.03);
	assert_true(lo >= -6 && hi <= 6 && lo < -3.5 && hi > 3.5);
}

static void test_uniform_constant_none(void **state)
{
	struct scenario_input u = { .dist = SCENARIO_DIST_UNIFORM, .low = 2, .high = 4 };
	struct scenario_input c = { .dist = SCENARIO_DIST_CONSTANT, .value = -0.75 };
	bf16_t buf[1000];
	struct inputs_rng r, untouched;
	(void)state;
	inputs_rng_seed(&r, 5, "u", 0);
	inputs_fill_activation(buf, 1000, 100, &u, &r);
	for (int i = 0; i < 1000; i++) {
		float v = bf16_to_float(buf[i]);
		assert_true(v >= 2 && v <= 4); /* 4 itself only by rounding */
	}
	untouched = r;
	inputs_fill_activation(buf, 1000, 100, &c, &r);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(buf[i], 0xbf40);
	inputs_fill_param(buf, 10, SITE_PARAM_NONE, &r);
	for (int i = 0; i < 10; i++)
		assert_int_equal(buf[i], 0);
	/* constant and none draw nothing */
	assert_memory_equal(&r, &untouched, sizeof r);
}

static void test_special_pattern(void **state)
{
	static const bf16_t special[5] = { 0x7fff, 0x7f80, 0xff80, 0x7f7f, 0xff7f };
	struct scenario_input sp = { .dist = SCENARIO_DIST_SPECIAL, .mean = 0, .std = 1 };
	struct scenario_input nm = { .dist = SCENARIO_DIST_NORMAL, .mean = 0, .std = 1 };
	enum { L = 64, ROWS = 20, N = L * ROWS + 10 };
	bf16_t s[N], plain[N];
	struct inputs_rng r;
	(void)state;
	inputs_rng_seed(&r, 3, "special", 0);
	inputs_fill_activation(s, N, L, &sp, &r);
	inputs_rng_seed(&r, 3, "special", 0);
	inputs_fill_activation(plain, N, L, &nm, &r);
	for (int row = 0; row < ROWS; row++) {
		const bf16_t *x = s + row * L;
		int sp_pos = (row * 7 + 1) % L, p1 = (row * 3 + 2) % L, p2 = (row * 11 + 5) % L,
		    p3 = (row * 13 + 3) % L;
		assert_int_equal(x[sp_pos], special[row % 5]);
		if (p1 != sp_pos && p1 != p2 && p1 != p3)
			assert_int_equal(x[p1], 0x0001);
		if (p2 != sp_pos && p2 != p3)
			assert_int_equal(x[p2], 0x8003);
		if (p3 != sp_pos)
			assert_int_equal(x[p3], 0x007f);
		for (int j = 0; j < L; j++)
			if (j != sp_pos && j != p1 && j != p2 && j != p3)
				assert_int_equal(x[j], plain[row * L + j]);
	}
	/* row 15: (15*7+1) % 64 == (15*11+5) % 64 == 42, the special (NaN) wins */
	assert_int_equal(s[15 * L + 42], 0x7fff);
	/* row 0 by hand: NaN at 1, 0x0001 at 2, 0x8003 at 5, 0x007f at 3 */
	assert_int_equal(s[1], 0x7fff);
	assert_int_equal(s[2], 0x0001);
	assert_int_equal(s[5], 0x8003);
	assert_int_equal(s[3], 0x007f);
	/* the trailing partial row keeps its normal data */
	assert_memory_equal(s + ROWS * L, plain + ROWS * L, 10 * sizeof s[0]);
}

/* inputs_fill on bf16 is the activation fill, byte for byte, for every
 * distribution (a built-in site's inputs did not move). */
static void test_fill_bf16_is_activation_fill(void **state)
{
	static const struct scenario_input dists[] = {
		{ .dist = SCENARIO_DIST_NORMAL, .mean = 0.5, .std = 2 },
		{ .dist = SCENARIO_DIST_UNIFORM, .low = -3, .high = 7 },
		{ .dist = SCENARIO_DIST_CONSTANT, .value = 1e5 },
		{ .dist = SCENARIO_DIST_SPECIAL, .mean = 0, .std = 1 },
	};
	enum { L = 48, N = L * 7 + 5 };
	(void)state;
	for (size_t k = 0; k < sizeof dists / sizeof dists[0]; k++) {
		bf16_t a[N], b[N];
		struct inputs_rng r;
		struct scenario_gen g = scenario_input_gen(&dists[k]);
		inputs_rng_seed(&r, 11, "same", 2);
		inputs_fill_activation(a, N, L, &dists[k], &r);
		inputs_rng_seed(&r, 11, "same", 2);
		inputs_fill(b, SITE_BF16, N, L, &g, &r);
		assert_memory_equal(a, b, sizeof a);
	}
}

static void test_f16_from_double(void **state)
{
	static const struct {
		double v;
		uint16_t want;
	} cases[] = {
		{ 1.0, 0x3C00 },
		{ -2.0, 0xC000 },
		{ 65504.0, 0x7BFF },
		{ 65519.99, 0x7BFF },
		{ 65520.0, 0x7C00 },                       /* the tie past the largest finite: to Inf */
		{ 1e300, 0x7C00 },
		{ 0x1p-24, 0x0001 },                       /* the smallest subnormal */
		{ 0x1p-25, 0x0000 },                       /* half of it: a tie, to zero */
		{ 0x1.8p-25, 0x0001 },
		{ 0x1p-14, 0x0400 },                       /* the smallest normal */
		{ 1.0 + 0x1p-11, 0x3C00 },                 /* a tie, to even */
		{ 1.0 + 0x3p-11, 0x3C02 },                 /* a tie, to even (up) */
		{ 1.0 + 0x1p-11 + 0x1p-40, 0x3C01 },       /* past the tie: a float would have made it one */
		{ 1.0 / 3.0, 0x3555 },
		{ -0.0, 0x8000 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (inputs_f16_from_double(cases[i].v) != cases[i].want)
			fail_msg("%a: 0x%04X, want 0x%04X", cases[i].v, inputs_f16_from_double(cases[i].v), cases[i].want);
	assert_int_equal(inputs_f16_from_double(NAN), 0x7FFF);
	assert_int_equal(inputs_f16_from_double(-INFINITY), 0xFC00);
}

/* f32 holds C's conversion of the doubles the bf16 fill rounds. */
static void test_fill_f32(void **state)
{
	struct scenario_gen g = { .kind = SCENARIO_GEN_NORMAL, .a = 1.5, .b = 0.25 };
	float got[64];
	struct inputs_rng r, q;
	(void)state;
	inputs_rng_seed(&r, 5, "f32", 1);
	inputs_fill(got, SITE_F32, 64, 64, &g, &r);
	inputs_rng_seed(&q, 5, "f32", 1);
	for (int i = 0; i < 64; i++)
		assert_true(got[i] == (float)(1.5 + 0.25 * inputs_normal(&q)));
}

static void test_randint(void **state)
{
	struct scenario_gen g = { .kind = SCENARIO_GEN_RANDINT, .lo = -3, .hi = 5 };
	enum { N = 4000 };
	int32_t v[N];
	uint8_t u[N];
	int64_t w[N];
	int seen[8] = { 0 };
	struct inputs_rng r;
	(void)state;
	inputs_rng_seed(&r, 9, "idx", 0);
	inputs_fill(v, SITE_I32, N, 1, &g, &r);
	for (int i = 0; i < N; i++) {
		assert_true(v[i] >= -3 && v[i] < 5);
		seen[v[i] + 3]++;
	}
	for (int k = 0; k < 8; k++)
		assert_true(seen[k] > N / 16); /* every value drawn, about N / 8 times */
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_RANDINT, .lo = 250, .hi = 256 };
	inputs_fill(u, SITE_U8, N, 1, &g, &r);
	for (int i = 0; i < N; i++)
		assert_true(u[i] >= 250);
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_RANDINT, .lo = (int64_t)1 << 40, .hi = ((int64_t)1 << 40) + 1 };
	inputs_fill(w, SITE_I64, N, 1, &g, &r);
	for (int i = 0; i < N; i++)
		assert_true(w[i] == (int64_t)1 << 40);
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_CONSTANT, .a = -7, .lo = -7 }; /* an integer's: lo */
	inputs_fill(v, SITE_I32, N, 1, &g, &r);
	assert_true(v[0] == -7 && v[N - 1] == -7);
}

/* randint spans past 2^63 on i64 and constants no double holds (issue
 * 31 row 5): every value within its bounds, both signs drawn over the
 * whole range, INT64_MAX stored as itself. Before: randint(-5, INT64_MAX)
 * overflowed (UBSan: signed overflow) and drew values below -5,
 * constant(INT64_MAX) went through a double and stored INT64_MIN. */
static void test_randint_wide(void **state)
{
	enum { N = 4000 };
	static int64_t w[N];
	struct inputs_rng r;
	(void)state;
	inputs_rng_seed(&r, 3, "wide", 0);
	struct scenario_gen g = { .kind = SCENARIO_GEN_RANDINT, .lo = INT64_MIN, .hi = INT64_MAX };
	inputs_fill(w, SITE_I64, N, 1, &g, &r);
	int neg = 0, pos = 0;
	for (int i = 0; i < N; i++) {
		assert_true(w[i] < INT64_MAX);
		neg += w[i] < 0;
		pos += w[i] > 0;
	}
	assert_true(neg > N / 3 && pos > N / 3);
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_RANDINT, .lo = -5, .hi = INT64_MAX };
	inputs_fill(w, SITE_I64, N, 1, &g, &r);
	pos = 0;
	for (int i = 0; i < N; i++) {
		assert_true(w[i] >= -5 && w[i] < INT64_MAX);
		pos += w[i] > ((int64_t)1 << 61);
	}
	assert_true(pos > N / 2); /* spread over the range, not stuck near -5 */
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_RANDINT, .lo = INT64_MAX - 1, .hi = INT64_MAX };
	inputs_fill(w, SITE_I64, N, 1, &g, &r);
	assert_true(w[0] == INT64_MAX - 1 && w[N - 1] == INT64_MAX - 1);
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_CONSTANT, .a = 9223372036854775807.0, .lo = INT64_MAX };
	inputs_fill(w, SITE_I64, N, 1, &g, &r);
	assert_true(w[0] == INT64_MAX && w[N - 1] == INT64_MAX);
	g = (struct scenario_gen){ .kind = SCENARIO_GEN_CONSTANT, .a = -9223372036854775808.0, .lo = INT64_MIN };
	inputs_fill(w, SITE_I64, N, 1, &g, &r);
	assert_true(w[0] == INT64_MIN && w[N - 1] == INT64_MIN);
}

/* special in f16 and f32: each format's patterns at bf16's positions. */
static void test_special_other_dtypes(void **state)
{
	struct scenario_gen g = { .kind = SCENARIO_GEN_SPECIAL, .a = 0, .b = 1 };
	enum { L = 32, N = 5 * L };
	uint16_t h[N];
	uint32_t f[N];
	struct inputs_rng r;
	(void)state;
	inputs_rng_seed(&r, 1, "sp", 0);
	inputs_fill(h, SITE_F16, N, L, &g, &r);
	inputs_rng_seed(&r, 1, "sp", 0);
	inputs_fill(f, SITE_F32, N, L, &g, &r);
	/* row 0: NaN at 1, subnormals at 2, 5, 3; row 1: +Inf at 8; row 3: +max at 22; row 4: -max at 29 */
	assert_int_equal(h[1], 0x7FFF);
	assert_int_equal(h[2], 0x0001);
	assert_int_equal(h[5], 0x8003);
	assert_int_equal(h[3], 0x03FF);
	assert_int_equal(h[L + 8], 0x7C00);
	assert_int_equal(h[3 * L + 22], 0x7BFF);
	assert_int_equal(h[4 * L + 29], 0xFBFF);
	assert_true(f[1] == 0x7FFFFFFFu && f[2] == 1u && f[5] == 0x80000003u && f[3] == 0x007FFFFFu);
	assert_true(f[L + 8] == 0x7F800000u && f[2 * L + 15] == 0xFF800000u && f[3 * L + 22] == 0x7F7FFFFFu);
}

/* inputs.h's derivation, element after element, for the generators that
 * draw (special excepted: its injections are inputs_fill's own). */
static void serial_fill(void *dst, enum site_dtype dt, int64_t n, const struct scenario_gen *g, struct inputs_rng *r)
{
	for (int64_t i = 0; i < n; i++) {
		double v = g->kind == SCENARIO_GEN_NORMAL    ? g->a + g->b * inputs_normal(r)
			   : g->kind == SCENARIO_GEN_UNIFORM ? g->a + (g->b - g->a) * inputs_uniform(r)
			   : g->kind == SCENARIO_GEN_RANDINT ? (double)(g->lo + (int64_t)(inputs_uniform(r) * (double)(g->hi - g->lo)))
							     : g->a;
		if (dt == SITE_BF16)
			((uint16_t *)dst)[i] = inputs_bf16_from_double(v);
		else if (dt == SITE_F32)
			((float *)dst)[i] = (float)v;
		else
			((int32_t *)dst)[i] = (int32_t)v;
	}
}

static void check_chunked(enum site_dtype dt, int64_t n, const struct scenario_gen *g, uint64_t seed)
{
	static const int ks[] = { 2, 3, 7, 16, 0 };
	size_t bytes = (size_t)(n ? n : 1) * 4;
	unsigned char *want = malloc(bytes), *got = malloc(bytes);
	struct inputs_rng r0, rw, rg;
	assert_true(want && got);
	inputs_rng_seed(&r0, seed, "chunked", 2);
	rw = r0;
	if (g->kind == SCENARIO_GEN_SPECIAL)
		inputs_fill_k(want, dt, n, 64, g, &rw, 1);
	else
		serial_fill(want, dt, n, g, &rw);
	for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
		memset(got, 0xA5, bytes);
		rg = r0;
		inputs_fill_k(got, dt, n, 64, g, &rg, ks[j]);
		if (memcmp(want, got, (size_t)n * site_dtype_size(dt)) || memcmp(&rw, &rg, sizeof rw))
			fail_msg("gen %d dtype %d n %lld seed %llu k %d: chunked fill differs from the serial one", (int)g->kind,
				 (int)dt, (long long)n, (unsigned long long)seed, ks[j]);
	}
	free(want);
	free(got);
}

static void test_chunked_same(void **state)
{
	(void)state;
	const struct scenario_gen normal = { .kind = SCENARIO_GEN_NORMAL, .a = 0.5, .b = 2.0 };
	const struct scenario_gen uniform = { .kind = SCENARIO_GEN_UNIFORM, .a = -100.0, .b = 100.0 };
	const struct scenario_gen special = { .kind = SCENARIO_GEN_SPECIAL, .a = 0.0, .b = 1.0 };
	const struct scenario_gen randint = { .kind = SCENARIO_GEN_RANDINT, .lo = -3, .hi = 1000 };
	const struct scenario_gen constant = { .kind = SCENARIO_GEN_CONSTANT, .a = 1000.0 };
	static const int64_t ns[] = { 0, 1, 5, 1000 };
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		for (uint64_t seed = 0; seed < 3; seed++) {
			check_chunked(SITE_BF16, ns[i], &normal, seed);
			check_chunked(SITE_BF16, ns[i], &uniform, seed);
			check_chunked(SITE_BF16, ns[i], &special, seed);
			check_chunked(SITE_F32, ns[i], &normal, seed);
			check_chunked(SITE_F16, ns[i], &special, seed);
			check_chunked(SITE_I32, ns[i], &randint, seed);
			check_chunked(SITE_BF16, ns[i], &constant, seed);
		}
	const int64_t big = (1 << 20) + 7;
	check_chunked(SITE_BF16, big, &normal, 42);
	check_chunked(SITE_BF16, big, &special, 7);
	check_chunked(SITE_F32, big, &uniform, 3);
	check_chunked(SITE_I32, big, &randint, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_bf16_is_activation_fill),
		cmocka_unit_test(test_f16_from_double),
		cmocka_unit_test(test_fill_f32),
		cmocka_unit_test(test_randint),
		cmocka_unit_test(test_randint_wide),
		cmocka_unit_test(test_special_other_dtypes),
		cmocka_unit_test(test_golden_stream),
		cmocka_unit_test(test_golden_fills),
		cmocka_unit_test(test_bf16_from_double),
		cmocka_unit_test(test_bf16_agrees_with_float_path),
		cmocka_unit_test(test_same_bytes_twice),
		cmocka_unit_test(test_streams_differ),
		cmocka_unit_test(test_normal_moments),
		cmocka_unit_test(test_uniform_constant_none),
		cmocka_unit_test(test_special_pattern),
		cmocka_unit_test(test_chunked_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
