/*
 * test_guard.c - the guard-zone comparison: intact zones, a write just
 * past the end, one just before the start, both, a write deep in a zone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backend/guard.h"

static unsigned char before[GUARD_BYTES], after[GUARD_BYTES];

static void fill(void)
{
	memset(before, GUARD_FILL, sizeof before);
	memset(after, GUARD_FILL, sizeof after);
}

static void test_intact(void **state)
{
	(void)state;
	char why[160] = "untouched";
	fill();
	assert_true(guard_check(before, after, why, sizeof why));
	assert_string_equal(why, "untouched");
}

static void test_after(void **state)
{
	(void)state;
	char why[160];
	fill();
	after[0] = after[1] = 0; /* one bf16 element past the end */
	assert_false(guard_check(before, after, why, sizeof why));
	assert_string_equal(why, "2 of the 4096 guard bytes after its end changed (the first at end+0)");
	fill();
	after[4000] = 7;
	assert_false(guard_check(before, after, why, sizeof why));
	assert_string_equal(why, "1 of the 4096 guard bytes after its end changed (the first at end+4000)");
}

static void test_before(void **state)
{
	(void)state;
	char why[160];
	fill();
	before[GUARD_BYTES - 1] = 0; /* the byte just before the tensor */
	before[GUARD_BYTES - 4] = 0;
	assert_false(guard_check(before, after, why, sizeof why));
	assert_string_equal(why, "2 of the 4096 guard bytes before its start changed (the nearest at start-1)");
	after[9] = 1;
	assert_false(guard_check(before, after, why, sizeof why));
	assert_string_equal(why, "1 of the 4096 guard bytes after its end changed (the first at end+9), and some before its start");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_after),
		cmocka_unit_test(test_before),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
