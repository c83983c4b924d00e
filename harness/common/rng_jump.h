/*
 * rng_jump.h - xoshiro256**'s state advanced by any number of steps at
 * once, so that a long stream can be cut into chunks that threads fill
 * independently with the very numbers one thread would draw.
 *
 * The state update of xoshiro256** (rng.h, rng_next) is linear over GF(2):
 * one step is a 256 x 256 bit matrix T. rng_jump applies T^steps as the
 * product of the precomputed T^(2^j) for the set bits j of steps (the
 * "matrix method" of jump-ahead; Vigna's published jump() is the special
 * case steps = 2^128, by characteristic polynomial). The 64 matrices
 * (512 KiB) are built once per process, on first use, thread-safely.
 */
#ifndef AB_RNG_JUMP_H
#define AB_RNG_JUMP_H

#include <stdint.h>

/* s becomes the state `steps` calls of rng_next(s) would leave. */
void rng_jump(uint64_t s[4], uint64_t steps);

#endif
