/*
 * cpu.c - CPU arms of ln_modulate and ln_continuous:
 * out = LayerNorm(x) * (1 + scale) + shift, scale and shift broadcast over
 * tokens (ATEN_CHAIN.md).
 *
 * eager:   four steps that materialise ln_out, scale1 and mod_mul in bf16,
 *          as PyTorch's four launches do: four passes over the activation.
 * fused:   one pass, as the fused kernel makes: per block of rows the
 *          statistics (the 128-thread reduction with the fused kernels'
 *          constant counts, welford.h), then the three roundings per
 *          element while the rows are still in cache, 1 + scale computed
 *          once for the block; no intermediate tensor. The same per-element
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

/* Rows of one batch that share each chunk's 1 + scale (as the GPU kernels
 * share it between the rows of a block), and the chunk's width. A block's
 * rows (8 x W bf16, 64 KB at W = 4096) stay in cache between their
 * statistics and their epilogue: x is read from memory once. */
#define FUSED_ROWS 8
#define FUSED_CHUNK 512

/* s1[j] = bf16(scale[j] + 1) for a chunk: the eager `1 + scale`. */
CPU_HOT static void fused_scale1(const bf16_t *scale, bf16_t *s1, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		s1[j] = elementwise_add_one(scale[j]);
}

/* The epilogue of one row's chunk: per element the three bf16 roundings of
 * the eager chain (LayerNorm output, * (1 + scale), + shift); w and bias
 * point at the chunk's columns (NULL: no affine; two loops, so that each
 * vectorizes). */
CPU_HOT static void fused_epilogue(const bf16_t *x, const bf16_t *s1, const bf16_t *shift, const bf16_t *w,
				   const bf16_t *bias, bf16_t *out, int64_t n, struct layernorm_stats st)
{
	if (w) {
		for (int64_t j = 0; j < n; j++) {
			bf16_t y = layernorm_elem(bf16_to_float(x[j]), st, w, bias, j);
			out[j] = elementwise_add(elementwise_mul(y, s1[j]), shift[j]);
		}
	} else {
		for (int64_t j = 0; j < n; j++) {
			bf16_t y = layernorm_elem(bf16_to_float(x[j]), st, NULL, NULL, j);
			out[j] = elementwise_add(elementwise_mul(y, s1[j]), shift[j]);
		}
	}
}

/* Rows t0 .. t0 + nr - 1 of batch b: statistics, then chunk by chunk the
 * chunk's 1 + scale and the epilogue of every row. */
static void fused_block(const struct site_args *a, int64_t b, int64_t t0, int64_t nr)
{
	const int64_t n = a->dims.row_len;
	const bf16_t *scale = BF(a, LNM_SCALE) + b * n, *shift = BF(a, LNM_SHIFT) + b * n;
	const bf16_t *w = a->affine ? BF(a, LNM_WEIGHT) : NULL, *bias = a->affine ? BF(a, LNM_BIAS) : NULL;
	const int64_t r0 = b * a->dims.tokens + t0;
	struct layernorm_stats st[FUSED_ROWS];
	for (int64_t r = 0; r < nr; r++)
		st[r] = layernorm_stats(BF(a, LNM_X) + (r0 + r) * n, n, a->eps, LAYERNORM_FUSED);
	bf16_t s1[FUSED_CHUNK];
	for (int64_t c = 0; c < n; c += FUSED_CHUNK) {
		const int64_t cn = n - c < FUSED_CHUNK ? n - c : FUSED_CHUNK;
		fused_scale1(scale + c, s1, cn);
		for (int64_t r = 0; r < nr; r++)
			fused_epilogue(BF(a, LNM_X) + (r0 + r) * n + c, s1, shift + c, w ? w + c : NULL,
				       bias ? bias + c : NULL, BF(a, LNM_OUT) + (r0 + r) * n + c, cn, st[r]);
	}
}

static void step_fused(const struct site_args *a)
{
	for (int64_t b = 0; b < a->dims.batch; b++)
		for (int64_t t = 0; t < a->dims.tokens; t += FUSED_ROWS)
			fused_block(a, b, t, a->dims.tokens - t < FUSED_ROWS ? a->dims.tokens - t : FUSED_ROWS);
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
