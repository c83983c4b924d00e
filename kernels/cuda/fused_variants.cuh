/*
 * fused_variants.cuh - the fused arms with their launch choice forced, for
 * the GPU self-test (tests/gpu/test_cuda_kernels.cu) and for tuning.
 *
 * The public cuda_*_fused functions call these with AB_VARIANT_AUTO; the
 * self-test also runs every forced variant on every shape, checks that its
 * bytes equal the eager arm's, and times the real shapes with each, so that
 * the default can be chosen from measurements (docs/PERF_NOTES.md). Which
 * variant AUTO means is one function per site, at the top of each fused_*.cu
 * (lnf_auto_variant, qkf_auto_variant, rgf_auto_variant).
 * Return values as in cuda_arms.h; a variant that cannot take the shape
 * returns cudaErrorInvalidValue.
 *
 * Every variant is byte-equal to the eager chain by construction
 * (docs/KERNELS.md says why for each); "bf16x2" marks the variants whose
 * modulate / gate roundings use add.rn.bf16x2 and mul.rn.bf16x2 instead of
 * float arithmetic followed by a conversion.
 */
#ifndef AB_FUSED_VARIANTS_CUH
#define AB_FUSED_VARIANTS_CUH

struct site_args;

#define AB_VARIANT_AUTO 0

/* ln_modulate / ln_continuous. "Threads per row" is how many threads hold
 * one row in registers; each plays 128 / that many of the eager kernel's
 * threads. */
enum ab_ln_variant {
	AB_LN_GENERIC = -1, /* any W % 4 == 0: eager statistics, then a second read of the row */
	AB_LN_R1 = 1,       /* 8-byte loads, 128 threads per row, 1 row per block (W % 512 == 0, W <= 8192) */
	AB_LN_R2 = 2,       /* the same, 2 rows per block (W <= 4096) */
	/* The layout kernel's variants below take W = 512 V with V in {6, 8,
	 * 10} (W = 3072, 4096, 5120) and x, scale, shift, out (and weight,
	 * bias when affine) aligned to their load width (8 bytes for r1h and
	 * r1p, else 16); bf16x2 epilogue unless marked fp32. */
	AB_LN_R1H = 3,  /* r1's layout (8-byte loads) */
	AB_LN_H1 = 4,   /* 16-byte loads, 64 threads per row, 1 row per 64-thread block */
	AB_LN_H2 = 5,   /* 16-byte loads, 64 threads per row, 2 rows per 128-thread block */
	AB_LN_H1F = 6,  /* h1 with the fp32 epilogue */
	AB_LN_W1 = 7,   /* 16-byte loads, one warp per row, 1 row per 32-thread block */
	AB_LN_W4 = 8,   /* one warp per row, 4 rows per 128-thread block */
	AB_LN_W1F = 9,  /* w1 with the fp32 epilogue */
	AB_LN_R1P = 10, /* r1's layout, persistent one-wave grid, next row loaded before this row's math */
	AB_LN_H1P = 11, /* h1's layout, persistent, next row prefetched */
};

int ab_ln_modulate_fused_variant(const struct site_args *a, void *stream, int variant);

/* qk_layernorm (D = head_dim, nvec = D / 4). */
enum ab_qk_variant {
	AB_QK_S1 = 1,   /* 8 lanes per row, 8-byte loads, 1 set of 4 rows per warp; nvec % 8 == 0 */
	AB_QK_S2 = 2,   /* the same, 2 sets (8 rows) per warp */
	AB_QK_RT1 = -1, /* s1's layout with run-time counts: any D % 4 == 0, D <= 128 */
	AB_QK_RT2 = -2, /* s2's layout with run-time counts */
	/* 16-byte loads, 10 * L + S: L lanes per row, S sets of 32 / L rows per
	 * warp; nvec % (2 L) == 0, nvec in {8, 16, 24, 32}, 16-byte aligned q,
	 * k, outputs (and weight, bias when affine). */
	AB_QK_X8S2 = 82,
	AB_QK_X8S4 = 84,
	AB_QK_X4S1 = 41,
	AB_QK_X4S2 = 42,
	AB_QK_X2S1 = 21,
};

int ab_qk_layernorm_fused_variant(const struct site_args *a, void *stream, int variant);

/* residual_gate_add: 10 * M + R, R in {1, 2, 4, 8} rows per thread
 * (16-byte vectors when W % 8 == 0 and pointers allow, else 8-byte, else
 * 2-byte); M = 0: float math, one block per R rows of a column chunk;
 * M = 1: bf16x2 math, same grid; M = 2: bf16x2 math, persistent grid of
 * one balanced wave looping over the rows. */
enum ab_rg_variant {
	AB_RG_R1 = 1,
	AB_RG_R2 = 2,
	AB_RG_R4 = 4,
	AB_RG_R8 = 8,
	AB_RG_H1 = 11,
	AB_RG_H2 = 12,
	AB_RG_H4 = 14,
	AB_RG_P2 = 22,
	AB_RG_P4 = 24,
};

int ab_residual_gate_add_fused_variant(const struct site_args *a, void *stream, int variant);

#endif
