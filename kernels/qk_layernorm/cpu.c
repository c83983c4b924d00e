/*
 * cpu.c - CPU arms of qk_layernorm: the same LayerNorm over head_dim
 * applied to q and to k (rows of D = dims.row_len).
 *
 * eager:   two LayerNorm steps (q, then k), each writing its mean/rstd,
 *          each reducing a head as the eager kernel does: a 128-thread
 *          block whose four warps all run their shuffle trees, although
 *          for D <= 128 only warp 0 holds data.
 * fused:   one step, head by head q then k, reducing as the fused kernel
 *          does: only the lanes that hold data, the empty warps entering
 *          the last combines as (0, 0, 0) (welford.h: the same bits), then
 *          the normalisation while the head is in cache.
 * twopass: two steps with two-pass float statistics.
 */
#include "kernels/common/cpu_target.h"
#include "kernels/common/layernorm.h"
#include "kernels/qk_layernorm/qk_layernorm.h"

#define BF(a, i) ((bf16_t *)(a)->t[i])
#define F32(a, i) ((float *)(a)->t[i])

static void ln_tensor(const struct site_args *a, int in, int out, int mean, int rstd, enum layernorm_method method)
{
	const struct site_dims *d = &a->dims;
	layernorm_forward(BF(a, in), BF(a, out), F32(a, mean), F32(a, rstd), d->rows, d->row_len, a->eps,
			  a->affine ? BF(a, QK_WEIGHT) : NULL, a->affine ? BF(a, QK_BIAS) : NULL, method);
}

static void step_q(const struct site_args *a)
{
	ln_tensor(a, QK_Q, QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD, LAYERNORM_EAGER);
}

static void step_k(const struct site_args *a)
{
	ln_tensor(a, QK_K, QK_K_OUT, QK_K_MEAN, QK_K_RSTD, LAYERNORM_EAGER);
}

static void step_q_twopass(const struct site_args *a)
{
	ln_tensor(a, QK_Q, QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD, LAYERNORM_TWOPASS);
}

static void step_k_twopass(const struct site_args *a)
{
	ln_tensor(a, QK_K, QK_K_OUT, QK_K_MEAN, QK_K_RSTD, LAYERNORM_TWOPASS);
}

static void fused_head(const bf16_t *x, bf16_t *out, int64_t n, const struct site_args *a)
{
	const bf16_t *w = a->affine ? BF(a, QK_WEIGHT) : NULL;
	const bf16_t *b = a->affine ? BF(a, QK_BIAS) : NULL;
	layernorm_row(x, out, n, layernorm_stats(x, n, a->eps, LAYERNORM_FUSED), w, b);
}

static void step_fused(const struct site_args *a)
{
	const int64_t n = a->dims.row_len;
	for (int64_t r = 0; r < a->dims.rows; r++) {
		fused_head(BF(a, QK_Q) + r * n, BF(a, QK_Q_OUT) + r * n, n, a);
		fused_head(BF(a, QK_K) + r * n, BF(a, QK_K_OUT) + r * n, n, a);
	}
}

const struct site_cpu_impl qk_layernorm_cpu_eager = {
	.n_steps = 2,
	.steps = {
		{ "cpu_vectorized_layer_norm_kernel", step_q },
		{ "cpu_vectorized_layer_norm_kernel", step_k },
	},
};

const struct site_cpu_impl qk_layernorm_cpu_fused = {
	.n_steps = 1,
	.steps = { { "cpu_fused_qk_layernorm", step_fused } },
};

const struct site_cpu_impl qk_layernorm_cpu_twopass = {
	.n_steps = 2,
	.steps = {
		{ "cpu_layer_norm_two_pass", step_q_twopass },
		{ "cpu_layer_norm_two_pass", step_k_twopass },
	},
};
