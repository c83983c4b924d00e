/*
 * rga_plugin.c - an example abbench plugin: two arms of the site
 * residual_gate_add (out = x + ff * gate, gate [B, W] broadcast over the
 * tokens), each with a CPU function here and a CUDA function in
 * rga_plugin_cuda.cu when built with nvcc.
 *
 *   rga_exact    the eager chain's two roundings, t = bf16(ff * gate),
 *                out = bf16(x + t): byte-equal to abbench's eager arm
 *   rga_inexact  out = bf16(x + ff * gate), the product kept in float (as
 *                Inductor fuses it): close, but not byte-equal
 *
 * Build (make does it): cc -shared -fPIC -Iinclude rga_plugin.c -o
 * librga_plugin.so. Select an arm in a scenario with
 * `b = plugin:PATH/librga_plugin.so:rga_exact`. Only include/abbench/plugin.h
 * is needed: nothing of abbench is linked.
 */
#include "abbench/plugin.h"
#include "rga_plugin.h"

/* The tensors by name (never by position): x, ff, gate, out. */
int rga_tensors(const struct abbench_call *call, struct rga_view *v)
{
	static const char *const names[4] = { "x", "ff", "gate", "out" };
	for (int i = 0; i < 4; i++)
		if (!abbench_find(call, names[i]))
			return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has no tensor '%s'", call->site,
					    names[i]);
	v->x = abbench_tensor(call, "x");
	v->ff = abbench_tensor(call, "ff");
	v->gate = abbench_tensor(call, "gate");
	v->out = abbench_tensor(call, "out");
	v->rows = call->dims.batch * call->dims.tokens;
	v->tokens = call->dims.tokens;
	v->width = call->dims.width;
	return ABBENCH_OK;
}

static int rga_check(const struct abbench_call *call)
{
	struct rga_view v;
	return rga_tensors(call, &v);
}

static int rga_cpu(const struct abbench_call *call, int exact)
{
	struct rga_view v;
	int status = rga_tensors(call, &v);
	if (status != ABBENCH_OK)
		return status;
	for (int64_t r = 0; r < v.rows; r++) {
		const uint16_t *gate = v.gate + (r / v.tokens) * v.width;
		for (int64_t w = 0; w < v.width; w++) {
			int64_t i = r * v.width + w;
			float prod = abbench_bf16_to_f32(v.ff[i]) * abbench_bf16_to_f32(gate[w]);
			if (exact)
				prod = abbench_bf16_to_f32(abbench_f32_to_bf16(prod));
			v.out[i] = abbench_f32_to_bf16(abbench_bf16_to_f32(v.x[i]) + prod);
		}
	}
	return ABBENCH_OK;
}

static int rga_exact_cpu(const struct abbench_call *call)
{
	return rga_cpu(call, 1);
}

static int rga_inexact_cpu(const struct abbench_call *call)
{
	return rga_cpu(call, 0);
}

#if PLUGIN_HAVE_CUDA
#define CUDA_FN(fn) fn
#else
#define CUDA_FN(fn) NULL
#endif

static const char *const rga_uses[] = { "x", "ff", "gate", "out", NULL };

static const struct abbench_arm arms[] = {
	{ "rga_exact", "residual_gate_add", "x + bf16(ff * gate), two roundings as the eager chain", rga_check,
	  CUDA_FN(rga_exact_cuda), rga_exact_cpu, rga_uses },
	{ "rga_inexact", "residual_gate_add", "x + ff * gate with the product kept in float (not bit-exact)",
	  rga_check, CUDA_FN(rga_inexact_cuda), rga_inexact_cpu, rga_uses },
};

static const struct abbench_plugin table = {
	.abi_version = ABBENCH_PLUGIN_ABI_VERSION,
	.name = "rga_plugin",
	.n_arms = (int32_t)(sizeof arms / sizeof arms[0]),
	.arms = arms,
};

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	return harness_abi_version == ABBENCH_PLUGIN_ABI_VERSION ? &table : NULL;
}
