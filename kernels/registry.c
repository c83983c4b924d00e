/*
 * registry.c - the table of fusion sites: tensors, variants, shape rules.
 *
 * One entry per site of GLM-Image's transformer block (ATEN_CHAIN.md). The
 * tensor lists follow site_layout.h; the CPU arms come from cpu/cpu_arms.h,
 * the CUDA launchers from cuda/cuda_arms.h (only in a CUDA build), the
 * float64 references from reference.h.
 */
#include "site.h"

#include <stdarg.h>
#include <stdio.h>

#include "cpu/cpu_arms.h"
#include "reference.h"
#include "site_layout.h"

#if AB_HAVE_CUDA
#include "cuda/cuda_arms.h"
#define CUDA_ARM(fn) (fn)
#else
#define CUDA_ARM(fn) NULL
#endif

/* Largest row PyTorch's vectorized LayerNorm takes here; the CPU emulation
 * sizes its per-thread reciprocal table from it. */
#define LN_MAX_ROW 65536
/* The fused qk kernel normalises one head with one warp (4 values a lane). */
#define QK_MAX_HEAD_DIM 128
/* Elements per tensor: far beyond any real case, and keeps every size
 * product (bytes included) away from int64 overflow. */
#define SITE_MAX_ELEMS ((int64_t)1 << 36)

__attribute__((format(printf, 3, 4)))
static bool geo_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* The element count of the shape, or -1 past SITE_MAX_ELEMS. Dims are at
 * most 2^31 (site_parse_shape), so each step's product cannot overflow. */
static int64_t shape_elems(const struct site_shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++) {
		n *= s->dim[i];
		if (n > SITE_MAX_ELEMS)
			return -1;
	}
	return n;
}

/* Common rule of the [B, T, W] sites; row_len = W. */
static bool btw_geometry(const struct site_shape *s, struct site_dims *d, int64_t max_w, char *err, size_t len)
{
	if (s->rank != 3)
		return geo_fail(err, len, "shape must be BxTxW (3 dims), not %d dims", s->rank);
	int64_t w = s->dim[2];
	if (w % 4 != 0)
		return geo_fail(err, len, "W=%lld is not a multiple of 4 (the vectorized LayerNorm path needs it)",
				(long long)w);
	if (max_w > 0 && w > max_w)
		return geo_fail(err, len, "W=%lld exceeds %lld (the largest LayerNorm row supported)", (long long)w,
				(long long)max_w);
	if (shape_elems(s) < 0)
		return geo_fail(err, len, "shape has more than %lld elements", (long long)SITE_MAX_ELEMS);
	*d = (struct site_dims){ .batch = s->dim[0], .tokens = s->dim[1], .width = w, .row_len = w,
				 .rows = s->dim[0] * s->dim[1], .heads = 1 };
	return true;
}

static bool ln_geometry(const struct site_shape *s, struct site_dims *d, char *err, size_t len)
{
	return btw_geometry(s, d, LN_MAX_ROW, err, len);
}

/* No LayerNorm, but the fused kernel loads 4 bf16 at a time too. */
static bool gate_geometry(const struct site_shape *s, struct site_dims *d, char *err, size_t len)
{
	return btw_geometry(s, d, 0, err, len);
}

static bool qk_geometry(const struct site_shape *s, struct site_dims *d, char *err, size_t len)
{
	if (s->rank != 4)
		return geo_fail(err, len, "shape must be BxTxHxD (4 dims), not %d dims", s->rank);
	int64_t hd = s->dim[3];
	if (hd % 4 != 0)
		return geo_fail(err, len, "D=%lld is not a multiple of 4 (the vectorized LayerNorm path needs it)",
				(long long)hd);
	if (hd > QK_MAX_HEAD_DIM)
		return geo_fail(err, len, "D=%lld exceeds %d (the fused kernel normalises a head with one warp)",
				(long long)hd, QK_MAX_HEAD_DIM);
	if (shape_elems(s) < 0)
		return geo_fail(err, len, "shape has more than %lld elements", (long long)SITE_MAX_ELEMS);
	*d = (struct site_dims){ .batch = s->dim[0], .tokens = s->dim[1], .width = s->dim[2] * hd, .row_len = hd,
				 .rows = s->dim[0] * s->dim[1] * s->dim[2], .heads = s->dim[2] };
	return true;
}

#define T_ACT(nm) { .name = nm, .role = SITE_IN_ACT, .dtype = SITE_BF16, .extent = SITE_EXT_FULL }
#define T_PARAM(nm, ext, dist, aff) \
	{ .name = nm, .role = SITE_IN_PARAM, .dtype = SITE_BF16, .extent = ext, .param = dist, .affine_only = aff }
#define T_OUT(nm) { .name = nm, .role = SITE_OUT, .dtype = SITE_BF16, .extent = SITE_EXT_FULL }
#define T_STAT(nm) { .name = nm, .role = SITE_AUX, .dtype = SITE_F32, .extent = SITE_EXT_ROWS }
#define T_SCRATCH(nm, ext) { .name = nm, .role = SITE_SCRATCH, .dtype = SITE_BF16, .extent = ext }

/* The eager chains' traffic (site_launch_io): the tensors each launch reads
 * and writes, as PyTorch's kernels do (the LayerNorm also writes mean and
 * rstd; every intermediate is written once and read back once). */
#define IO1(a) SITE_IO(a)
#define IO2(a, b) (SITE_IO(a) | SITE_IO(b))
#define IO3(a, b, c) (SITE_IO(a) | SITE_IO(b) | SITE_IO(c))

/* ln_modulate and ln_continuous differ only in name and summary (and so in
 * the scenario's count): one definition for both. */
#define LN_MODULATE_SITE(site_name, site_summary)                                                          \
	{                                                                                                  \
		.name = site_name, .summary = site_summary,                                                \
		.shape_help = "BxTxW, W % 4 == 0, W <= 65536",                                            \
		.n_tensors = LNM_N_TENSORS,                                                                \
		.tensors = {                                                                               \
			[LNM_X] = T_ACT("x"),                                                              \
			[LNM_SCALE] = T_PARAM("scale", SITE_EXT_BATCH_VEC, SITE_PARAM_MODULATION, false),  \
			[LNM_SHIFT] = T_PARAM("shift", SITE_EXT_BATCH_VEC, SITE_PARAM_MODULATION, false),  \
			[LNM_WEIGHT] = T_PARAM("weight", SITE_EXT_ROW_VEC, SITE_PARAM_WEIGHT, true),       \
			[LNM_BIAS] = T_PARAM("bias", SITE_EXT_ROW_VEC, SITE_PARAM_BIAS, true),             \
			[LNM_OUT] = T_OUT("out"),                                                          \
			[LNM_MEAN] = T_STAT("mean"),                                                       \
			[LNM_RSTD] = T_STAT("rstd"),                                                       \
			[LNM_LN_OUT] = T_SCRATCH("ln_out", SITE_EXT_FULL),                                 \
			[LNM_SCALE1] = T_SCRATCH("scale1", SITE_EXT_BATCH_VEC),                            \
			[LNM_MOD_MUL] = T_SCRATCH("mod_mul", SITE_EXT_FULL),                               \
		},                                                                                         \
		.n_variants = 3,                                                                           \
		.variants = {                                                                              \
			{ "eager", "LayerNorm, 1 + scale, * (1 + scale), + shift: four launches", true,    \
			  &cpu_ln_modulate_eager, CUDA_ARM(cuda_ln_modulate_eager) },                      \
			{ "fused", "one pass: Welford statistics, then the same three bf16 roundings",    \
			  true, &cpu_ln_modulate_fused, CUDA_ARM(cuda_ln_modulate_fused) },                \
			{ "twopass", "two-pass float mean/variance LayerNorm, then the same modulate",     \
			  false, &cpu_ln_modulate_twopass, NULL },                                         \
		},                                                                                         \
		.geometry = ln_geometry, .reference = reference_ln_modulate,                               \
		.n_eager_launches = 4,                                                                     \
		.eager_io = {                                                                              \
			{ IO3(LNM_X, LNM_WEIGHT, LNM_BIAS), IO3(LNM_LN_OUT, LNM_MEAN, LNM_RSTD) },         \
			{ IO1(LNM_SCALE), IO1(LNM_SCALE1) },                                               \
			{ IO2(LNM_LN_OUT, LNM_SCALE1), IO1(LNM_MOD_MUL) },                                 \
			{ IO2(LNM_MOD_MUL, LNM_SHIFT), IO1(LNM_OUT) },                                     \
		},                                                                                         \
	}

const struct site_desc site_registry[] = {
	LN_MODULATE_SITE("ln_modulate", "adaLN LayerNorm (eps, no affine) then * (1 + scale) + shift"),
	LN_MODULATE_SITE("ln_continuous", "final LayerNorm-continuous: the same chain as ln_modulate"),
	{
		.name = "qk_layernorm",
		.summary = "per-head LayerNorm over head_dim, on q and on k",
		.shape_help = "BxTxHxD, D % 4 == 0, D <= 128",
		.n_tensors = QK_N_TENSORS,
		.tensors = {
			[QK_Q] = T_ACT("q"),
			[QK_K] = T_ACT("k"),
			[QK_WEIGHT] = T_PARAM("weight", SITE_EXT_ROW_VEC, SITE_PARAM_WEIGHT, true),
			[QK_BIAS] = T_PARAM("bias", SITE_EXT_ROW_VEC, SITE_PARAM_BIAS, true),
			[QK_Q_OUT] = T_OUT("q_out"),
			[QK_K_OUT] = T_OUT("k_out"),
			[QK_Q_MEAN] = T_STAT("q_mean"),
			[QK_Q_RSTD] = T_STAT("q_rstd"),
			[QK_K_MEAN] = T_STAT("k_mean"),
			[QK_K_RSTD] = T_STAT("k_rstd"),
		},
		.n_variants = 3,
		.variants = {
			{ "eager", "two LayerNorm launches: q, then k", true, &cpu_qk_layernorm_eager,
			  CUDA_ARM(cuda_qk_layernorm_eager) },
			{ "fused", "one launch normalising q and k", true, &cpu_qk_layernorm_fused,
			  CUDA_ARM(cuda_qk_layernorm_fused) },
			{ "twopass", "two-pass float mean/variance LayerNorm on q and k", false,
			  &cpu_qk_layernorm_twopass, NULL },
		},
		.geometry = qk_geometry,
		.reference = reference_qk_layernorm,
		.n_eager_launches = 2,
		.eager_io = {
			{ IO3(QK_Q, QK_WEIGHT, QK_BIAS), IO3(QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD) },
			{ IO3(QK_K, QK_WEIGHT, QK_BIAS), IO3(QK_K_OUT, QK_K_MEAN, QK_K_RSTD) },
		},
	},
	{
		.name = "residual_gate_add",
		.summary = "feed-forward gate residual: x + ff * gate",
		.shape_help = "BxTxW, W % 4 == 0",
		.n_tensors = RGA_N_TENSORS,
		.tensors = {
			[RGA_X] = T_ACT("x"),
			[RGA_FF] = T_ACT("ff"),
			[RGA_GATE] = T_PARAM("gate", SITE_EXT_BATCH_VEC, SITE_PARAM_MODULATION, false),
			[RGA_OUT] = T_OUT("out"),
			[RGA_FF_GATED] = T_SCRATCH("ff_gated", SITE_EXT_FULL),
		},
		.n_variants = 2,
		.variants = {
			{ "eager", "ff * gate, then x + that: two launches", true, &cpu_residual_gate_add_eager,
			  CUDA_ARM(cuda_residual_gate_add_eager) },
			{ "fused", "one pass, the same two bf16 roundings", true, &cpu_residual_gate_add_fused,
			  CUDA_ARM(cuda_residual_gate_add_fused) },
		},
		.geometry = gate_geometry,
		.reference = reference_residual_gate_add,
		.n_eager_launches = 2,
		.eager_io = {
			{ IO2(RGA_FF, RGA_GATE), IO1(RGA_FF_GATED) },
			{ IO2(RGA_X, RGA_FF_GATED), IO1(RGA_OUT) },
		},
	},
	{ .name = NULL },
};
