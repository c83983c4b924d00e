/*
 * site.c - the qk_layernorm site: tensor table, shape rule and variants
 * (qk_layernorm.h says what the folder holds).
 */
#include "kernels/qk_layernorm/qk_layernorm.h"

#include "kernels/common/site_rules.h"

static bool qk_geometry(const struct site_shape *s, struct site_dims *d, char *err, size_t len)
{
	if (s->rank != 4)
		return site_rules_fail(err, len, "shape must be BxTxHxD (4 dims), not %d dims", s->rank);
	int64_t hd = s->dim[3];
	if (hd % 4 != 0)
		return site_rules_fail(err, len,
				       "D=%lld is not a multiple of 4 (the vectorized LayerNorm path needs it)",
				       (long long)hd);
	if (hd > QK_MAX_HEAD_DIM)
		return site_rules_fail(err, len,
				       "D=%lld exceeds %d (the fused kernel normalises a head with one warp)",
				       (long long)hd, QK_MAX_HEAD_DIM);
	if (site_rules_elems(s) < 0)
		return site_rules_fail(err, len, "shape has more than %lld elements", (long long)SITE_MAX_ELEMS);
	*d = (struct site_dims){ .batch = s->dim[0], .tokens = s->dim[1], .width = s->dim[2] * hd, .row_len = hd,
				 .rows = s->dim[0] * s->dim[1] * s->dim[2], .heads = s->dim[2], .n_axes = 4,
				 .axis = { s->dim[0], s->dim[1], s->dim[2], hd } };
	return true;
}

/* The axes of a case's shape, BxTxHxD (W = H * D is no axis). */
enum { AX_B, AX_T, AX_H, AX_D };
#define QK_FULL SITE_SHAPE(AX_B, AX_T, AX_H, AX_D)
#define QK_ROWS SITE_SHAPE(AX_B, AX_T, AX_H) /* one statistic per head of a token */

const struct site_desc qk_layernorm_site = {
	.name = "qk_layernorm",
	.summary = "per-head LayerNorm over head_dim, on q and on k",
	.shape_help = "BxTxHxD, D % 4 == 0, D <= 128",
	.n_axes = 4,
	.axes = { "B", "T", "H", "D" },
	.n_tensors = QK_N_TENSORS,
	.tensors = {
		[QK_Q] = SITE_T_ACT("q", QK_FULL),
		[QK_K] = SITE_T_ACT("k", QK_FULL),
		[QK_WEIGHT] = SITE_T_PARAM("weight", SITE_SHAPE(AX_D), SITE_PARAM_WEIGHT, true),
		[QK_BIAS] = SITE_T_PARAM("bias", SITE_SHAPE(AX_D), SITE_PARAM_BIAS, true),
		[QK_Q_OUT] = SITE_T_OUT("q_out", QK_FULL),
		[QK_K_OUT] = SITE_T_OUT("k_out", QK_FULL),
		[QK_Q_MEAN] = SITE_T_STAT("q_mean", QK_ROWS),
		[QK_Q_RSTD] = SITE_T_STAT("q_rstd", QK_ROWS),
		[QK_K_MEAN] = SITE_T_STAT("k_mean", QK_ROWS),
		[QK_K_RSTD] = SITE_T_STAT("k_rstd", QK_ROWS),
	},
	.n_variants = 6,
	.variants = {
		{ "eager", "two LayerNorm launches: q, then k", true,
		  { SITE_CPU(qk_layernorm_cpu_eager), SITE_CUDA(qk_layernorm_cuda_eager) }, .writes_aux = true },
		{ "fused", "one launch normalising q and k", true,
		  { SITE_CPU(qk_layernorm_cpu_fused), SITE_CUDA(qk_layernorm_cuda_fused) } },
		{ "twopass", "two-pass float mean/variance LayerNorm on q and k", false,
		  { SITE_CPU(qk_layernorm_cpu_twopass) }, .writes_aux = true },
		{ "fused.x8s2d", "16-byte loads, 8 lanes a row, 2 row sets per warp, default cache policy (D 64, 128)",
		  true, { SITE_CUDA(qk_layernorm_cuda_fused_x8s2d) } },
		{ "fused.s2", "8-byte loads, 8 lanes a row, 2 row sets per warp (D 32, 64, 96, 128)", true,
		  { SITE_CUDA(qk_layernorm_cuda_fused_s2) } },
		{ "fused.rt2", "s2's layout with run-time counts (any D)", true,
		  { SITE_CUDA(qk_layernorm_cuda_fused_rt2) } },
	},
	.geometry = qk_geometry,
	.reference = qk_layernorm_reference,
	.n_eager_launches = 2, /* one LayerNorm for q, one for k, each with its mean and rstd */
	.eager_io = {
		{ SITE_IO(QK_Q) | SITE_IO(QK_WEIGHT) | SITE_IO(QK_BIAS),
		  SITE_IO(QK_Q_OUT) | SITE_IO(QK_Q_MEAN) | SITE_IO(QK_Q_RSTD) },
		{ SITE_IO(QK_K) | SITE_IO(QK_WEIGHT) | SITE_IO(QK_BIAS),
		  SITE_IO(QK_K_OUT) | SITE_IO(QK_K_MEAN) | SITE_IO(QK_K_RSTD) },
	},
};

bool qk_layernorm_args_ok(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	const int64_t D = d->row_len;
	if (d->batch <= 0 || d->tokens <= 0 || d->heads <= 0 || D <= 0 || D % 4 != 0 || D > QK_MAX_HEAD_DIM)
		return false;
	if (d->width != d->heads * D || d->rows != d->batch * d->tokens * d->heads)
		return false;
	return site_rules_tensors_present(&qk_layernorm_site, a);
}
