/*
 * ln_modulate.h - the ln_modulate site (and ln_continuous, the same chain):
 * out = LayerNorm(x) * (1 + scale) + shift, scale and shift broadcast over
 * tokens (ATEN_CHAIN.md).
 *
 * Everything about the site is in this folder: the tensor table, shape rule
 * and variant list (site.c), the float64 reference (reference.c), the CPU
 * arms (cpu.c), the CUDA eager chain (cuda_eager.cu), the fused kernels and
 * their named tunings (cuda_fused.cu), and PyTorch's chain for the oracle
 * and timing scripts (torch_chain.py). This header is what those files
 * share; kernels/registry.c lists the two site_descs.
 */
#ifndef AB_LN_MODULATE_H
#define AB_LN_MODULATE_H

#include <stdbool.h>

#include "kernels/common/site.h"

/* The tensor table's order: site_args.t[] is indexed with these. */
enum {
	LNM_X,       /* bf16 [B, T, W] input activation */
	LNM_SCALE,   /* bf16 [B, W] */
	LNM_SHIFT,   /* bf16 [B, W] */
	LNM_WEIGHT,  /* bf16 [W], affine only */
	LNM_BIAS,    /* bf16 [W], affine only */
	LNM_OUT,     /* bf16 [B, T, W] */
	LNM_MEAN,    /* f32 [rows] */
	LNM_RSTD,    /* f32 [rows] */
	LNM_LN_OUT,  /* bf16 [B, T, W] scratch: the LayerNorm's output */
	LNM_SCALE1,  /* bf16 [B, W] scratch: 1 + scale */
	LNM_MOD_MUL, /* bf16 [B, T, W] scratch: ln_out * scale1 */
	LNM_N_TENSORS
};

#ifdef __cplusplus
extern "C" {
#endif

extern const struct site_desc ln_modulate_site;
extern const struct site_desc ln_continuous_site;

/* Whether the launchers can take a: the shape rule's geometry and every
 * tensor the case needs present (site.c). */
bool ln_modulate_args_ok(const struct site_args *a);

/* site_desc.reference (reference.c). */
void ln_modulate_reference(const struct site_args *in, int64_t row_lo, int64_t row_hi, double *const *ref,
			   double *const *tol);

/* CPU arms (cpu.c). */
extern const struct site_cpu_impl ln_modulate_cpu_eager;
extern const struct site_cpu_impl ln_modulate_cpu_fused;
extern const struct site_cpu_impl ln_modulate_cpu_twopass;

/* CUDA arms (site_cuda_launch_fn): the eager chain (cuda_eager.cu); the
 * fused arm, i.e. the measured winner with its fallbacks, and each named
 * tuning forced (cuda_fused.cu). */
int ln_modulate_cuda_eager(const struct site_args *a, void *stream);
int ln_modulate_cuda_fused(const struct site_args *a, void *stream);
int ln_modulate_cuda_fused_pf8(const struct site_args *a, void *stream);
int ln_modulate_cuda_fused_r1(const struct site_args *a, void *stream);
int ln_modulate_cuda_fused_generic(const struct site_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
