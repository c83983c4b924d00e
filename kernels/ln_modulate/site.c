/*
 * site.c - the ln_modulate and ln_continuous sites: tensor table, shape
 * rule and variants (ln_modulate.h says what the folder holds).
 *
 * ln_continuous (the final norm_out) is the same chain as ln_modulate
 * under another name, so that a scenario counts it separately: both
 * descriptors come from one definition.
 */
#include "kernels/ln_modulate/ln_modulate.h"

#include "kernels/common/site_rules.h"

/* Largest row PyTorch's vectorized LayerNorm takes here. */
#define LN_MAX_ROW 65536

static bool ln_geometry(const struct site_shape *s, struct site_dims *d, char *err, size_t len)
{
	return site_rules_btw(s, d, LN_MAX_ROW, err, len);
}

/* The axes of a case's shape, BxTxW; the LayerNorm's row is W. */
enum { AX_B, AX_T, AX_W };
#define LNM_FULL SITE_SHAPE(AX_B, AX_T, AX_W)
#define LNM_VEC SITE_SHAPE(AX_B, AX_W)  /* per batch, broadcast over tokens */
#define LNM_ROWS SITE_SHAPE(AX_B, AX_T) /* one statistic per row */

#define LNM_SITE(site_name, site_summary)                                                                          \
	{                                                                                                          \
		.name = site_name, .summary = site_summary, .shape_help = "BxTxW, W % 4 == 0, W <= 65536",        \
		.n_axes = 3, .axes = { "B", "T", "W" }, .n_tensors = LNM_N_TENSORS,                                \
		.tensors = {                                                                                       \
			[LNM_X] = SITE_T_ACT("x", LNM_FULL),                                                       \
			[LNM_SCALE] = SITE_T_PARAM("scale", LNM_VEC, SITE_PARAM_MODULATION, false),                \
			[LNM_SHIFT] = SITE_T_PARAM("shift", LNM_VEC, SITE_PARAM_MODULATION, false),                \
			[LNM_WEIGHT] = SITE_T_PARAM("weight", SITE_SHAPE(AX_W), SITE_PARAM_WEIGHT, true),          \
			[LNM_BIAS] = SITE_T_PARAM("bias", SITE_SHAPE(AX_W), SITE_PARAM_BIAS, true),                \
			[LNM_OUT] = SITE_T_OUT("out", LNM_FULL),                                                   \
			[LNM_MEAN] = SITE_T_STAT("mean", LNM_ROWS),                                                \
			[LNM_RSTD] = SITE_T_STAT("rstd", LNM_ROWS),                                                \
			[LNM_LN_OUT] = SITE_T_SCRATCH("ln_out", LNM_FULL),                                         \
			[LNM_SCALE1] = SITE_T_SCRATCH("scale1", LNM_VEC),                                          \
			[LNM_MOD_MUL] = SITE_T_SCRATCH("mod_mul", LNM_FULL),                                       \
		},                                                                                                 \
		.n_variants = 6,                                                                                   \
		.variants = {                                                                                      \
			{ "eager", "LayerNorm, 1 + scale, * (1 + scale), + shift: four launches", true,            \
			  { SITE_CPU(ln_modulate_cpu_eager), SITE_CUDA(ln_modulate_cuda_eager) },                  \
			  .writes_aux = true },                                                                    \
			{ "fused", "one pass: Welford statistics, then the same three bf16 roundings", true,       \
			  { SITE_CPU(ln_modulate_cpu_fused), SITE_CUDA(ln_modulate_cuda_fused) } },                \
			{ "twopass", "two-pass float mean/variance LayerNorm, then the same modulate", false,      \
			  { SITE_CPU(ln_modulate_cpu_twopass) }, .writes_aux = true },                             \
			{ "fused.pf8", "8-byte loads, 128 threads a row, scale and shift loaded with x, bf16x2 epilogue " \
				       "(W 3072/4096/5120)",                                                         \
			  true, { SITE_CUDA(ln_modulate_cuda_fused_pf8) } },                                       \
			{ "fused.r1", "8-byte loads, 128 threads a row, float epilogue (W % 512 == 0, <= 8192)",   \
			  true, { SITE_CUDA(ln_modulate_cuda_fused_r1) } },                                        \
			{ "fused.generic", "eager statistics, then the epilogue over a second read (any W)", true, \
			  { SITE_CUDA(ln_modulate_cuda_fused_generic) } },                                         \
		},                                                                                                 \
		.geometry = ln_geometry, .reference = ln_modulate_reference,                                       \
		.n_eager_launches = 4,                                                                             \
		.eager_io = {                                                                                      \
			/* LayerNorm (mean and rstd too), 1 + scale, * scale1, + shift */                          \
			{ SITE_IO(LNM_X) | SITE_IO(LNM_WEIGHT) | SITE_IO(LNM_BIAS),                                \
			  SITE_IO(LNM_LN_OUT) | SITE_IO(LNM_MEAN) | SITE_IO(LNM_RSTD) },                           \
			{ SITE_IO(LNM_SCALE), SITE_IO(LNM_SCALE1) },                                               \
			{ SITE_IO(LNM_LN_OUT) | SITE_IO(LNM_SCALE1), SITE_IO(LNM_MOD_MUL) },                       \
			{ SITE_IO(LNM_MOD_MUL) | SITE_IO(LNM_SHIFT), SITE_IO(LNM_OUT) },                           \
		},                                                                                                 \
	}

const struct site_desc ln_modulate_site =
	LNM_SITE("ln_modulate", "adaLN LayerNorm (eps, no affine) then * (1 + scale) + shift");
const struct site_desc ln_continuous_site =
	LNM_SITE("ln_continuous", "final LayerNorm-continuous: the same chain as ln_modulate");

bool ln_modulate_args_ok(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	if (d->batch <= 0 || d->tokens <= 0 || d->width <= 0 || d->width % 4 != 0 || d->rows != d->batch * d->tokens)
		return false;
	if (d->row_len != d->width || d->width > LN_MAX_ROW)
		return false;
	return site_rules_tensors_present(&ln_modulate_site, a);
}
