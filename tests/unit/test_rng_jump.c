/*
 * test_rng_jump.c - rng_jump(s, m) leaves the state m calls of rng_next
 * leave: every m below 300 (each of the low powers' matrices and their
 * sums), m around 2^12, 2^16 and 12 (2^20 + 7) by stepping, and for
 * larger m the composition rule jump(a) then jump(b) = jump(a + b),
 * with a stepped part so that the large powers meet the stepping too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/rng.h"
#include "common/rng_jump.h"

static void stepped(uint64_t s[4], uint64_t m)
{
	for (uint64_t i = 0; i < m; i++)
		(void)rng_next(s);
}

static void check_step(uint64_t seed, uint64_t m)
{
	uint64_t a[4], b[4];
	rng_seed(a, seed);
	memcpy(b, a, sizeof a);
	stepped(a, m);
	rng_jump(b, m);
	if (memcmp(a, b, sizeof a))
		fail_msg("seed %llu: jump by %llu differs from stepping", (unsigned long long)seed, (unsigned long long)m);
}

static void test_small_steps(void **state)
{
	(void)state;
	for (uint64_t m = 0; m < 300; m++)
		check_step(42, m);
	static const uint64_t ms[] = { 4095, 4096, 4097, 65535, 65536, 12 * ((1u << 20) + 7) };
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		check_step(1, ms[i]);
		check_step(0xDEADBEEF, ms[i]);
	}
}

/* jump(2^k) then stepping d equals jump(2^k + d), and jumps compose. */
static void test_large_compose(void **state)
{
	(void)state;
	static const uint64_t big[] = { 1ull << 32, (1ull << 40) + 12345, 0xFFFFFFFFFFFFFFFFull, 0x8000000000000001ull };
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
		uint64_t a[4], b[4];
		rng_seed(a, 7 + i);
		memcpy(b, a, sizeof a);
		rng_jump(a, big[i] - 1000);
		stepped(a, 1000);
		rng_jump(b, big[i]);
		assert_memory_equal(a, b, sizeof a);
		rng_seed(a, 9);
		memcpy(b, a, sizeof a);
		rng_jump(a, big[i] / 3);
		rng_jump(a, big[i] - big[i] / 3);
		rng_jump(b, big[i]);
		assert_memory_equal(a, b, sizeof a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_steps),
		cmocka_unit_test(test_large_compose),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
