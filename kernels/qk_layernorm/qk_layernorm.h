/*
 * qk_layernorm.h - the qk_layernorm site: one LayerNorm over head_dim
 * applied to q and to k ([B, T, H, D] each; rows of D = dims.row_len).
 *
 * Everything about the site is in this folder: tensor table, shape rule
 * and variants (site.c), float64 reference (reference.c), CPU arms
 * (cpu.c), CUDA eager chain (cuda_eager.cu), fused kernels and their named
 * tunings (cuda_fused.cu), PyTorch's chain (torch_chain.py). This header
 * is what those files share; kernels/registry.c lists the site.
 */
#ifndef AB_QK_LAYERNORM_H
#define AB_QK_LAYERNORM_H

#include <stdbool.h>

#include "kernels/common/site.h"

/* The tensor table's order: site_args.t[] is indexed with these. */
enum {
	QK_Q,      /* bf16 [B, T, H, D] */
	QK_K,      /* bf16 [B, T, H, D] */
	QK_WEIGHT, /* bf16 [D], affine only */
	QK_BIAS,   /* bf16 [D], affine only */
	QK_Q_OUT,  /* bf16 [B, T, H, D] */
	QK_K_OUT,  /* bf16 [B, T, H, D] */
	QK_Q_MEAN, /* f32 [B*T*H] */
	QK_Q_RSTD,
	QK_K_MEAN,
	QK_K_RSTD,
	QK_N_TENSORS
};

/* The fused kernels normalise a head with at most one warp's lanes. */
#define QK_MAX_HEAD_DIM 128

#ifdef __cplusplus
extern "C" {
#endif

extern const struct site_desc qk_layernorm_site;

/* Whether the launchers can take a (site.c). */
bool qk_layernorm_args_ok(const struct site_args *a);

void qk_layernorm_reference(const struct site_args *in, int64_t row_lo, int64_t row_hi, double *const *ref,
			    double *const *tol);

extern const struct site_cpu_impl qk_layernorm_cpu_eager;
extern const struct site_cpu_impl qk_layernorm_cpu_fused;
extern const struct site_cpu_impl qk_layernorm_cpu_twopass;

int qk_layernorm_cuda_eager(const struct site_args *a, void *stream);
int qk_layernorm_cuda_fused(const struct site_args *a, void *stream);
int qk_layernorm_cuda_fused_x8s2d(const struct site_args *a, void *stream);
int qk_layernorm_cuda_fused_s2(const struct site_args *a, void *stream);
int qk_layernorm_cuda_fused_rt2(const struct site_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
