/*
 * inputs.c - seeded, platform-independent input tensors (see inputs.h for
 * the exact derivation of every byte).
 *
 * Only integer arithmetic, exact integer-to-double conversions, IEEE double
 * additions and multiplications and one explicit rounding to bf16 touch the
 * data, so any C compiler in a standards mode (no contraction into FMAs:
 * -std=c11 implies -ffp-contract=off in GCC) produces the same bytes.
 */
#include "run/inputs.h"

#include <string.h>

#include "common/rng.h"

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001B3ull;
	}
	return h;
}

void inputs_rng_seed(struct inputs_rng *r, uint64_t scenario_seed, const char *case_name, int tensor_index)
{
	uint64_t key = rng_mix(rng_mix(scenario_seed) ^ fnv1a64(case_name)) ^ (uint64_t)(int64_t)tensor_index;

	rng_seed(r->s, key);
}

uint64_t inputs_rng_next(struct inputs_rng *r)
{
	return rng_next(r->s);
}

double inputs_uniform(struct inputs_rng *r)
{
	return (double)(inputs_rng_next(r) >> 11) * 0x1.0p-53;
}

double inputs_normal(struct inputs_rng *r)
{
	double sum = 0.0;
	for (int i = 0; i < 12; i++)
		sum += inputs_uniform(r);
	return sum - 6.0;
}

/*
 * RNE from the double's bits. The significand (53 bits with the implicit
 * one) is shifted right so that one unit is the bf16 quantum at the value's
 * binade (2^(e-7) for normal bf16, 2^-133 for subnormal), rounded on the
 * dropped bits, and added to the exponent field: a carry out of the 7
 * mantissa bits bumps the exponent, and reaching 0x7F80 is +Inf.
 */
bf16_t inputs_bf16_from_double(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	uint16_t sign = (uint16_t)((u >> 48) & 0x8000u);
	int exp = (int)((u >> 52) & 0x7FF);
	uint64_t sig = u & ((1ull << 52) - 1);

	if (exp == 0x7FF)
		return sig ? BF16_CANONICAL_NAN : (bf16_t)(sign | 0x7F80u);
	if (exp == 0) /* double subnormal or zero: far below 2^-134 */
		return sign;
	sig |= 1ull << 52;
	int be = exp - 1023 + 127; /* bf16 biased exponent if normal */
	if (be >= 0xFF)
		return (bf16_t)(sign | 0x7F80u);
	int shift = be >= 1 ? 45 : 46 - be;
	if (shift > 63)
		return sign;
	uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	uint64_t bits = be >= 1 ? ((uint64_t)(be - 1) << 7) + q : q;
	if (bits >= 0x7F80u)
		bits = 0x7F80u;
	return (bf16_t)(sign | bits);
}

static void fill_normal(bf16_t *dst, int64_t n, double mean, double std, struct inputs_rng *r)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = inputs_bf16_from_double(mean + std * inputs_normal(r));
}

static void fill_uniform(bf16_t *dst, int64_t n, double low, double high, struct inputs_rng *r)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = inputs_bf16_from_double(low + (high - low) * inputs_uniform(r));
}

static void fill_constant(bf16_t *dst, int64_t n, double value)
{
	bf16_t v = inputs_bf16_from_double(value);
	for (int64_t i = 0; i < n; i++)
		dst[i] = v;
}

/* The injections of inputs.h's "Special pattern", over the full rows. */
static void inject_specials(bf16_t *dst, int64_t n, int64_t row_len)
{
	static const bf16_t special[5] = { 0x7FFF, 0x7F80, 0xFF80, 0x7F7F, 0xFF7F };

	if (row_len <= 0)
		return;
	for (int64_t r = 0; r < n / row_len; r++) {
		bf16_t *row = dst + r * row_len;
		row[(r * 3 + 2) % row_len] = 0x0001;
		row[(r * 11 + 5) % row_len] = 0x8003;
		row[(r * 13 + 3) % row_len] = 0x007F;
		row[(r * 7 + 1) % row_len] = special[r % 5];
	}
}

void inputs_fill_activation(bf16_t *dst, int64_t n, int64_t row_len, const struct scenario_input *dist, struct inputs_rng *r)
{
	switch (dist->dist) {
	case SCENARIO_DIST_NORMAL:
		fill_normal(dst, n, dist->mean, dist->std, r);
		break;
	case SCENARIO_DIST_UNIFORM:
		fill_uniform(dst, n, dist->low, dist->high, r);
		break;
	case SCENARIO_DIST_CONSTANT:
		fill_constant(dst, n, dist->value);
		break;
	case SCENARIO_DIST_SPECIAL:
		fill_normal(dst, n, dist->mean, dist->std, r);
		inject_specials(dst, n, row_len);
		break;
	}
}

void inputs_fill_param(bf16_t *dst, int64_t n, enum site_param_dist p, struct inputs_rng *r)
{
	switch (p) {
	case SITE_PARAM_MODULATION:
		fill_normal(dst, n, 0.0, 0.5, r);
		break;
	case SITE_PARAM_WEIGHT:
		fill_normal(dst, n, 1.0, 0.1, r);
		break;
	case SITE_PARAM_BIAS:
		fill_normal(dst, n, 0.0, 0.1, r);
		break;
	case SITE_PARAM_NONE:
		fill_constant(dst, n, 0.0);
		break;
	}
}
