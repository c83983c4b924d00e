/*
 * ulp.c - ordered-integer distances and element classes per dtype
 * (ulp.h says what they are).
 */
#include "common/ulp.h"

#include <math.h>
#include <string.h>

/* The bits of a float dtype: its width's sign bit and the magnitude of an
 * infinity (above it: NaN). */
struct float_bits {
	uint64_t sign, inf;
};

static bool float_bits_of(enum site_dtype dt, struct float_bits *f)
{
	switch (dt) {
	case SITE_BF16:
		*f = (struct float_bits){ 0x8000u, 0x7F80u };
		return true;
	case SITE_F16:
		*f = (struct float_bits){ 0x8000u, 0x7C00u };
		return true;
	case SITE_F32:
		*f = (struct float_bits){ 0x80000000u, 0x7F800000u };
		return true;
	default:
		return false;
	}
}

int64_t ulp_bits_at(enum site_dtype dt, const void *base, int64_t i)
{
	const unsigned char *p = base;
	switch (dt) {
	case SITE_BF16:
	case SITE_F16: {
		uint16_t v;
		memcpy(&v, p + (size_t)i * 2, 2);
		return v;
	}
	case SITE_F32: {
		uint32_t v;
		memcpy(&v, p + (size_t)i * 4, 4);
		return v;
	}
	case SITE_I32: {
		int32_t v;
		memcpy(&v, p + (size_t)i * 4, 4);
		return v;
	}
	case SITE_I64: {
		int64_t v;
		memcpy(&v, p + (size_t)i * 8, 8);
		return v;
	}
	case SITE_U8:
		return p[i];
	default:
		return 0;
	}
}

enum ulp_class ulp_class_of(enum site_dtype dt, int64_t bits)
{
	struct float_bits f;
	if (!float_bits_of(dt, &f))
		return ULP_FINITE;
	uint64_t mag = (uint64_t)bits & (f.sign - 1);
	return mag > f.inf ? ULP_NAN : mag == f.inf ? ULP_INF : ULP_FINITE;
}

bool ulp_negative(enum site_dtype dt, int64_t bits)
{
	struct float_bits f;
	if (float_bits_of(dt, &f))
		return ((uint64_t)bits & f.sign) != 0;
	return dt != SITE_U8 && bits < 0;
}

/* A float's key: magnitude, or -magnitude - 1 with the sign bit set. */
static int64_t float_key(const struct float_bits *f, int64_t bits)
{
	int64_t mag = (int64_t)((uint64_t)bits & (f->sign - 1));
	return ((uint64_t)bits & f->sign) ? -mag - 1 : mag;
}

uint64_t ulp_distance(enum site_dtype dt, int64_t a, int64_t b)
{
	struct float_bits f;
	if (float_bits_of(dt, &f)) {
		a = float_key(&f, a);
		b = float_key(&f, b);
	}
	return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

int ulp_bucket(uint64_t d)
{
	return d <= 1 ? 0 : d == 2 ? 1 : d <= 10 ? 2 : d <= 1000 ? 3 : 4;
}

const char *ulp_bucket_name(int bucket)
{
	static const char *const names[ULP_BUCKETS] = { "1", "2", "3-10", "11-1000", ">1000" };
	return bucket >= 0 && bucket < ULP_BUCKETS ? names[bucket] : "?";
}

/* A bf16, f16 or f32 value from its bits: sign, exponent field of ebits
 * bits (bias 2^(ebits-1) - 1), mantissa of mbits bits. */
static double float_value(uint64_t bits, int ebits, int mbits)
{
	uint64_t mant = bits & ((1ull << mbits) - 1), exp = (bits >> mbits) & ((1ull << ebits) - 1);
	bool neg = (bits >> (ebits + mbits)) & 1;
	int bias = (1 << (ebits - 1)) - 1;
	double v;
	if (exp == (1ull << ebits) - 1)
		v = mant ? NAN : INFINITY;
	else if (exp == 0)
		v = ldexp((double)mant, 1 - bias - mbits);
	else
		v = ldexp((double)(mant | 1ull << mbits), (int)exp - bias - mbits);
	return neg ? -v : v;
}

double ulp_value(enum site_dtype dt, int64_t bits)
{
	switch (dt) {
	case SITE_BF16:
		return float_value((uint64_t)bits & 0xFFFF, 8, 7);
	case SITE_F16:
		return float_value((uint64_t)bits & 0xFFFF, 5, 10);
	case SITE_F32:
		return float_value((uint64_t)bits & 0xFFFFFFFFu, 8, 23);
	default:
		return (double)bits;
	}
}
