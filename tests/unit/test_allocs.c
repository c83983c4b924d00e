/*
 * test_allocs.c - a set of allocations freed together (common/allocs.h):
 * each one zeroed and kept, the set marked failed past ALLOCS_MAX, and
 * empty again after allocs_free (ASan's leak check in make sanitize
 * proves every one freed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/allocs.h"

static void test_allocs(void **state)
{
	(void)state;
	struct allocs a = { 0 };
	double *v = allocs_calloc(&a, 4, sizeof *v);
	char (*b)[8] = allocs_calloc(&a, 0, sizeof *b); /* n 0: one element, not NULL */
	assert_non_null(v);
	assert_non_null(b);
	assert_true(v[0] == 0 && v[3] == 0 && b[0][7] == 0);
	assert_int_equal(a.n, 2);
	assert_false(a.failed);
	for (int i = a.n; i < ALLOCS_MAX; i++)
		assert_non_null(allocs_calloc(&a, 1, 1));
	assert_null(allocs_calloc(&a, 1, 1));
	assert_true(a.failed);
	assert_int_equal(a.n, ALLOCS_MAX);
	allocs_free(&a);
	assert_int_equal(a.n, 0);
	assert_false(a.failed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allocs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
