/*
 * div_plant.c - arms with planted differences whose divergence figures
 * are known in advance (tests/cli/t460-divergence.sh, issue 29), for
 * three declared sites alike but for the dtype of x and out:
 *
 *   plant_bf16, plant_f16, plant_f32: x [B, T, W] input, out [B, T, W]
 *   output (both of the site's dtype), mean and rstd [B, T] f32 stats
 *
 * Every arm writes out = x (the bits) and, per row, mean and rstd in
 * float (a left-to-right sum), then plants its difference:
 *
 *   ref     nothing: the reference arm a
 *   ulp1    out at [0, 3, 5] one ULP up (its bits + 1)
 *   sign    out at [0, 1, 2] with its sign bit flipped
 *   nan     out at [0, 2, 7] a quiet NaN where x has a number
 *   rstd    rstd of row 2 one ULP up; out and mean as ref's
 *   nondet  out at [0, 0, 0] one ULP up on every second call (the 2nd,
 *           4th, ... call of that arm in this process)
 *   rowvar  out at [0, 0, 0] one ULP up when T > 1: row 0 changes with T
 *
 * Arms are named ARM_DTYPE (ulp1_bf16) and implement plant_DTYPE. CPU
 * only. Only include/abbench/plugin.h is needed.
 */
#include <math.h>
#include <string.h>

#include "abbench/plugin.h"

enum dt { BF16, F16, F32 };

struct view {
	enum dt dt;
	int64_t b, t, w;
	void *x, *out;
	float *mean, *rstd;
};

static int view_of(const struct abbench_call *call, enum dt dt, struct view *v)
{
	static const int32_t dtypes[] = { ABBENCH_BF16, ABBENCH_F16, ABBENCH_F32 };
	const struct abbench_tensor *x = abbench_find(call, "x"), *out = abbench_find(call, "out");
	const struct abbench_tensor *mean = abbench_find(call, "mean"), *rstd = abbench_find(call, "rstd");
	v->dt = dt;
	v->b = abbench_axis(call, "B");
	v->t = abbench_axis(call, "T");
	v->w = abbench_axis(call, "W");
	if (!x || !out || !mean || !rstd || x->dtype != dtypes[dt] || out->dtype != dtypes[dt] ||
	    mean->dtype != ABBENCH_F32 || rstd->dtype != ABBENCH_F32 || v->b < 1 || v->t < 1 || v->w < 8)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' is not a plant site (x, out, mean, rstd; W >= 8)",
				    call->site);
	v->x = x->data;
	v->out = out->data;
	v->mean = mean->data;
	v->rstd = rstd->data;
	return ABBENCH_OK;
}

static float value_at(const struct view *v, int64_t i)
{
	if (v->dt == F32)
		return ((const float *)v->x)[i];
	uint16_t h = ((const uint16_t *)v->x)[i];
	return v->dt == BF16 ? abbench_bf16_to_f32(h) : abbench_f16_to_f32(h);
}

/* out = x; mean and rstd per row. */
static void reference(const struct view *v)
{
	size_t es = v->dt == F32 ? 4 : 2;
	int64_t rows = v->b * v->t;
	memcpy(v->out, v->x, (size_t)(rows * v->w) * es);
	for (int64_t r = 0; r < rows; r++) {
		float sum = 0, sq = 0;
		for (int64_t k = 0; k < v->w; k++)
			sum += value_at(v, r * v->w + k);
		float mean = sum / (float)v->w;
		for (int64_t k = 0; k < v->w; k++) {
			float dlt = value_at(v, r * v->w + k) - mean;
			sq += dlt * dlt;
		}
		v->mean[r] = mean;
		v->rstd[r] = 1.0f / sqrtf(sq / (float)v->w + 1e-5f);
	}
}

/* The bits of out at element i, changed by f (nothing past the tensor:
 * a case too small for the plant gets none). */
static void out_bits(const struct view *v, int64_t i, uint32_t (*f)(uint32_t bits, enum dt dt))
{
	if (i < 0 || i >= v->b * v->t * v->w)
		return;
	if (v->dt == F32) {
		uint32_t b;
		memcpy(&b, (float *)v->out + i, 4);
		b = f(b, v->dt);
		memcpy((float *)v->out + i, &b, 4);
	} else {
		uint16_t *p = (uint16_t *)v->out + i;
		*p = (uint16_t)f(*p, v->dt);
	}
}

static uint32_t up(uint32_t bits, enum dt dt)
{
	(void)dt;
	return bits + 1;
}

static uint32_t flip(uint32_t bits, enum dt dt)
{
	return bits ^ (dt == F32 ? 0x80000000u : 0x8000u);
}

static uint32_t quiet_nan(uint32_t bits, enum dt dt)
{
	(void)bits;
	return dt == F32 ? 0x7FC00000u : dt == BF16 ? 0x7FC0u : 0x7E00u;
}

/* Element [0, t, w]; -1 past the tensor's tokens. */
static int64_t at(const struct view *v, int64_t t, int64_t w)
{
	return t < v->t ? t * v->w + w : -1;
}

static int arm_ref(const struct view *v)
{
	reference(v);
	return ABBENCH_OK;
}

static int arm_ulp1(const struct view *v)
{
	reference(v);
	out_bits(v, at(v, 3, 5), up);
	return ABBENCH_OK;
}

static int arm_sign(const struct view *v)
{
	reference(v);
	out_bits(v, at(v, 1, 2), flip);
	return ABBENCH_OK;
}

static int arm_nan(const struct view *v)
{
	reference(v);
	out_bits(v, at(v, 2, 7), quiet_nan);
	return ABBENCH_OK;
}

static int arm_rstd(const struct view *v)
{
	reference(v);
	if (v->b * v->t > 2) {
		uint32_t b;
		memcpy(&b, &v->rstd[2], 4);
		b++;
		memcpy(&v->rstd[2], &b, 4);
	}
	return ABBENCH_OK;
}

static int arm_rowvar(const struct view *v)
{
	reference(v);
	if (v->t > 1)
		out_bits(v, 0, up);
	return ABBENCH_OK;
}

/* Each dtype's nondet arm counts its own calls. */
static int arm_nondet(const struct view *v, long *calls)
{
	reference(v);
	if ((*calls)++ % 2 == 1)
		out_bits(v, 0, up);
	return ABBENCH_OK;
}

#define PLANT(name, dt, body)                                                    \
	static int name(const struct abbench_call *call)                         \
	{                                                                        \
		struct view v;                                                   \
		int st = view_of(call, dt, &v);                                  \
		return st ? st : body;                                           \
	}
#define PLANTS(sfx, dt)                                                          \
	PLANT(ref_##sfx, dt, arm_ref(&v))                                        \
	PLANT(ulp1_##sfx, dt, arm_ulp1(&v))                                      \
	PLANT(sign_##sfx, dt, arm_sign(&v))                                      \
	PLANT(nan_##sfx, dt, arm_nan(&v))                                        \
	PLANT(rstd_##sfx, dt, arm_rstd(&v))                                      \
	PLANT(rowvar_##sfx, dt, arm_rowvar(&v))                                  \
	static long nondet_calls_##sfx;                                          \
	PLANT(nondet_##sfx, dt, arm_nondet(&v, &nondet_calls_##sfx))             \
	static int check_##sfx(const struct abbench_call *call)                  \
	{                                                                        \
		struct view v;                                                   \
		return view_of(call, dt, &v);                                    \
	}

PLANTS(bf16, BF16)
PLANTS(f16, F16)
PLANTS(f32, F32)

static const char *const uses[] = { "x", "out", "mean", "rstd", NULL };

#define ARM(name, sfx, what) { #name "_" #sfx, "plant_" #sfx, what, check_##sfx, NULL, name##_##sfx, uses }
#define ARMS(sfx)                                                                                 \
	ARM(ref, sfx, "out = x, mean and rstd per row"), ARM(ulp1, sfx, "one ULP up at [0, 3, 5]"),  \
	ARM(sign, sfx, "sign flipped at [0, 1, 2]"), ARM(nan, sfx, "NaN at [0, 2, 7]"),            \
	ARM(rstd, sfx, "rstd of row 2 one ULP up"), ARM(nondet, sfx, "one ULP up on every second call"), \
	ARM(rowvar, sfx, "row 0 one ULP up when T > 1")

static const struct abbench_arm arms[] = { ARMS(bf16), ARMS(f16), ARMS(f32) };

static const struct abbench_plugin table = {
	.abi_version = ABBENCH_PLUGIN_ABI_VERSION,
	.name = "div_plant",
	.n_arms = (int32_t)(sizeof arms / sizeof arms[0]),
	.arms = arms,
};

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	return harness_abi_version == ABBENCH_PLUGIN_ABI_VERSION ? &table : NULL;
}
