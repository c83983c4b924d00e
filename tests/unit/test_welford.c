/*
 * test_welford.c - the 128-thread Welford emulation of PyTorch's vectorized
 * LayerNorm (kernels/common/welford.c).
 *
 * Hand-computed cases check update and combine; a second, deliberately
 * naive emulation written here (scalar, thread by thread, all 32 lanes of
 * every warp, shuffle-down read from a snapshot, lanes past the end
 * keeping their own state) checks the library's vectorized row functions
 * bit for bit, both of them (the eager kernel's work and the fused
 * kernels'), on rows of every length a qk head can have and on hostile
 * values; a double two-pass computation checks that the statistics are
 * right to float accuracy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "kernels/common/welford.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double uniform01(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) * 0x1p-53;
}

/* Irwin-Hall(12) - 6: mean 0, variance 1. */
static double normal01(void)
{
	double s = 0;
	for (int i = 0; i < 12; i++)
		s += uniform01();
	return s - 6.0;
}

static void fill_normal(bf16_t *row, int64_t n, double mean, double std)
{
	for (int64_t j = 0; j < n; j++)
		row[j] = bf16_from_float((float)(mean + std * normal01()));
}

static bool same_bits(float a, float b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* {3}, then 5, then 7: mean 3 -> 4 -> 5, sigma2 0 -> 2 -> 8 (sum of squared
 * deviations of {3, 5, 7} = 4 + 0 + 4). The third step: r = fl(1/3),
 * 4 + 3 * r = 5.0000000298 rounds to 5; sigma2 = 3 * (7 - 5) + 2 = 8. */
static void test_update_by_hand(void **state)
{
	(void)state;
	struct welford_state w = { 0.f, 0.f, 0.f };
	w = welford_update(w, 3.f);
	assert_true(w.mean == 3.f && w.sigma2 == 0.f && w.count == 1.f);
	w = welford_update(w, 5.f);
	assert_true(w.mean == 4.f && w.sigma2 == 2.f && w.count == 2.f);
	w = welford_update(w, 7.f);
	assert_true(w.mean == 5.f && w.sigma2 == 8.f && w.count == 3.f);
}

/* {3, 5} (mean 4, sigma2 2) with {9, 11} (mean 10, sigma2 2): delta = -6,
 * nA = nB = 0.5, mean = 0.5 * 10 + 0.5 * 4 = 7, sigma2 = 36 * 2 * 0.5 + 4
 * = 40 = (16 + 4 + 4 + 16) for {3, 5, 9, 11}. */
static void test_combine_by_hand(void **state)
{
	(void)state;
	struct welford_state a = { 4.f, 2.f, 2.f }, b = { 10.f, 2.f, 2.f };
	struct welford_state c = welford_combine(a, b);
	assert_true(c.mean == 7.f && c.sigma2 == 40.f && c.count == 4.f);
}

/* Combining with an empty state (count 0, as warps 1-3 for N = 128): with
 * other empty, nA = 0, nB = 1: mean = fma(0, 0, 1 * m) = m, sigma2 =
 * fma(d^2 * 0, 1, 0 + s) = s; with own empty, nA = 1, nB = 0, the same for
 * other. Two empties stay (0, 0, 0). Values chosen with all mantissa bits. */
static void test_combine_with_empty(void **state)
{
	(void)state;
	struct welford_state e = { 0.f, 0.f, 0.f };
	struct welford_state s = { 1.2345678f, 0.987654321f, 37.f };
	struct welford_state r1 = welford_combine(s, e), r2 = welford_combine(e, s);
	struct welford_state r3 = welford_combine(e, e);
	assert_true(same_bits(r1.mean, s.mean) && same_bits(r1.sigma2, s.sigma2) && r1.count == 37.f);
	assert_true(same_bits(r2.mean, s.mean) && same_bits(r2.sigma2, s.sigma2) && r2.count == 37.f);
	assert_true(r3.mean == 0.f && r3.sigma2 == 0.f && r3.count == 0.f);
}

/* The naive emulation: every lane of every warp, each shuffle reading the
 * previous round's states (lanes past 31 read their own). */
static struct welford_state naive_block(const bf16_t *row, int64_t n, float *var)
{
	struct welford_state th[128], snap[128], wd[4];
	for (int t = 0; t < 128; t++) {
		th[t] = (struct welford_state){ 0.f, 0.f, 0.f };
		for (int64_t i = t; i < n / 4; i += 128)
			for (int k = 0; k < 4; k++)
				th[t] = welford_update(th[t], bf16_to_float(row[4 * i + k]));
	}
	for (int off = 16; off > 0; off /= 2) {
		memcpy(snap, th, sizeof th);
		for (int t = 0; t < 128; t++) {
			int lane = t % 32;
			th[t] = welford_combine(snap[t], lane + off < 32 ? snap[t + off] : snap[t]);
		}
	}
	for (int y = 0; y < 4; y++)
		wd[y] = th[32 * y];
	for (int off = 2; off > 0; off /= 2)
		for (int y = 0; y < off; y++)
			wd[y] = welford_combine(wd[y], wd[y + off]);
	*var = wd[0].sigma2 / (float)n;
	return wd[0];
}

/* Both row functions against the naive emulation on the row as it is. */
static void check_row_against_naive(const bf16_t *row, int64_t n, const char *what)
{
	float m, v, fm, fv, nv;
	struct welford_state nw = naive_block(row, n, &nv);
	welford_row(row, n, &m, &v);
	welford_row_fused(row, n, &fm, &fv);
	if (!same_bits(m, nw.mean) || !same_bits(v, nv))
		fail_msg("%s n=%lld: mean %a var %a, naive %a %a", what, (long long)n, m, v, nw.mean, nv);
	if (!same_bits(fm, nw.mean) || !same_bits(fv, nv))
		fail_msg("%s n=%lld: fused mean %a var %a, naive %a %a", what, (long long)n, fm, fv, nw.mean, nv);
}

static void check_against_naive(int64_t n, double mean, double std)
{
	static bf16_t row[65536];
	fill_normal(row, n, mean, std);
	check_row_against_naive(row, n, "normal");
}

static void test_fold_matches_naive_emulation(void **state)
{
	(void)state;
	const int64_t ns[] = { 4, 12, 64, 96, 128, 132, 384, 388, 512, 516, 3072, 4096, 4100, 65536 };
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		check_against_naive(ns[i], 0.0, 1.0);
		check_against_naive(ns[i], 1000.0, 1.0);
		check_against_naive(ns[i], 0.0, 100.0);
	}
	/* every row length up to 1040 (heads of any D, every partial warp and
	 * round), on offset data where the order of operations shows */
	for (int64_t n = 4; n <= 1040; n += 4)
		check_against_naive(n, 3.0, 0.5);
}

/* Hostile rows: NaN, infinities, the largest bf16 (sums overflow),
 * subnormals, negative zeros, constants: the vectorized selects and the
 * empty-warp states must give exactly the naive bits (NaN for NaN). */
static void test_hostile_rows_match_naive(void **state)
{
	(void)state;
	static bf16_t row[4096];
	static const bf16_t special[] = { 0x7FC0, 0xFFC1, 0x7F80, 0xFF80, 0x7F7F, 0xFF7F, 0x0001,
					  0x8003, 0x8000, 0x0000, 0x007F, 0x0080 };
	const int64_t ns[] = { 4, 8, 12, 32, 64, 96, 124, 128, 132, 388, 4096 };
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		const int64_t n = ns[k];
		for (size_t s = 0; s < sizeof special / sizeof special[0]; s++) {
			fill_normal(row, n, 0.0, 1.0);
			row[(int64_t)(s * 7) % n] = special[s];
			check_row_against_naive(row, n, "one special value");
			for (int64_t j = 0; j < n; j++)
				row[j] = special[s];
			check_row_against_naive(row, n, "all special");
		}
		for (int64_t j = 0; j < n; j++) /* -0 and +0 mixed */
			row[j] = (j % 3) ? 0x8000 : 0x0000;
		check_row_against_naive(row, n, "signed zeros");
	}
}

/* An empty warp's tree gives exactly the empty state: combining two
 * (0, 0, 0) states is (+0, +0, 0) at every level, which is why the fused
 * row function may leave those trees out. */
static void test_empty_warp_fold_is_empty(void **state)
{
	(void)state;
	struct welford_state e = { 0.f, 0.f, 0.f }, lane[32];
	for (int l = 0; l < 32; l++)
		lane[l] = e;
	for (int o = 16; o > 0; o /= 2)
		for (int l = 0; l < o; l++)
			lane[l] = welford_combine(lane[l], lane[l + o]);
	assert_true(same_bits(lane[0].mean, 0.f) && same_bits(lane[0].sigma2, 0.f) && lane[0].count == 0.f);
}

/* Float statistics vs a double two-pass computation on the same bf16
 * values: the mean within a few float ulps of the row's scale, the
 * variance within 1e-5 relative. */
static void check_close(int64_t n, double mean, double std)
{
	static bf16_t row[65536];
	fill_normal(row, n, mean, std);
	double s = 0, ss = 0, maxabs = 0;
	for (int64_t j = 0; j < n; j++) {
		s += bf16_to_float(row[j]);
		maxabs = fmax(maxabs, fabs(bf16_to_float(row[j])));
	}
	double dm = s / (double)n;
	for (int64_t j = 0; j < n; j++)
		ss += (bf16_to_float(row[j]) - dm) * (bf16_to_float(row[j]) - dm);
	float m, v;
	welford_row(row, n, &m, &v);
	if (fabs(m - dm) > 8 * 0x1p-24 * maxabs || fabs(v - ss / (double)n) > 1e-5 * (ss / (double)n))
		fail_msg("n=%lld: mean %.9g vs %.9g, var %.9g vs %.9g", (long long)n, m, dm, v, ss / n);
}

static void test_close_to_double(void **state)
{
	(void)state;
	const int64_t ns[] = { 4, 64, 96, 128, 3072, 4096, 65536 };
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		check_close(ns[i], 0.0, 1.0);
		check_close(ns[i], 3.0, 0.25);
		check_close(ns[i], 0.0, 50.0);
	}
}

/* A sequential Welford over the whole row, in element order. */
static void sequential(const bf16_t *row, int64_t n, float *mean, float *var)
{
	struct welford_state w = { 0.f, 0.f, 0.f };
	for (int64_t j = 0; j < n; j++)
		w = welford_update(w, bf16_to_float(row[j]));
	*mean = w.mean;
	*var = w.sigma2 / (float)n;
}

/* The order matters to the last bit: over 64 random rows of 4096, the
 * block result must differ in bits from a sequential Welford, and from the
 * block result of the reversed row, for at least one row each (the
 * variance of float sums of 4096 terms almost never agrees by chance). */
static void test_order_sensitive(void **state)
{
	(void)state;
	static bf16_t row[4096], rev[4096];
	int diff_seq = 0, diff_rev = 0;
	for (int k = 0; k < 64; k++) {
		fill_normal(row, 4096, 0.5, 1.0);
		for (int j = 0; j < 4096; j++)
			rev[j] = row[4095 - j];
		float m, v, sm, sv, rm, rv;
		welford_row(row, 4096, &m, &v);
		sequential(row, 4096, &sm, &sv);
		welford_row(rev, 4096, &rm, &rv);
		diff_seq += !same_bits(m, sm) || !same_bits(v, sv);
		diff_rev += !same_bits(m, rm) || !same_bits(v, rv);
	}
	assert_true(diff_seq > 0);
	assert_true(diff_rev > 0);
}

/* N = 128: 32 vectors, one per lane of warp 0; warps 1-3 have count 0 and
 * their combines return warp 0's state exactly (see the empty-state test),
 * so the block result is warp 0's fold alone. We fold warp 0 here by hand:
 * lane i takes lane i + o for o = 16 .. 1, from lanes that all hold data. */
static void test_n128_only_warp0(void **state)
{
	(void)state;
	bf16_t row[128];
	struct welford_state lane[32];
	fill_normal(row, 128, 0.0, 1.0);
	for (int l = 0; l < 32; l++) {
		lane[l] = (struct welford_state){ 0.f, 0.f, 0.f };
		for (int k = 0; k < 4; k++)
			lane[l] = welford_update(lane[l], bf16_to_float(row[4 * l + k]));
	}
	for (int o = 16; o > 0; o /= 2) {
		struct welford_state snap[32];
		memcpy(snap, lane, sizeof lane);
		for (int l = 0; l < o; l++)
			lane[l] = welford_combine(snap[l], snap[l + o]);
	}
	float m, v;
	welford_row(row, 128, &m, &v);
	assert_true(same_bits(m, lane[0].mean));
	assert_true(same_bits(v, lane[0].sigma2 / 128.f));
	assert_true(lane[0].count == 128.f);
}

/* N = 64 and 96: lanes 16-31 (N = 64) or 24-31 (N = 96) of warp 0 are
 * empty too; the result must still be the naive emulation's and close. */
static void test_partial_warp(void **state)
{
	(void)state;
	check_against_naive(64, 0.0, 1.0);
	check_against_naive(96, 0.0, 1.0);
	check_close(64, 0.0, 1.0);
	check_close(96, 0.0, 1.0);
}

/*
 * Constant rows. When every combine joins equal counts (N = 4096: 128
 * threads of 32 values; N = 96 happens to land on 1000 too), nA = nB = 0.5
 * and the mean stays exact: 1000, var 0. Unequal counts can leave an ulp:
 * N = 12 is three threads of 4 values; lane 0 joins lane 2 (4 + 4, exact),
 * then lane 1 (8 + 4): coef = fl(1/12), nA = fl(1/3), nB = 2 fl(1/3),
 * nB * 7 = 4.66666686 rounds to 4.666666985, fma(fl(1/3), 7, that) =
 * 7.00000039 rounds to 7 + 2^-21. delta is 0 in every combine (all partial
 * means equal before the last), so var stays exactly 0.
 */
static void test_constant_rows(void **state)
{
	(void)state;
	static bf16_t row[4096];
	float m, v;
	for (int j = 0; j < 4096; j++)
		row[j] = bf16_from_float(1000.f);
	welford_row(row, 4096, &m, &v);
	assert_true(m == 1000.f && v == 0.f);
	welford_row(row, 96, &m, &v);
	assert_true(m == 1000.f && v == 0.f);
	for (int j = 0; j < 12; j++)
		row[j] = bf16_from_float(7.f);
	welford_row(row, 12, &m, &v);
	assert_true(m == 7.f + 0x1p-21f);
	assert_true(v == 0.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_update_by_hand),
		cmocka_unit_test(test_combine_by_hand),
		cmocka_unit_test(test_combine_with_empty),
		cmocka_unit_test(test_fold_matches_naive_emulation),
		cmocka_unit_test(test_hostile_rows_match_naive),
		cmocka_unit_test(test_empty_warp_fold_is_empty),
		cmocka_unit_test(test_close_to_double),
		cmocka_unit_test(test_order_sensitive),
		cmocka_unit_test(test_n128_only_warp0),
		cmocka_unit_test(test_partial_warp),
		cmocka_unit_test(test_constant_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
