/*
 * test_shard.c - the round-robin split (run/shard.c): parsing I/N, every
 * case in exactly one shard, sizes within one, and run set ids; and
 * results_run_same, which `abbench merge` trusts to tell a run it already
 * holds from one that reuses its UUID.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixtures.h"
#include "run/shard.h"

static void test_parse(void **state)
{
	(void)state;
	struct shard s;
	struct ab_diag d;
	assert_int_equal(shard_parse("2/3", &s, &d), AB_OK);
	assert_int_equal(s.index, 2);
	assert_int_equal(s.count, 3);
	assert_int_equal(shard_parse("1/1", &s, &d), AB_OK);
	static const char *const bad[] = { "0/3", "4/3", "3", "/3", "3/", "a/b", "1/0", "-1/2", "1/4097", "1/2/3", "" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(shard_parse(bad[i], &s, &d), AB_ERR_USAGE);
		assert_non_null(strstr(d.msg, "--shard must be I/N"));
	}
}

static void test_split(void **state)
{
	(void)state;
	for (int n = 1; n <= 9; n++)
		for (int cases = 0; cases <= 23; cases++) {
			int lo = cases, hi = 0;
			for (int i = 1; i <= n; i++) {
				struct shard s = { i, n };
				int mine = 0;
				for (int k = 0; k < cases; k++) {
					int owners = 0;
					for (int j = 1; j <= n; j++)
						owners += shard_has(&(struct shard){ j, n }, k);
					assert_int_equal(owners, 1);
					mine += shard_has(&s, k);
				}
				lo = mine < lo ? mine : lo;
				hi = mine > hi ? mine : hi;
			}
			assert_true(hi - lo <= 1);
		}
	struct shard whole = { 0, 0 };
	assert_true(shard_has(&whole, 0) && shard_has(&whole, 41));
	assert_true(shard_has(&(struct shard){ 2, 3 }, 4) && !shard_has(&(struct shard){ 2, 3 }, 5));
}

static void test_set_id(void **state)
{
	(void)state;
	struct ab_diag d;
	assert_int_equal(shard_check_set_id("gh-1234-1.h200_x", &d), AB_OK);
	assert_int_equal(shard_check_set_id("", &d), AB_ERR_USAGE);
	assert_int_equal(shard_check_set_id("a/b", &d), AB_ERR_USAGE);
	assert_int_equal(shard_check_set_id("set:x", &d), AB_ERR_USAGE);
	char long_id[80];
	memset(long_id, 'x', 64);
	long_id[64] = '\0';
	assert_int_equal(shard_check_set_id(long_id, &d), AB_ERR_USAGE);
}

static void test_results_same(void **state)
{
	(void)state;
	static const struct fake_case fc[] = { { "ln", 40e3, 10e3, 20, true }, { "qk", 20e3, 8e3, 20, true } };
	struct results_run *a = fake_run(1, "smoke", "H200", fc, 2), *b = fake_run(1, "smoke", "H200", fc, 2);
	char why[256];
	assert_true(results_run_same(a, b, why, sizeof why));
	b->id = a->id + 7; /* the row id is not content */
	b->device.copy_gbps = 3000;
	assert_true(results_run_same(a, b, why, sizeof why));
	b->cases[1].slots[2].samples_ns[3] += 1;
	assert_false(results_run_same(a, b, why, sizeof why));
	assert_string_equal(why, "case 'qk' slot 'A2' a sample's wall time differs");
	b->cases[1].slots[2].samples_ns[3] -= 1;
	snprintf(b->cases[0].slots[1].outputs[0].md5, 33, "%s", "00000000000000000000000000000000");
	assert_false(results_run_same(a, b, why, sizeof why));
	assert_string_equal(why, "case 'ln' slot 'B' md5 differs");
	results_run_free(a);
	results_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_set_id),
		cmocka_unit_test(test_results_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
