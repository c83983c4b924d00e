/*
 * rga_plant.c - a plugin that plants regressions of a known size, for
 * measuring how sharp the gate is (scripts/aa_check.sh --plants). Its arms
 * plant0, plant1, ... plant10, plant15, plant20, plant30 are all an EXACT
 * residual_gate_add (out = bf16(x + bf16(ff * gate)), byte-equal to
 * abbench's eager arm), and plantP also reads P% more bytes than the kernel
 * moves (rga_plant.h says which bytes and why they cost DRAM traffic).
 * plant0 is the same code with nothing extra to read, so a pair "plant0
 * against plantP" differs by the planted traffic alone.
 *
 * The CPU functions do the same with host memory (the extra bytes folded
 * into a sink the same way): the plugin path runs in CI without a GPU. On
 * the CPU the loop is bound by arithmetic more than by memory, so there P%
 * of the bytes is less than P% of the time; and the CPU backend's fake
 * timer charges a step by its shape, not by what it does, so under it a
 * plant costs nothing at all.
 *
 * Built by make into build/examples/plugin/librga_plant.so (with the CUDA
 * half, rga_plant_cuda.cu, when nvcc is found). examples/plugin/rga_plant.ini
 * is the scenario aa_check plants into by default.
 */
#include <string.h>

#include "abbench/plugin.h"
#include "rga_plant.h"

int rga_plant_view(const struct abbench_call *call, int pct, struct rga_plant_view *v)
{
	static const char *const names[5] = { "x", "ff", "gate", "out", "ff_gated" };
	for (int i = 0; i < 5; i++)
		if (!abbench_find(call, names[i]))
			return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has no tensor '%s'", call->site,
					    names[i]);
	const struct abbench_tensor *sink = abbench_find(call, "ff_gated");
	int64_t moved = 2 * (abbench_find(call, "x")->elems + abbench_find(call, "ff")->elems +
			     abbench_find(call, "gate")->elems + abbench_find(call, "out")->elems);
	int64_t extra = moved * pct / 100;
	v->extra_words = extra / RGA_PLANT_WORD;
	if (v->extra_words > sink->elems * 2 / RGA_PLANT_WORD)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED,
				    "a plant of %d%% reads %lld bytes, more than the %lld of scratch tensor "
				    "'ff_gated' (case '%s': plant at most %lld%%)",
				    pct, (long long)extra, (long long)(sink->elems * 2), call->case_name,
				    (long long)(sink->elems * 2 * 100 / moved));
	v->x = abbench_tensor(call, "x");
	v->ff = abbench_tensor(call, "ff");
	v->gate = abbench_tensor(call, "gate");
	v->out = abbench_tensor(call, "out");
	v->sink = abbench_tensor(call, "ff_gated");
	v->rows = call->dims.batch * call->dims.tokens;
	v->tokens = call->dims.tokens;
	v->width = call->dims.width;
	return ABBENCH_OK;
}

/* The extra read: every word folded, one store only if the fold is the
 * magic word (never, on the poisoned scratch). */
static void plant_read_cpu(const struct rga_plant_view *v)
{
	const unsigned char *p = (const unsigned char *)v->sink;
	uint64_t fold = 0;
	for (int64_t i = 0; i < v->extra_words * (RGA_PLANT_WORD / 8); i++) {
		uint64_t w;
		memcpy(&w, p + i * 8, sizeof w);
		fold ^= w;
	}
	uint32_t h = (uint32_t)(fold ^ fold >> 32);
	if (h == RGA_PLANT_MAGIC)
		v->sink[0] = (uint16_t)h;
}

/* The eager chain's two roundings, t = bf16(ff * gate), out = bf16(x + t). */
static void plant_rga_cpu(const struct rga_plant_view *v)
{
	for (int64_t r = 0; r < v->rows; r++) {
		const uint16_t *gate = v->gate + (r / v->tokens) * v->width;
		for (int64_t w = 0; w < v->width; w++) {
			int64_t i = r * v->width + w;
			float prod = abbench_bf16_to_f32(v->ff[i]) * abbench_bf16_to_f32(gate[w]);
			prod = abbench_bf16_to_f32(abbench_f32_to_bf16(prod));
			v->out[i] = abbench_f32_to_bf16(abbench_bf16_to_f32(v->x[i]) + prod);
		}
	}
}

static int plant_check(const struct abbench_call *call, int pct)
{
	struct rga_plant_view v;
	return rga_plant_view(call, pct, &v);
}

static int plant_cpu(const struct abbench_call *call, int pct)
{
	struct rga_plant_view v;
	int status = rga_plant_view(call, pct, &v);
	if (status != ABBENCH_OK)
		return status;
	plant_read_cpu(&v);
	plant_rga_cpu(&v);
	return ABBENCH_OK;
}

/* The plant sizes, in percent: one arm each. */
#define RGA_PLANT_SIZES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(15) X(20) X(30)

#if PLUGIN_HAVE_CUDA
#define PLANT_CUDA_FN(p) plant##p##_cuda
#define PLANT_CUDA_DEF(p)                                                                                            \
	static int plant##p##_cuda(const struct abbench_call *call)                                                  \
	{                                                                                                            \
		return rga_plant_cuda(call, p);                                                                      \
	}
#else
#define PLANT_CUDA_FN(p) NULL
#define PLANT_CUDA_DEF(p)
#endif

/* One check, cpu and cuda function per size: the ABI passes no arm name. */
#define PLANT_DEFS(p)                                                                                                \
	static int plant##p##_check(const struct abbench_call *call)                                                 \
	{                                                                                                            \
		return plant_check(call, p);                                                                         \
	}                                                                                                            \
	static int plant##p##_cpu(const struct abbench_call *call)                                                   \
	{                                                                                                            \
		return plant_cpu(call, p);                                                                           \
	}                                                                                                            \
	PLANT_CUDA_DEF(p)
RGA_PLANT_SIZES(PLANT_DEFS)

static const char *const plant_uses[] = { "x", "ff", "gate", "out", "ff_gated", NULL };

#define PLANT_ARM(p)                                                                                                 \
	{ "plant" #p, "residual_gate_add", "exact x + bf16(ff * gate), plus an extra read of " #p "% of its bytes",  \
	  plant##p##_check, PLANT_CUDA_FN(p), plant##p##_cpu, plant_uses },

static const struct abbench_arm arms[] = { RGA_PLANT_SIZES(PLANT_ARM) };

static const struct abbench_plugin table = {
	.abi_version = ABBENCH_PLUGIN_ABI_VERSION,
	.name = "rga_plant",
	.n_arms = (int32_t)(sizeof arms / sizeof arms[0]),
	.arms = arms,
};

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	return harness_abi_version == ABBENCH_PLUGIN_ABI_VERSION ? &table : NULL;
}
