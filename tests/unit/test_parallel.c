/*
 * test_parallel.c - par_for and its split: every index in exactly one
 * part, parts contiguous and in order, for n that k does not divide, n
 * smaller than k, n = 0 and k = 1; par_threads' small-job rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/parallel.h"

struct mark_ctx {
	unsigned char *hits;
	int64_t lo[PAR_THREADS_MAX], hi[PAR_THREADS_MAX];
};

static void mark(void *ctx, int64_t lo, int64_t hi, int part)
{
	struct mark_ctx *c = ctx;
	c->lo[part] = lo;
	c->hi[part] = hi;
	for (int64_t i = lo; i < hi; i++)
		c->hits[i]++;
}

static void test_cover(void **state)
{
	(void)state;
	static const int64_t ns[] = { 0, 1, 2, 3, 15, 16, 17, 1000, 100003 };
	for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
		for (int k = 1; k <= PAR_THREADS_MAX; k++) {
			int64_t n = ns[a];
			struct mark_ctx c;
			c.hits = calloc((size_t)n + 1, 1);
			assert_non_null(c.hits);
			par_for(n, k, mark, &c);
			for (int64_t i = 0; i < n; i++)
				assert_int_equal(c.hits[i], 1);
			assert_int_equal(c.lo[0], 0);
			assert_int_equal(c.hi[k - 1], n);
			for (int p = 0; p < k; p++) {
				assert_int_equal(c.lo[p], par_part_lo(n, k, p));
				assert_true(c.hi[p] >= c.lo[p]);
				if (p)
					assert_int_equal(c.lo[p], c.hi[p - 1]);
			}
			free(c.hits);
		}
}

/* The split of huge ranges does not overflow: part bounds stay in order
 * and end at n. */
static void test_split_large(void **state)
{
	(void)state;
	int64_t n = INT64_MAX / 3;
	for (int k = 1; k <= PAR_THREADS_MAX; k++) {
		assert_int_equal(par_part_lo(n, k, k), n);
		for (int p = 0; p < k; p++)
			assert_true(par_part_lo(n, k, p) <= par_part_lo(n, k, p + 1));
	}
}

static void test_threads(void **state)
{
	(void)state;
	assert_int_equal(par_threads(1000, 999, 1000), 1); /* small job */
	assert_int_equal(par_threads(1, 1 << 30, 1000), 1); /* one index */
	int k = par_threads(1 << 20, 1 << 30, 1000);
	assert_true(k >= 1 && k <= PAR_THREADS_MAX);
	assert_true(par_threads(2, 1 << 30, 1000) <= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cover),
		cmocka_unit_test(test_split_large),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
