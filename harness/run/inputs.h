/*
 * inputs.h - the seeded input generator: same seed, same bytes, anywhere.
 *
 * Each tensor gets its own stream: a 64-bit key from splitmix64 over
 * (scenario seed, FNV-1a hash of the case name, tensor index), then
 * xoshiro256** for uniform 53-bit doubles. Normal deviates are the sum of 12
 * uniforms minus 6 (Irwin-Hall: mean 0, variance 1, support [-6, 6]); it uses
 * only exact integer-to-double conversions and IEEE additions, so no libm
 * function whose last bit may differ between C libraries touches the data.
 * Values are computed in double and rounded once to bf16 (RNE).
 *
 * "special" draws normal data and then overwrites, per row, deterministic
 * positions with NaN, +Inf, -Inf, the largest finite bf16 (+-), and bf16
 * subnormals (see inp_fill for the exact pattern).
 *
 * Exact derivation (so that another implementation reproduces the bytes):
 *   sm(x)   = splitmix64's output for state x: z = x + 0x9E3779B97F4A7C15;
 *             z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
 *             z = (z ^ z>>27) * 0x94D049BB133111EB; z ^ z>>31
 *   fnv(n)  = FNV-1a 64 over the bytes of the case name, no NUL
 *             (offset basis 0xCBF29CE484222325, prime 0x100000001B3)
 *   key     = sm(sm(seed) ^ fnv(case_name)) ^ (uint64_t)tensor_index
 *   s[i]    = sm(key + i * 0x9E3779B97F4A7C15), i = 0..3: the first four
 *             outputs of the splitmix64 generator started at state key
 *             (the seeding Vigna recommends for xoshiro)
 * All arithmetic is modulo 2^64. xoshiro256** as published (rotl(s1*5,7)*9).
 * Uniform: (next >> 11) * 2^-53. Normal: twelve uniforms added left to
 * right starting from 0.0, then 6.0 subtracted.
 *
 * Activations: normal mean + std*N, uniform low + (high-low)*U, constant
 * value (draws nothing), each computed in double and rounded once by
 * inputs_bf16_from_double. Parameters: MODULATION 0.5*N, WEIGHT 1 + 0.1*N,
 * BIAS 0.1*N, NONE zeros (draws nothing). One element after the other, one
 * draw (or twelve for a normal) per element, in memory order.
 *
 * Other dtypes (tensors of declared sites) get the same values, rounded
 * once from double to their type: f16 by inputs_f16_from_double (round to
 * nearest even, NaN 0x7FFF), f32 by C's conversion (round to nearest
 * even). randint(lo, hi) draws one uniform U per element and takes
 * lo + (int64_t)(U * (double)(hi - lo)), at most hi - 1 (exact for ranges
 * up to 2^53); an integer constant is stored as it is. A tensor's rows,
 * for special, are its last axis.
 *
 * Special pattern: the whole tensor is drawn as normal(mean, std) first;
 * then in each full row r (0-based, rows of row_len) the positions
 *   (r*3 + 2), (r*11 + 5), (r*13 + 3)   (mod row_len) get the bf16
 *   subnormals 0x0001, 0x8003, 0x007F in that order, and then
 *   (r*7 + 1) mod row_len gets, by r mod 5: NaN (0x7FFF), +Inf (0x7F80),
 *   -Inf (0xFF80), +max finite (0x7F7F), -max finite (0xFF7F).
 * Later writes win, so the special value wins a collision, and among the
 * subnormals the later in that list wins. A trailing partial row (n not a
 * multiple of row_len) keeps its normal data. In f16 the same positions
 * get 0x0001, 0x8003, 0x03FF and NaN 0x7FFF, 0x7C00, 0xFC00, 0x7BFF,
 * 0xFBFF; in f32 0x00000001, 0x80000003, 0x007FFFFF and 0x7FFFFFFF,
 * 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0xFF7FFFFF.
 */
#ifndef AB_INPUTS_H
#define AB_INPUTS_H

#include <stdint.h>

#include "kernels/common/bf16.h"
#include "kernels/common/site.h"
#include "config/scenario.h"

struct inputs_rng {
	uint64_t s[4];
};

void inputs_rng_seed(struct inputs_rng *r, uint64_t scenario_seed, const char *case_name, int tensor_index);
uint64_t inputs_rng_next(struct inputs_rng *r);
double inputs_uniform(struct inputs_rng *r);  /* [0, 1) */
double inputs_normal(struct inputs_rng *r);   /* Irwin-Hall(12) - 6 */

/* Fills an activation tensor of n elements (rows of row_len) per dist. */
void inputs_fill_activation(bf16_t *dst, int64_t n, int64_t row_len, const struct scenario_input *dist, struct inputs_rng *r);

/* Fills a parameter tensor per its site_param_dist. */
void inputs_fill_param(bf16_t *dst, int64_t n, enum site_param_dist p, struct inputs_rng *r);

/* Fills a tensor of n elements of dtype dt (rows of row_len, for special)
 * by generator g (not SCENARIO_GEN_NONE: a case's input distribution is
 * scenario_input_gen's). */
void inputs_fill(void *dst, enum site_dtype dt, int64_t n, int64_t row_len, const struct scenario_gen *g,
		 struct inputs_rng *r);
/* inputs_fill in k chunks on threads (k = 0: one thread below
 * INPUTS_CHUNK_MIN_ELEMS elements, else the online CPUs up to 16); the
 * same bytes and the same final stream for every k
 * (tests/unit/test_inputs.c, test_chunked_same). */
#define INPUTS_CHUNK_MIN_ELEMS (1 << 20)
void inputs_fill_k(void *dst, enum site_dtype dt, int64_t n, int64_t row_len, const struct scenario_gen *g,
		   struct inputs_rng *r, int k);

/* Rounds a double to IEEE binary16 as inputs_bf16_from_double does to
 * bf16: once, to nearest even; NaN 0x7FFF, +-Inf past the largest finite
 * by half an ulp, subnormals kept. */
uint16_t inputs_f16_from_double(double x);

/* Rounds a double to bf16 once, to nearest with ties to even, straight from
 * the double's bits (no intermediate float, so no double rounding); every
 * NaN becomes 0x7FFF, values past the largest finite bf16 by half an ulp or
 * more become +-Inf, values at or under half the smallest subnormal +-0. */
bf16_t inputs_bf16_from_double(double x);

#endif
