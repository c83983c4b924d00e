/*
 * inputs.c - seeded, platform-independent input tensors (see inputs.h for
 * the exact derivation of every byte).
 *
 * Only integer arithmetic, exact integer-to-double conversions, IEEE double
 * additions and multiplications and one explicit rounding to bf16 touch the
 * data, so any C compiler in a standards mode (no contraction into FMAs:
 * -std=c11 implies -ffp-contract=off in GCC) produces the same bytes.
 *
 * Every generator draws a fixed number of times per element (12, 1 or 0:
 * no rejection), so element i's draws start at draws * i in the tensor's
 * stream. A tensor of INPUTS_CHUNK_MIN_ELEMS or more is filled in
 * contiguous chunks on threads, each starting from the stream jumped
 * ahead to its first element (common/rng_jump.h): the serial bytes, and
 * the stream left where the serial fill leaves it.
 */
#include "run/inputs.h"

#include <math.h>
#include <string.h>

#include "common/parallel.h"
#include "common/rng.h"
#include "common/rng_jump.h"

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
/* A 16-bit float format: mantissa bits, exponent bias, the Inf pattern. */
struct half_fmt {
	int mant, bias;
	uint16_t inf;
};

static uint16_t half_from_double(double x, const struct half_fmt *f)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	uint16_t sign = (uint16_t)((u >> 48) & 0x8000u);
	int exp = (int)((u >> 52) & 0x7FF);
	uint64_t sig = u & ((1ull << 52) - 1);

	if (exp == 0x7FF)
		return sig ? BF16_CANONICAL_NAN : (uint16_t)(sign | f->inf);
	if (exp == 0) /* double subnormal or zero: far below either format's smallest */
		return sign;
	sig |= 1ull << 52;
	int be = exp - 1023 + f->bias; /* the format's biased exponent if normal */
	if (be >= (f->inf >> f->mant))
		return (uint16_t)(sign | f->inf);
	int shift = be >= 1 ? 52 - f->mant : 53 - f->mant - be;
	if (shift > 63)
		return sign;
	uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	uint64_t bits = be >= 1 ? ((uint64_t)(be - 1) << f->mant) + q : q;
	if (bits >= f->inf)
		bits = f->inf;
	return (uint16_t)(sign | bits);
}

static const struct half_fmt bf16_fmt = { 7, 127, 0x7F80u }, f16_fmt = { 10, 15, 0x7C00u };

bf16_t inputs_bf16_from_double(double x)
{
	return half_from_double(x, &bf16_fmt);
}

uint16_t inputs_f16_from_double(double x)
{
	return half_from_double(x, &f16_fmt);
}

/* ---- any dtype -------------------------------------------------------------------- */

/* Stores v (a double) as element i of dst in dtype dt, rounded once. */
static void store_real(void *dst, enum site_dtype dt, int64_t i, double v)
{
	switch (dt) {
	case SITE_BF16: ((uint16_t *)dst)[i] = inputs_bf16_from_double(v); return;
	case SITE_F16: ((uint16_t *)dst)[i] = inputs_f16_from_double(v); return;
	case SITE_F32: ((float *)dst)[i] = (float)v; return;
	case SITE_I32: ((int32_t *)dst)[i] = (int32_t)v; return;
	case SITE_I64: ((int64_t *)dst)[i] = (int64_t)v; return;
	case SITE_U8: ((uint8_t *)dst)[i] = (uint8_t)v; return;
	case SITE_N_DTYPES: break;
	}
}

static void store_int(void *dst, enum site_dtype dt, int64_t i, int64_t v)
{
	switch (dt) {
	case SITE_I32: ((int32_t *)dst)[i] = (int32_t)v; return;
	case SITE_I64: ((int64_t *)dst)[i] = v; return;
	case SITE_U8: ((uint8_t *)dst)[i] = (uint8_t)v; return;
	default: store_real(dst, dt, i, (double)v); return;
	}
}

/* One bit pattern into element i (16 or 32 bits, by dtype). */
static void store_bits(void *dst, enum site_dtype dt, int64_t i, uint32_t bits)
{
	if (dt == SITE_F32)
		memcpy((uint32_t *)dst + i, &bits, sizeof bits);
	else
		((uint16_t *)dst)[i] = (uint16_t)bits;
}

/* inject_specials for any float dtype: the same positions, each format's
 * own patterns (inputs.h). */
static void inject_specials_any(void *dst, enum site_dtype dt, int64_t n, int64_t row_len)
{
	static const uint32_t sub[3][3] = { { 0x0001, 0x8003, 0x007F },
					    { 0x0001, 0x8003, 0x03FF },
					    { 0x00000001, 0x80000003, 0x007FFFFF } };
	static const uint32_t spec[3][5] = { { 0x7FFF, 0x7F80, 0xFF80, 0x7F7F, 0xFF7F },
					     { 0x7FFF, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF },
					     { 0x7FFFFFFF, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0xFF7FFFFF } };
	int f = dt == SITE_BF16 ? 0 : dt == SITE_F16 ? 1 : 2;
	if (row_len <= 0 || site_dtype_is_int(dt))
		return;
	for (int64_t r = 0; r < n / row_len; r++) {
		int64_t base = r * row_len;
		store_bits(dst, dt, base + (r * 3 + 2) % row_len, sub[f][0]);
		store_bits(dst, dt, base + (r * 11 + 5) % row_len, sub[f][1]);
		store_bits(dst, dt, base + (r * 13 + 3) % row_len, sub[f][2]);
		store_bits(dst, dt, base + (r * 7 + 1) % row_len, spec[f][r % 5]);
	}
}

/* One draw of randint: lo <= v < hi. The span hi - lo may exceed
 * INT64_MAX (randint(-2^63, 2^63 - 1)), so it is unsigned; up to 2^53 the
 * draw is the double formula of every earlier run (the same bytes), above
 * it the high 64 bits of draw x span, exact. */
static int64_t randint_draw(struct inputs_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo, off;
	if (span <= (1ull << 53)) {
		off = (uint64_t)(inputs_uniform(r) * (double)span);
		if (off >= span)
			off = span - 1;
	} else {
		off = (uint64_t)(((unsigned __int128)inputs_rng_next(r) * span) >> 64);
	}
	return (int64_t)((uint64_t)lo + off); /* modulo 2^64: lo + off fits */
}

/* Elements [lo, hi) of inputs_fill's tensor, r at element lo's first draw. */
static void fill_range(void *dst, enum site_dtype dt, int64_t lo, int64_t hi, const struct scenario_gen *g,
		       struct inputs_rng *r)
{
	switch (g->kind) {
	case SCENARIO_GEN_NORMAL:
	case SCENARIO_GEN_SPECIAL:
		for (int64_t i = lo; i < hi; i++)
			store_real(dst, dt, i, g->a + g->b * inputs_normal(r));
		return;
	case SCENARIO_GEN_UNIFORM:
		for (int64_t i = lo; i < hi; i++)
			store_real(dst, dt, i, g->a + (g->b - g->a) * inputs_uniform(r));
		return;
	case SCENARIO_GEN_CONSTANT:
		for (int64_t i = lo; i < hi; i++)
			if (site_dtype_is_int(dt))
				store_int(dst, dt, i, g->lo); /* exact: INT64_MAX is no double */
			else
				store_real(dst, dt, i, g->a);
		return;
	case SCENARIO_GEN_RANDINT:
		for (int64_t i = lo; i < hi; i++)
			store_int(dst, dt, i, randint_draw(r, g->lo, g->hi));
		return;
	case SCENARIO_GEN_NONE:
		break;
	}
	memset((unsigned char *)dst + (size_t)lo * site_dtype_size(dt), 0, (size_t)(hi - lo) * site_dtype_size(dt));
}

/* The generator's draws per element: a fixed count (no rejection), which
 * is what lets element i's draws start at draws * i. */
static uint64_t gen_draws(const struct scenario_gen *g)
{
	switch (g->kind) {
	case SCENARIO_GEN_NORMAL:
	case SCENARIO_GEN_SPECIAL: return 12;
	case SCENARIO_GEN_UNIFORM:
	case SCENARIO_GEN_RANDINT: return 1;
	case SCENARIO_GEN_CONSTANT:
	case SCENARIO_GEN_NONE: break;
	}
	return 0;
}

struct fill_ctx {
	void *dst;
	enum site_dtype dt;
	const struct scenario_gen *g;
	struct inputs_rng start, end; /* the stream at element 0; after the last */
	int last;                     /* the part that ends at n */
};

/* One chunk: the stream jumped to the chunk's first draw. */
static void fill_part(void *ctx, int64_t lo, int64_t hi, int part)
{
	struct fill_ctx *c = ctx;
	struct inputs_rng r = c->start;
	rng_jump(r.s, (uint64_t)lo * gen_draws(c->g));
	fill_range(c->dst, c->dt, lo, hi, c->g, &r);
	if (part == c->last)
		c->end = r;
}

void inputs_fill_k(void *dst, enum site_dtype dt, int64_t n, int64_t row_len, const struct scenario_gen *g,
		   struct inputs_rng *r, int k)
{
	if (k <= 0)
		k = par_threads(n, n, INPUTS_CHUNK_MIN_ELEMS);
	if (k > PAR_THREADS_MAX)
		k = PAR_THREADS_MAX;
	struct fill_ctx c = { .dst = dst, .dt = dt, .g = g, .start = *r, .end = *r, .last = k - 1 };
	par_for(n, k, fill_part, &c);
	*r = c.end;
	if (g->kind == SCENARIO_GEN_SPECIAL)
		inject_specials_any(dst, dt, n, row_len);
}

void inputs_fill(void *dst, enum site_dtype dt, int64_t n, int64_t row_len, const struct scenario_gen *g,
		 struct inputs_rng *r)
{
	inputs_fill_k(dst, dt, n, row_len, g, r, 0);
}

/* The bf16 fills are inputs_fill's: the same expressions (mean + std N,
 * low + (high - low) U, the constant), rounded once by
 * inputs_bf16_from_double, and the same special positions and patterns. */
void inputs_fill_activation(bf16_t *dst, int64_t n, int64_t row_len, const struct scenario_input *dist, struct inputs_rng *r)
{
	struct scenario_gen g = scenario_input_gen(dist);
	inputs_fill(dst, SITE_BF16, n, row_len, &g, r);
}

void inputs_fill_param(bf16_t *dst, int64_t n, enum site_param_dist p, struct inputs_rng *r)
{
	struct scenario_gen g = { .kind = SCENARIO_GEN_CONSTANT, .a = 0.0 };
	switch (p) {
	case SITE_PARAM_MODULATION: g = (struct scenario_gen){ .kind = SCENARIO_GEN_NORMAL, .a = 0.0, .b = 0.5 }; break;
	case SITE_PARAM_WEIGHT: g = (struct scenario_gen){ .kind = SCENARIO_GEN_NORMAL, .a = 1.0, .b = 0.1 }; break;
	case SITE_PARAM_BIAS: g = (struct scenario_gen){ .kind = SCENARIO_GEN_NORMAL, .a = 0.0, .b = 0.1 }; break;
	case SITE_PARAM_NONE: break;
	}
	inputs_fill(dst, SITE_BF16, n, 1, &g, r);
}
