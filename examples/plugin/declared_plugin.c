/*
 * declared_plugin.c - an example plugin for sites a scenario declares
 * (docs/SITES.md), with nothing of them compiled into abbench:
 *
 * modulate_scale_shift (scenarios/sites/modulate_scale_shift.ini):
 * out = x * (1 + scale) + shift, each op rounded to bf16 as PyTorch's
 * eager chain does, x [B, T, W], scale and shift [B, W] broadcast over T.
 *   mss_eager    the eager chain: three passes, writing the intermediates
 *                s1 = bf16(1 + scale) and mul = bf16(x * s1) (the site's
 *                scratch tensors), then out = bf16(mul + shift)
 *   mss_fused    one pass, the same three roundings: byte-equal to eager
 *   mss_inexact  one pass in float, one rounding: close, not byte-equal
 *
 * embed_gather (scenarios/sites/embed_gather.ini): out[b, t, :] =
 * table[idx[b, t], :], idx i32 [B, T], table and out f16: integer inputs,
 * another dtype, and an index checked against its axis V.
 *   gather       element by element
 *   gather_rows  a row at a time (memcpy): the same bytes
 *
 * Each arm finds its tensors and axes by name and lists the tensors it
 * uses (abbench refuses a site that lacks one before the run). The CPU
 * functions are here; mss's CUDA ones in declared_plugin_cuda.cu when
 * built with nvcc. Only include/abbench/plugin.h is needed.
 */
#include <string.h>

#include "abbench/plugin.h"
#include "declared_plugin.h"

/* ---- modulate_scale_shift --------------------------------------------------- */

/* The tensor called name, checked to be bf16 of the given rank. */
static int bf16_tensor(const struct abbench_call *call, const char *name, int rank, void **out)
{
	const struct abbench_tensor *t = abbench_find(call, name);
	if (!t)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has no tensor '%s'", call->site, name);
	if (t->dtype != ABBENCH_BF16 || t->rank != rank)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "tensor '%s' is not bf16 of rank %d", name, rank);
	*out = t->data;
	return ABBENCH_OK;
}

int mss_tensors(const struct abbench_call *call, int eager, struct mss_view *v)
{
	void *p[6] = { 0 };
	int st;
	v->batch = abbench_axis(call, "B");
	v->tokens = abbench_axis(call, "T");
	v->width = abbench_axis(call, "W");
	if (v->batch < 0 || v->tokens < 0 || v->width < 0)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has not the axes B, T and W", call->site);
	if ((st = bf16_tensor(call, "x", 3, &p[0])) || (st = bf16_tensor(call, "scale", 2, &p[1])) ||
	    (st = bf16_tensor(call, "shift", 2, &p[2])) || (st = bf16_tensor(call, "out", 3, &p[3])))
		return st;
	if (eager && ((st = bf16_tensor(call, "s1", 2, &p[4])) || (st = bf16_tensor(call, "mul", 3, &p[5]))))
		return st;
	v->x = p[0], v->scale = p[1], v->shift = p[2], v->out = p[3], v->s1 = p[4], v->mul = p[5];
	return ABBENCH_OK;
}

static float bf(uint16_t h)
{
	return abbench_bf16_to_f32(h);
}

static int mss_check(const struct abbench_call *call)
{
	struct mss_view v;
	return mss_tensors(call, 0, &v);
}

static int mss_check_eager(const struct abbench_call *call)
{
	struct mss_view v;
	return mss_tensors(call, 1, &v);
}

/* Three passes, as PyTorch runs them: 1 + scale, x * s1, mul + shift. */
static int mss_eager_cpu(const struct abbench_call *call)
{
	struct mss_view v;
	int st = mss_tensors(call, 1, &v);
	if (st)
		return st;
	int64_t bw = v.batch * v.width;
	for (int64_t i = 0; i < bw; i++)
		v.s1[i] = abbench_f32_to_bf16(1.0f + bf(v.scale[i]));
	for (int64_t b = 0; b < v.batch; b++) /* one row of [B, T, W] at a time, its [B, W] row beside it */
		for (int64_t t = 0; t < v.tokens; t++) {
			const uint16_t *x = v.x + (b * v.tokens + t) * v.width, *s1 = v.s1 + b * v.width;
			uint16_t *mul = v.mul + (b * v.tokens + t) * v.width;
			for (int64_t w = 0; w < v.width; w++)
				mul[w] = abbench_f32_to_bf16(bf(x[w]) * bf(s1[w]));
		}
	for (int64_t b = 0; b < v.batch; b++)
		for (int64_t t = 0; t < v.tokens; t++) {
			const uint16_t *mul = v.mul + (b * v.tokens + t) * v.width, *sh = v.shift + b * v.width;
			uint16_t *out = v.out + (b * v.tokens + t) * v.width;
			for (int64_t w = 0; w < v.width; w++)
				out[w] = abbench_f32_to_bf16(bf(mul[w]) + bf(sh[w]));
		}
	return ABBENCH_OK;
}

/* One row of [B, T, W]: exact keeps the eager chain's three roundings,
 * else the chain in float with one rounding. */
static void mss_row(const uint16_t *x, const uint16_t *scale, const uint16_t *shift, uint16_t *out, int64_t width,
		    int exact)
{
	if (exact)
		for (int64_t w = 0; w < width; w++) {
			float s1 = bf(abbench_f32_to_bf16(1.0f + bf(scale[w])));
			out[w] = abbench_f32_to_bf16(bf(abbench_f32_to_bf16(bf(x[w]) * s1)) + bf(shift[w]));
		}
	else
		for (int64_t w = 0; w < width; w++)
			out[w] = abbench_f32_to_bf16(bf(x[w]) * (1.0f + bf(scale[w])) + bf(shift[w]));
}

static int mss_one_pass(const struct abbench_call *call, int exact)
{
	struct mss_view v;
	int st = mss_tensors(call, 0, &v);
	if (st)
		return st;
	for (int64_t b = 0; b < v.batch; b++)
		for (int64_t t = 0; t < v.tokens; t++) {
			int64_t row = (b * v.tokens + t) * v.width;
			mss_row(v.x + row, v.scale + b * v.width, v.shift + b * v.width, v.out + row, v.width, exact);
		}
	return ABBENCH_OK;
}

static int mss_fused_cpu(const struct abbench_call *call)
{
	return mss_one_pass(call, 1);
}

static int mss_inexact_cpu(const struct abbench_call *call)
{
	return mss_one_pass(call, 0);
}

/* ---- embed_gather --------------------------------------------------------------- */

struct gather_view {
	const int32_t *idx;
	const uint16_t *table;
	uint16_t *out;
	int64_t rows, vocab, width; /* rows = B * T */
};

static int gather_tensors(const struct abbench_call *call, struct gather_view *v)
{
	const struct abbench_tensor *idx = abbench_find(call, "idx"), *table = abbench_find(call, "table"),
				    *out = abbench_find(call, "out");
	if (!idx || !table || !out || idx->dtype != ABBENCH_I32 || table->dtype != ABBENCH_F16 ||
	    out->dtype != ABBENCH_F16 || table->rank != 2)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED,
				    "site '%s' is not embed_gather's idx:i32, table:f16 [V, W], out:f16", call->site);
	v->idx = idx->data;
	v->table = table->data;
	v->out = out->data;
	v->rows = idx->elems;
	v->vocab = table->shape[0];
	v->width = table->shape[1];
	return ABBENCH_OK;
}

static int gather_check(const struct abbench_call *call)
{
	struct gather_view v;
	return gather_tensors(call, &v);
}

static int gather_cpu_any(const struct abbench_call *call, int rows)
{
	struct gather_view v;
	int st = gather_tensors(call, &v);
	if (st)
		return st;
	for (int64_t r = 0; r < v.rows; r++) {
		int64_t k = v.idx[r];
		if (k < 0 || k >= v.vocab)
			return abbench_fail(call, ABBENCH_ERR, "idx[%lld] = %lld is outside the table's %lld rows", (long long)r,
					    (long long)k, (long long)v.vocab);
		if (rows)
			memcpy(v.out + r * v.width, v.table + k * v.width, (size_t)v.width * sizeof *v.out);
		else
			for (int64_t w = 0; w < v.width; w++)
				v.out[r * v.width + w] = v.table[k * v.width + w];
	}
	return ABBENCH_OK;
}

static int gather_cpu(const struct abbench_call *call)
{
	return gather_cpu_any(call, 0);
}

static int gather_rows_cpu(const struct abbench_call *call)
{
	return gather_cpu_any(call, 1);
}

/* ---- the table -------------------------------------------------------------- */

#if PLUGIN_HAVE_CUDA
#define CUDA_FN(fn) fn
#else
#define CUDA_FN(fn) NULL
#endif

static const char *const mss_uses[] = { "x", "scale", "shift", "out", NULL };
static const char *const mss_eager_uses[] = { "x", "scale", "shift", "out", "s1", "mul", NULL };
static const char *const gather_uses[] = { "idx", "table", "out", NULL };

static const struct abbench_arm arms[] = {
	{ "mss_eager", "modulate_scale_shift", "1 + scale, x * s1, + shift: three passes, bf16 intermediates",
	  mss_check_eager, CUDA_FN(mss_eager_cuda), mss_eager_cpu, mss_eager_uses },
	{ "mss_fused", "modulate_scale_shift", "one pass, the same three bf16 roundings", mss_check,
	  CUDA_FN(mss_fused_cuda), mss_fused_cpu, mss_uses },
	{ "mss_inexact", "modulate_scale_shift", "one pass in float, one rounding (not bit-exact)", mss_check,
	  CUDA_FN(mss_inexact_cuda), mss_inexact_cpu, mss_uses },
	{ "gather", "embed_gather", "table rows by index, element by element", gather_check, NULL, gather_cpu,
	  gather_uses },
	{ "gather_rows", "embed_gather", "table rows by index, a row at a time", gather_check, NULL, gather_rows_cpu,
	  gather_uses },
};

static const struct abbench_plugin table = {
	.abi_version = ABBENCH_PLUGIN_ABI_VERSION,
	.name = "declared_plugin",
	.n_arms = (int32_t)(sizeof arms / sizeof arms[0]),
	.arms = arms,
};

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	return harness_abi_version == ABBENCH_PLUGIN_ABI_VERSION ? &table : NULL;
}
