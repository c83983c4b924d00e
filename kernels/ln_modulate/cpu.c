/*
 * cpu.c - CPU arms of ln_modulate and ln_continuous:
 * out = LayerNorm(x) * (1 + scale) + shift, scale and shift broadcast over
 * tokens (ATEN_CHAIN.md).
 *
 * eager:   four steps that materialise ln_out, scale1 and mod_mul in bf16,
 *          as PyTorch's four launches do: four passes over the activation.
 * fused:   one pass, as the fused kernel makes: per row the statistics (the
 *          128-thread reduction, which the fused kernel reproduces), then the
 *          three roundings per element while the row is still in cache; no
 *          intermediate tensor. The same statistics and per-element
 *          functions as eager, so the output bytes equal eager's.
 * twopass: two-pass float statistics, then the eager modulate steps.
 */
#include "kernels/common/cpu_target.h"
#include "kernels/common/elementwise.h"
#include "kernels/common/layernorm.h"
#include "kernels/ln_modulate/ln_modulate.h"

#define BF(a, i) ((bf16_t *)(a)->t[i])
#define F32(a, i) ((float *)(a)->t[i])

static void ln_step(const struct site_args *a, enum layernorm_method method)
{
	const struct site_dims *d = &a->dims;
	layernorm_forward(BF(a, LNM_X), BF(a, LNM_LN_OUT), F32(a, LNM_MEAN), F32(a, LNM_RSTD), d->rows, d->row_len,
			  a->eps, a->affine ? BF(a, LNM_WEIGHT) : NULL, a->affine ? BF(a, LNM_BIAS) : NULL, method);
}

static void step_layernorm(const struct site_args *a)
{
	ln_step(a, LAYERNORM_EAGER);
}

static void step_layernorm_twopass(const struct site_args *a)
{
	ln_step(a, LAYERNORM_TWOPASS);
}

static void step_add_one(const struct site_args *a)
{
	elementwise_add_one_pass(BF(a, LNM_SCALE), BF(a, LNM_SCALE1), a->dims.batch * a->dims.width);
}

static void step_mul_scale1(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	elementwise_mul_bcast_pass(BF(a, LNM_LN_OUT), BF(a, LNM_SCALE1), BF(a, LNM_MOD_MUL), d->batch, d->tokens,
				   d->width);
}

static void step_add_shift(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	elementwise_add_bcast_pass(BF(a, LNM_MOD_MUL), BF(a, LNM_SHIFT), BF(a, LNM_OUT), d->batch, d->tokens,
				   d->width);
}

/* The epilogue of one row: per element the three bf16 roundings of the
 * eager chain (LayerNorm output, * (1 + scale), + shift). w == NULL: no
 * affine; the two cases are two loops so that each vectorizes. */
CPU_HOT static void fused_epilogue(const bf16_t *x, const bf16_t *scale, const bf16_t *shift, const bf16_t *w,
				   const bf16_t *bias, bf16_t *out, int64_t n, struct layernorm_stats st)
{
	if (w) {
		for (int64_t j = 0; j < n; j++) {
			bf16_t y = layernorm_elem(bf16_to_float(x[j]), st, w, bias, j);
			out[j] = elementwise_add(elementwise_mul(y, elementwise_add_one(scale[j])), shift[j]);
		}
	} else {
		for (int64_t j = 0; j < n; j++) {
			bf16_t y = layernorm_elem(bf16_to_float(x[j]), st, NULL, NULL, j);
			out[j] = elementwise_add(elementwise_mul(y, elementwise_add_one(scale[j])), shift[j]);
		}
	}
}

static void step_fused(const struct site_args *a)
{
	const int64_t n = a->dims.row_len;
	const bf16_t *w = a->affine ? BF(a, LNM_WEIGHT) : NULL;
	const bf16_t *bias = a->affine ? BF(a, LNM_BIAS) : NULL;
	for (int64_t r = 0; r < a->dims.rows; r++) {
		const int64_t b = r / a->dims.tokens;
		const bf16_t *x = BF(a, LNM_X) + r * n;
		struct layernorm_stats st = layernorm_stats(x, n, a->eps, LAYERNORM_FUSED);
		fused_epilogue(x, BF(a, LNM_SCALE) + b * n, BF(a, LNM_SHIFT) + b * n, w, bias, BF(a, LNM_OUT) + r * n, n,
			       st);
	}
}

const struct site_cpu_impl ln_modulate_cpu_eager = {
	.n_steps = 4,
	.steps = {
		{ "cpu_vectorized_layer_norm_kernel", step_layernorm },
		{ "cpu_elementwise_add_one", step_add_one },
		{ "cpu_elementwise_mul_broadcast", step_mul_scale1 },
		{ "cpu_elementwise_add_broadcast", step_add_shift },
	},
};

const struct site_cpu_impl ln_modulate_cpu_fused = {
	.n_steps = 1,
	.steps = { { "cpu_fused_ln_modulate", step_fused } },
};

const struct site_cpu_impl ln_modulate_cpu_twopass = {
	.n_steps = 4,
	.steps = {
		{ "cpu_layer_norm_two_pass", step_layernorm_twopass },
		{ "cpu_elementwise_add_one", step_add_one },
		{ "cpu_elementwise_mul_broadcast", step_mul_scale1 },
		{ "cpu_elementwise_add_broadcast", step_add_shift },
	},
};
