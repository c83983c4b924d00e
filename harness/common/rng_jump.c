/*
 * rng_jump.c - rng_jump by powers of xoshiro256**'s step matrix
 * (rng_jump.h).
 *
 * A matrix is kept by columns: col[b] is the image of the state with bit b
 * alone set (bit b of word b / 64), so M v is the XOR of the columns of
 * v's set bits. T's columns come from rng_next itself (its output is
 * ignored; the state update is linear), and T^(2^(j+1)) = T^(2^j) T^(2^j)
 * column by column: 63 squarings of 256 matrix-vector products, a few
 * milliseconds once.
 */
#include "common/rng_jump.h"

#include <pthread.h>
#include <string.h>

#include "common/rng.h"

#define RNG_BITS 256

static uint64_t pow2_mat[64][RNG_BITS][4]; /* [j]: T^(2^j) by columns */
static pthread_once_t pow2_once = PTHREAD_ONCE_INIT;

static void mat_apply(const uint64_t m[RNG_BITS][4], const uint64_t v[4], uint64_t out[4])
{
	uint64_t r[4] = { 0, 0, 0, 0 };
	for (int b = 0; b < RNG_BITS; b++) {
		if (!((v[b >> 6] >> (b & 63)) & 1))
			continue;
		for (int w = 0; w < 4; w++)
			r[w] ^= m[b][w];
	}
	memcpy(out, r, sizeof r);
}

static void pow2_build(void)
{
	for (int b = 0; b < RNG_BITS; b++) {
		uint64_t *c = pow2_mat[0][b];
		memset(c, 0, 4 * sizeof *c);
		c[b >> 6] = 1ull << (b & 63);
		(void)rng_next(c);
	}
	for (int j = 1; j < 64; j++)
		for (int b = 0; b < RNG_BITS; b++)
			mat_apply(pow2_mat[j - 1], pow2_mat[j - 1][b], pow2_mat[j][b]);
}

void rng_jump(uint64_t s[4], uint64_t steps)
{
	if (!steps)
		return;
	pthread_once(&pow2_once, pow2_build);
	for (int j = 0; j < 64; j++)
		if ((steps >> j) & 1)
			mat_apply(pow2_mat[j], s, s);
}
