/*
 * ln_modulate.c - CPU arms of ln_modulate and ln_continuous:
 * out = LayerNorm(x) * (1 + scale) + shift, scale and shift broadcast over
 * tokens (ATEN_CHAIN.md).
 *
 * eager:   four steps that materialise ln_out, scale1 and mod_mul in bf16,
 *          as PyTorch's four launches do.
 * fused:   one pass per row; the same statistics function and the same
 *          per-element ops, so the output bytes equal eager's.
 * twopass: two-pass float statistics, then the eager modulate steps.
 */
#include <stdbool.h>

#include "../site_layout.h"
#include "cpu_arms.h"
#include "cpu_target.h"
#include "elementwise.h"
#include "layernorm.h"

#define BF(a, i) ((bf16_t *)(a)->t[i])
#define F32(a, i) ((float *)(a)->t[i])

static void ln_step(const struct site_args *a, bool twopass)
{
	const struct site_dims *d = &a->dims;
	cpu_ln_forward(BF(a, LNM_X), BF(a, LNM_LN_OUT), F32(a, LNM_MEAN), F32(a, LNM_RSTD), d->rows, d->row_len,
		       a->eps, a->affine ? BF(a, LNM_WEIGHT) : NULL, a->affine ? BF(a, LNM_BIAS) : NULL, twopass);
}

static void step_layernorm(const struct site_args *a)
{
	ln_step(a, false);
}

static void step_layernorm_twopass(const struct site_args *a)
{
	ln_step(a, true);
}

static void step_add_one(const struct site_args *a)
{
	cpu_ew_add_one_pass(BF(a, LNM_SCALE), BF(a, LNM_SCALE1), a->dims.batch * a->dims.width);
}

static void step_mul_scale1(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	cpu_ew_mul_bcast_pass(BF(a, LNM_LN_OUT), BF(a, LNM_SCALE1), BF(a, LNM_MOD_MUL), d->batch, d->tokens, d->width);
}

static void step_add_shift(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	cpu_ew_add_bcast_pass(BF(a, LNM_MOD_MUL), BF(a, LNM_SHIFT), BF(a, LNM_OUT), d->batch, d->tokens, d->width);
}

/* One row of the fused arm: statistics, then per element the three bf16
 * roundings of the eager chain (LayerNorm output, * (1 + scale), + shift). */
CPU_HOT static void fused_row(const struct site_args *a, int64_t r)
{
	const int64_t n = a->dims.row_len;
	const int64_t b = r / a->dims.tokens;
	const bf16_t *x = BF(a, LNM_X) + r * n;
	const bf16_t *scale = BF(a, LNM_SCALE) + b * n;
	const bf16_t *shift = BF(a, LNM_SHIFT) + b * n;
	const bf16_t *w = a->affine ? BF(a, LNM_WEIGHT) : NULL;
	const bf16_t *bias = a->affine ? BF(a, LNM_BIAS) : NULL;
	bf16_t *out = BF(a, LNM_OUT) + r * n;
	struct cpu_ln_stats st = cpu_ln_stats_welford(x, n, a->eps);
	for (int64_t j = 0; j < n; j++) {
		bf16_t y = cpu_ln_elem(bf16_to_float(x[j]), st, w, bias, j);
		bf16_t z = cpu_ew_mul(y, cpu_ew_add_one(scale[j]));
		out[j] = cpu_ew_add(z, shift[j]);
	}
}

static void step_fused(const struct site_args *a)
{
	for (int64_t r = 0; r < a->dims.rows; r++)
		fused_row(a, r);
}

const struct site_cpu_impl cpu_ln_modulate_eager = {
	.n_steps = 4,
	.steps = {
		{ "cpu_vectorized_layer_norm_kernel", step_layernorm },
		{ "cpu_elementwise_add_one", step_add_one },
		{ "cpu_elementwise_mul_broadcast", step_mul_scale1 },
		{ "cpu_elementwise_add_broadcast", step_add_shift },
	},
};

const struct site_cpu_impl cpu_ln_modulate_fused = {
	.n_steps = 1,
	.steps = { { "cpu_fused_ln_modulate", step_fused } },
};

const struct site_cpu_impl cpu_ln_modulate_twopass = {
	.n_steps = 4,
	.steps = {
		{ "cpu_layer_norm_two_pass", step_layernorm_twopass },
		{ "cpu_elementwise_add_one", step_add_one },
		{ "cpu_elementwise_mul_broadcast", step_mul_scale1 },
		{ "cpu_elementwise_add_broadcast", step_add_shift },
	},
};
