/*
 * cpu_arms.h - the CPU backend's implementation of every site variant.
 *
 * Each object is an ordered list of steps (site_cpu_step), each step one
 * separately timed "kernel" that reads and writes the tensors of a
 * site_args laid out as in site_layout.h. registry.c points the variants at
 * these. The eager lists materialise every bf16 intermediate the framework
 * does; the fused lists are one pass computing the same bytes.
 */
#ifndef AB_CPU_ARMS_H
#define AB_CPU_ARMS_H

#include "../site.h"

/* ln_modulate and ln_continuous share these. */
extern const struct site_cpu_impl cpu_ln_modulate_eager;
extern const struct site_cpu_impl cpu_ln_modulate_fused;
extern const struct site_cpu_impl cpu_ln_modulate_twopass;

extern const struct site_cpu_impl cpu_qk_layernorm_eager;
extern const struct site_cpu_impl cpu_qk_layernorm_fused;
extern const struct site_cpu_impl cpu_qk_layernorm_twopass;

extern const struct site_cpu_impl cpu_residual_gate_add_eager;
extern const struct site_cpu_impl cpu_residual_gate_add_fused;

#endif
