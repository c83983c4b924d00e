/*
 * residual_gate_add.h - the residual_gate_add site: out = x + ff * gate,
 * gate [B, W] broadcast over tokens.
 *
 * Everything about the site is in this folder: tensor table, shape rule
 * and variants (site.c), float64 reference (reference.c), CPU arms
 * (cpu.c), CUDA eager chain (cuda_eager.cu), fused kernel and its named
 * tunings (cuda_fused.cu), PyTorch's chain (torch_chain.py). This header
 * is what those files share; kernels/registry.c lists the site.
 */
#ifndef AB_RESIDUAL_GATE_ADD_H
#define AB_RESIDUAL_GATE_ADD_H

#include <stdbool.h>

#include "kernels/common/site.h"

/* The tensor table's order: site_args.t[] is indexed with these. */
enum {
	RGA_X,        /* bf16 [B, T, W] */
	RGA_FF,       /* bf16 [B, T, W] */
	RGA_GATE,     /* bf16 [B, W] */
	RGA_OUT,      /* bf16 [B, T, W] */
	RGA_FF_GATED, /* bf16 [B, T, W] scratch: ff * gate */
	RGA_N_TENSORS
};

#ifdef __cplusplus
extern "C" {
#endif

extern const struct site_desc residual_gate_add_site;

/* Whether the launchers can take a (site.c). */
bool residual_gate_add_args_ok(const struct site_args *a);

void residual_gate_add_reference(const struct site_args *in, int64_t row_lo, int64_t row_hi, double *const *ref,
				 double *const *tol);

extern const struct site_cpu_impl residual_gate_add_cpu_eager;
extern const struct site_cpu_impl residual_gate_add_cpu_fused;

int residual_gate_add_cuda_eager(const struct site_args *a, void *stream);
int residual_gate_add_cuda_fused(const struct site_args *a, void *stream);
int residual_gate_add_cuda_fused_h1(const struct site_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
