/*
 * site_layout.h - the tensor index of every site, shared by its kernels.
 *
 * site_desc.tensors in registry.c lists each site's tensors in exactly this
 * order; the CPU steps, the CUDA launchers and the float64 references index
 * site_args.t[] with these names instead of bare numbers, so that the order
 * is written down once.
 */
#ifndef AB_SITE_LAYOUT_H
#define AB_SITE_LAYOUT_H

/* ln_modulate and ln_continuous: LayerNorm, then (1 + scale) and shift. */
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

/* qk_layernorm: one LayerNorm over head_dim, applied to q and to k. */
enum {
	QK_Q,       /* bf16 [B, T, H, D] */
	QK_K,       /* bf16 [B, T, H, D] */
	QK_WEIGHT,  /* bf16 [D], affine only */
	QK_BIAS,    /* bf16 [D], affine only */
	QK_Q_OUT,   /* bf16 [B, T, H, D] */
	QK_K_OUT,   /* bf16 [B, T, H, D] */
	QK_Q_MEAN,  /* f32 [B*T*H] */
	QK_Q_RSTD,
	QK_K_MEAN,
	QK_K_RSTD,
	QK_N_TENSORS
};

/* residual_gate_add: out = x + ff * gate. */
enum {
	RGA_X,        /* bf16 [B, T, W] */
	RGA_FF,       /* bf16 [B, T, W] */
	RGA_GATE,     /* bf16 [B, W] */
	RGA_OUT,      /* bf16 [B, T, W] */
	RGA_FF_GATED, /* bf16 [B, T, W] scratch: ff * gate */
	RGA_N_TENSORS
};

#endif
