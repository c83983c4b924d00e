/*
 * eager_arms.cu - the eager arm of every site: PyTorch's chain of launches
 * (ATEN_CHAIN.md), each intermediate materialised in the site's scratch
 * tensors exactly as the framework materialises it.
 *
 *   ln_modulate / ln_continuous: LayerNorm -> ln_out (+ mean, rstd);
 *       1 + scale -> scale1; ln_out * scale1 -> mod_mul; mod_mul + shift -> out
 *   qk_layernorm: LayerNorm(q) -> q_out; LayerNorm(k) -> k_out
 *   residual_gate_add: ff * gate -> ff_gated; x + ff_gated -> out
 *
 * The launch order is Python's evaluation order of the model's expression.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_arms.h"
#include "eager_ops.cuh"
#include "launch_util.cuh"
#include "site_check.cuh"

static const uint16_t *in_bf16(const struct site_args *a, int i)
{
	return static_cast<const uint16_t *>(a->t[i]);
}

static uint16_t *out_bf16(const struct site_args *a, int i)
{
	return static_cast<uint16_t *>(a->t[i]);
}

static float *out_f32(const struct site_args *a, int i)
{
	return static_cast<float *>(a->t[i]);
}

extern "C" int cuda_ln_modulate_eager(const struct site_args *a, void *stream)
{
	if (!ab_ln_site_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	int rc = ab_eager_layer_norm(in_bf16(a, LNM_X), a->affine ? in_bf16(a, LNM_WEIGHT) : nullptr,
				     a->affine ? in_bf16(a, LNM_BIAS) : nullptr, out_bf16(a, LNM_LN_OUT),
				     out_f32(a, LNM_MEAN), out_f32(a, LNM_RSTD), d.rows, d.row_len, a->eps, s);
	if (rc == 0)
		rc = ab_eager_add_one(in_bf16(a, LNM_SCALE), out_bf16(a, LNM_SCALE1), d.batch * d.width, s);
	if (rc == 0)
		rc = ab_eager_bcast_mul(in_bf16(a, LNM_LN_OUT), in_bf16(a, LNM_SCALE1), out_bf16(a, LNM_MOD_MUL),
					d.batch, d.tokens, d.width, s);
	if (rc == 0)
		rc = ab_eager_bcast_add(in_bf16(a, LNM_MOD_MUL), in_bf16(a, LNM_SHIFT), out_bf16(a, LNM_OUT), d.batch,
					d.tokens, d.width, s);
	return rc != 0 ? rc : (int)cudaGetLastError();
}

extern "C" int cuda_qk_layernorm_eager(const struct site_args *a, void *stream)
{
	if (!ab_qk_site_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	const uint16_t *w = a->affine ? in_bf16(a, QK_WEIGHT) : nullptr;
	const uint16_t *b = a->affine ? in_bf16(a, QK_BIAS) : nullptr;
	int rc = ab_eager_layer_norm(in_bf16(a, QK_Q), w, b, out_bf16(a, QK_Q_OUT), out_f32(a, QK_Q_MEAN),
				     out_f32(a, QK_Q_RSTD), d.rows, d.row_len, a->eps, s);
	if (rc == 0)
		rc = ab_eager_layer_norm(in_bf16(a, QK_K), w, b, out_bf16(a, QK_K_OUT), out_f32(a, QK_K_MEAN),
					 out_f32(a, QK_K_RSTD), d.rows, d.row_len, a->eps, s);
	return rc != 0 ? rc : (int)cudaGetLastError();
}

extern "C" int cuda_residual_gate_add_eager(const struct site_args *a, void *stream)
{
	if (!ab_gate_site_ok(a))
		return ab_invalid();
	const struct site_dims &d = a->dims;
	const cudaStream_t s = static_cast<cudaStream_t>(stream);
	int rc = ab_eager_bcast_mul(in_bf16(a, RGA_FF), in_bf16(a, RGA_GATE), out_bf16(a, RGA_FF_GATED), d.batch,
				    d.tokens, d.width, s);
	if (rc == 0)
		rc = ab_eager_add(in_bf16(a, RGA_X), in_bf16(a, RGA_FF_GATED), out_bf16(a, RGA_OUT),
				  d.batch * d.tokens * d.width, s);
	return rc != 0 ? rc : (int)cudaGetLastError();
}
