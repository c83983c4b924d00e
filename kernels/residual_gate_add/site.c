/*
 * site.c - the residual_gate_add site: tensor table, shape rule and
 * variants (residual_gate_add.h says what the folder holds).
 */
#include "kernels/residual_gate_add/residual_gate_add.h"

#include "kernels/common/site_rules.h"

/* No LayerNorm, hence no row limit; W % 4 == 0 as the fused kernel loads
 * 4 bf16 at a time at the least. */
static bool gate_geometry(const struct site_shape *s, struct site_dims *d, char *err, size_t len)
{
	return site_rules_btw(s, d, 0, err, len);
}

/* The axes of a case's shape, BxTxW. */
enum { AX_B, AX_T, AX_W };
#define RGA_FULL SITE_SHAPE(AX_B, AX_T, AX_W)

const struct site_desc residual_gate_add_site = {
	.name = "residual_gate_add",
	.summary = "feed-forward gate residual: x + ff * gate",
	.shape_help = "BxTxW, W % 4 == 0",
	.n_axes = 3,
	.axes = { "B", "T", "W" },
	.n_tensors = RGA_N_TENSORS,
	.tensors = {
		[RGA_X] = SITE_T_ACT("x", RGA_FULL),
		[RGA_FF] = SITE_T_ACT("ff", RGA_FULL),
		[RGA_GATE] = SITE_T_PARAM("gate", SITE_SHAPE(AX_B, AX_W), SITE_PARAM_MODULATION, false),
		[RGA_OUT] = SITE_T_OUT("out", RGA_FULL),
		[RGA_FF_GATED] = SITE_T_SCRATCH("ff_gated", RGA_FULL),
	},
	.n_variants = 3,
	.variants = {
		{ "eager", "ff * gate, then x + that: two launches", true,
		  { SITE_CPU(residual_gate_add_cpu_eager), SITE_CUDA(residual_gate_add_cuda_eager) } },
		{ "fused", "one pass, the same two bf16 roundings", true,
		  { SITE_CPU(residual_gate_add_cpu_fused), SITE_CUDA(residual_gate_add_cuda_fused) } },
		{ "fused.h1", "bf16x2 math, one row per thread", true, { SITE_CUDA(residual_gate_add_cuda_fused_h1) } },
	},
	.geometry = gate_geometry,
	.reference = residual_gate_add_reference,
	.n_eager_launches = 2, /* ff * gate, then x + ff_gated */
	.eager_io = {
		{ SITE_IO(RGA_FF) | SITE_IO(RGA_GATE), SITE_IO(RGA_FF_GATED) },
		{ SITE_IO(RGA_X) | SITE_IO(RGA_FF_GATED), SITE_IO(RGA_OUT) },
	},
};

bool residual_gate_add_args_ok(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	if (d->batch <= 0 || d->tokens <= 0 || d->width <= 0 || d->width % 4 != 0 || d->rows != d->batch * d->tokens)
		return false;
	return site_rules_tensors_present(&residual_gate_add_site, a);
}
