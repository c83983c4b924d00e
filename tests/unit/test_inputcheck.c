/*
 * test_inputcheck.c - the input digest (run/inputcheck.h): the same bytes
 * give the same digest wherever they sit in memory; flipping any one bit
 * of a buffer (every bit of every byte, lengths around the 32-byte groups)
 * changes it; so does the length alone (zero tails); an even number of
 * flips of one bit restores it (what the runner's check after the first
 * call is for); and it keeps pace with memcpy on a large buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "run/inputcheck.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 131u + seed * 7u) ^ (i >> 3));
}

static void test_same_bytes_same_digest(void **state)
{
	(void)state;
	unsigned char a[200], b[208];
	struct inputcheck_digest da, db;
	fill(a, sizeof a, 1);
	memcpy(b + 5, a, sizeof a); /* unaligned */
	inputcheck_digest(a, sizeof a, &da);
	inputcheck_digest(b + 5, sizeof a, &db);
	assert_true(inputcheck_same(&da, &db));
	inputcheck_digest(NULL, 0, &da);
	inputcheck_digest(a, 0, &db);
	assert_true(inputcheck_same(&da, &db));
}

static void test_every_bit_flip_seen(void **state)
{
	(void)state;
	static const size_t lens[] = { 1, 7, 8, 31, 32, 33, 64, 100, 257 };
	unsigned char buf[257];
	for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
		size_t n = lens[l];
		struct inputcheck_digest base, now;
		fill(buf, n, (unsigned)n);
		inputcheck_digest(buf, n, &base);
		for (size_t i = 0; i < n; i++)
			for (int bit = 0; bit < 8; bit++) {
				buf[i] ^= (unsigned char)(1u << bit);
				inputcheck_digest(buf, n, &now);
				assert_false(inputcheck_same(&base, &now));
				buf[i] ^= (unsigned char)(1u << bit); /* the second flip restores it */
				inputcheck_digest(buf, n, &now);
				assert_true(inputcheck_same(&base, &now));
			}
	}
}

/* Two bf16 sign bits in words of the same lane (the top bit of each): a
 * digest without a rotation would let them cancel. */
static void test_two_top_bits_seen(void **state)
{
	(void)state;
	unsigned char buf[256] = { 0 };
	struct inputcheck_digest base, now;
	inputcheck_digest(buf, sizeof buf, &base);
	buf[7] ^= 0x80;       /* word 0, lane 0 */
	buf[32 + 7] ^= 0x80;  /* word 4, lane 0 */
	inputcheck_digest(buf, sizeof buf, &now);
	assert_false(inputcheck_same(&base, &now));
}

static void test_length_counts(void **state)
{
	(void)state;
	unsigned char zeros[64] = { 0 };
	struct inputcheck_digest d[65];
	for (size_t n = 0; n <= 64; n++) {
		inputcheck_digest(zeros, n, &d[n]);
		for (size_t m = 0; m < n; m++)
			assert_false(inputcheck_same(&d[m], &d[n]));
	}
}

static double seconds(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* The runner digests every input two or three times a slot: it should
 * cost about what reading the input back does, not md5's tenfold. A
 * measurement, printed, never asserted (a test must not depend on the real
 * clock: on a loaded machine a bound of 8 memcpys could fail); the digest's
 * result over the same bytes is checked instead. */
static void test_about_memcpy_speed(void **state)
{
	(void)state;
	size_t n = (size_t)32 << 20;
	unsigned char *a = malloc(n), *b = malloc(n);
	assert_non_null(a);
	assert_non_null(b);
	fill(a, n, 3);
	memcpy(b, a, n);
	double copy = 1e9, dig = 1e9;
	struct inputcheck_digest d;
	for (int r = 0; r < 3; r++) {
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		memcpy(b, a, n);
		__asm__ __volatile__("" : : "r"(b) : "memory");
		double t = seconds(&t0);
		copy = t < copy ? t : copy;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		inputcheck_digest(a, n, &d);
		t = seconds(&t0);
		dig = t < dig ? t : dig;
	}
	printf("# digest of 32 MiB: %.1f ms, memcpy %.1f ms (%.1fx)\n", dig * 1e3, copy * 1e3, dig / copy);
	struct inputcheck_digest again;
	inputcheck_digest(b, n, &again); /* the copy: the same bytes, the same digest */
	assert_true(inputcheck_same(&d, &again));
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bytes_same_digest),
		cmocka_unit_test(test_every_bit_flip_seen),
		cmocka_unit_test(test_two_top_bits_seen),
		cmocka_unit_test(test_length_counts),
		cmocka_unit_test(test_about_memcpy_speed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
