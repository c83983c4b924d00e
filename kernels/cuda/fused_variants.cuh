/*
 * fused_variants.cuh - the fused arms with their launch choice forced, for
 * the GPU self-test (tests/gpu/test_cuda_kernels.cu) and for tuning.
 *
 * The public cuda_*_fused functions call these with AB_VARIANT_AUTO; the
 * self-test also runs every forced variant on every shape, checks that its
 * bytes equal the eager arm's, and times the real shapes with each, so that
 * the default can be chosen from measurements (docs/PERF_NOTES.md).
 * Return values as in cuda_arms.h; a variant that cannot take the shape
 * returns cudaErrorInvalidValue.
 */
#ifndef AB_FUSED_VARIANTS_CUH
#define AB_FUSED_VARIANTS_CUH

struct site_args;

#define AB_VARIANT_AUTO 0

/* ln_modulate / ln_continuous:
 *   1, 2  the register-resident kernel (W % 512 == 0, W <= 8192; 2 rows per
 *         block needs W <= 4096), with that many rows per 128-thread block
 *   -1    the generic kernel (any W % 4 == 0), one row per block, two reads */
int ab_ln_modulate_fused_variant(const struct site_args *a, void *stream, int variant);

/* qk_layernorm:
 *   1, 2  row sets of 4 rows (one per 8 lanes) per warp, compile-time
 *         counts (D in {32, 64, 96, 128})
 *   -1, -2  the same layouts with run-time counts (any D % 4 == 0, D <= 128) */
int ab_qk_layernorm_fused_variant(const struct site_args *a, void *stream, int variant);

/* residual_gate_add: 1, 2, 4, 8 rows per thread (16-byte vectors when
 * W % 8 == 0 and pointers allow, else 8-byte, else 2-byte). */
int ab_residual_gate_add_fused_variant(const struct site_args *a, void *stream, int variant);

#endif
