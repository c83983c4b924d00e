/*
 * qk_layernorm.c - CPU arms of qk_layernorm: the same LayerNorm over
 * head_dim applied to q and to k (rows of D = dims.row_len).
 *
 * eager:   two LayerNorm steps (q, then k), each writing its mean/rstd.
 * fused:   one step, row by row q then k, with the same statistics and
 *          element functions, so the bytes equal eager's.
 * twopass: two steps with two-pass float statistics.
 */
#include <stdbool.h>

#include "../site_layout.h"
#include "cpu_arms.h"
#include "cpu_target.h"
#include "layernorm.h"

#define BF(a, i) ((bf16_t *)(a)->t[i])
#define F32(a, i) ((float *)(a)->t[i])

static void ln_tensor(const struct site_args *a, int in, int out, int mean, int rstd, bool twopass)
{
	const struct site_dims *d = &a->dims;
	cpu_ln_forward(BF(a, in), BF(a, out), F32(a, mean), F32(a, rstd), d->rows, d->row_len, a->eps,
		       a->affine ? BF(a, QK_WEIGHT) : NULL, a->affine ? BF(a, QK_BIAS) : NULL, twopass);
}

static void step_q(const struct site_args *a)
{
	ln_tensor(a, QK_Q, QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD, false);
}

static void step_k(const struct site_args *a)
{
	ln_tensor(a, QK_K, QK_K_OUT, QK_K_MEAN, QK_K_RSTD, false);
}

static void step_q_twopass(const struct site_args *a)
{
	ln_tensor(a, QK_Q, QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD, true);
}

static void step_k_twopass(const struct site_args *a)
{
	ln_tensor(a, QK_K, QK_K_OUT, QK_K_MEAN, QK_K_RSTD, true);
}

CPU_HOT static void fused_row(const bf16_t *x, bf16_t *out, int64_t n, const struct site_args *a)
{
	const bf16_t *w = a->affine ? BF(a, QK_WEIGHT) : NULL;
	const bf16_t *b = a->affine ? BF(a, QK_BIAS) : NULL;
	struct cpu_ln_stats st = cpu_ln_stats_welford(x, n, a->eps);
	for (int64_t j = 0; j < n; j++)
		out[j] = cpu_ln_elem(bf16_to_float(x[j]), st, w, b, j);
}

static void step_fused(const struct site_args *a)
{
	const int64_t n = a->dims.row_len;
	for (int64_t r = 0; r < a->dims.rows; r++) {
		fused_row(BF(a, QK_Q) + r * n, BF(a, QK_Q_OUT) + r * n, n, a);
		fused_row(BF(a, QK_K) + r * n, BF(a, QK_K_OUT) + r * n, n, a);
	}
}

const struct site_cpu_impl cpu_qk_layernorm_eager = {
	.n_steps = 2,
	.steps = {
		{ "cpu_vectorized_layer_norm_kernel", step_q },
		{ "cpu_vectorized_layer_norm_kernel", step_k },
	},
};

const struct site_cpu_impl cpu_qk_layernorm_fused = {
	.n_steps = 1,
	.steps = { { "cpu_fused_qk_layernorm", step_fused } },
};

const struct site_cpu_impl cpu_qk_layernorm_twopass = {
	.n_steps = 2,
	.steps = {
		{ "cpu_layer_norm_two_pass", step_q_twopass },
		{ "cpu_layer_norm_two_pass", step_k_twopass },
	},
};
