/*
 * cuda_arms.h - the CUDA arms of every site, callable from C.
 *
 * One launch function per site and variant (site_cuda_launch_fn in
 * site.h). Each reads and writes the DEVICE tensors a->t[] laid out as in
 * site_layout.h, only queues work on stream (a cudaStream_t passed as
 * void *): no allocation, no synchronisation. It returns cudaGetLastError()
 * after its launches as an int (0 = success), or cudaErrorInvalidValue (1)
 * without launching anything when the geometry or a pointer does not fit
 * the kernels (a size that breaks the site's shape rule, a missing tensor,
 * a pointer not aligned to 8 bytes).
 *
 * The eager arms reproduce PyTorch 2.11's launches for the same chain
 * (ATEN_CHAIN.md) byte for byte; the fused arms are one launch each and
 * byte-equal to the eager arms. docs/KERNELS.md describes every kernel.
 */
#ifndef AB_CUDA_ARMS_H
#define AB_CUDA_ARMS_H

#ifdef __cplusplus
extern "C" {
#endif

struct site_args;

/* ln_modulate and ln_continuous (the same chain). */
int cuda_ln_modulate_eager(const struct site_args *a, void *stream);
int cuda_ln_modulate_fused(const struct site_args *a, void *stream);

int cuda_qk_layernorm_eager(const struct site_args *a, void *stream);
int cuda_qk_layernorm_fused(const struct site_args *a, void *stream);

int cuda_residual_gate_add_eager(const struct site_args *a, void *stream);
int cuda_residual_gate_add_fused(const struct site_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
