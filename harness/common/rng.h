/*
 * rng.h - the one pseudo-random generator of abbench: xoshiro256**
 * (Blackman and Vigna, as published: rotl(s1 * 5, 7) * 9) seeded with
 * splitmix64 outputs, the seeding its authors recommend.
 *
 * Static inline so that each user (inputs.c for the input tensors, stats.c
 * for the bootstrap) keeps its own state and its own streams while the
 * arithmetic is written once. Integer arithmetic modulo 2^64 only: the same
 * numbers on every platform and compiler, which the golden values of
 * test_inputs.c and test_stats.c pin down.
 */
#ifndef AB_RNG_H
#define AB_RNG_H

#include <stdint.h>

/* splitmix64's increment (2^64 / golden ratio). */
#define RNG_GAMMA 0x9E3779B97F4A7C15ull

/* splitmix64's output for state x: the generator started at x returns
 * rng_mix(x), rng_mix(x + RNG_GAMMA), ... A good 64-bit mixer by itself. */
static inline uint64_t rng_mix(uint64_t x)
{
	uint64_t z = x + RNG_GAMMA;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The four state words: the first four outputs of splitmix64 started at x. */
static inline void rng_seed(uint64_t s[4], uint64_t x)
{
	for (int i = 0; i < 4; i++)
		s[i] = rng_mix(x + (uint64_t)i * RNG_GAMMA);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next xoshiro256** output; advances s. */
static inline uint64_t rng_next(uint64_t s[4])
{
	uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return out;
}

#endif
