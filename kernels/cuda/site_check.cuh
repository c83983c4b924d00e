/*
 * site_check.cuh - the geometry and tensor checks every CUDA arm of a site
 * makes before it launches anything.
 *
 * registry.c's geometry rules already guarantee these for shapes parsed by
 * the harness; the launch functions re-check them (cheaply, on the host)
 * so that a bad site_args is an error code, never a wild kernel.
 */
#ifndef AB_SITE_CHECK_CUH
#define AB_SITE_CHECK_CUH

#include <stdint.h>

#include "../site.h"
#include "../site_layout.h"

static inline bool ab_btw_ok(const struct site_dims &d)
{
	return d.batch > 0 && d.tokens > 0 && d.width > 0 && d.width % 4 == 0 && d.rows == d.batch * d.tokens;
}

/* ln_modulate / ln_continuous: rows of W, W % 4 == 0, W <= 65536; every
 * tensor present (weight and bias only when affine). */
static inline bool ab_ln_site_ok(const struct site_args *a)
{
	const struct site_dims &d = a->dims;
	if (!ab_btw_ok(d) || d.row_len != d.width || d.width > 65536)
		return false;
	for (int i = 0; i < LNM_N_TENSORS; i++) {
		const bool affine_only = (i == LNM_WEIGHT || i == LNM_BIAS);
		if (a->t[i] == nullptr && (!affine_only || a->affine))
			return false;
	}
	return true;
}

/* qk_layernorm: rows of D = row_len (D % 4 == 0, D <= 128), W = H * D. */
static inline bool ab_qk_site_ok(const struct site_args *a)
{
	const struct site_dims &d = a->dims;
	const int64_t D = d.row_len;
	if (d.batch <= 0 || d.tokens <= 0 || d.heads <= 0 || D <= 0 || D % 4 != 0 || D > 128)
		return false;
	if (d.width != d.heads * D || d.rows != d.batch * d.tokens * d.heads)
		return false;
	for (int i = 0; i < QK_N_TENSORS; i++) {
		const bool affine_only = (i == QK_WEIGHT || i == QK_BIAS);
		if (a->t[i] == nullptr && (!affine_only || a->affine))
			return false;
	}
	return true;
}

/* residual_gate_add: [B, T, W], W % 4 == 0, gate [B, W]. */
static inline bool ab_gate_site_ok(const struct site_args *a)
{
	if (!ab_btw_ok(a->dims))
		return false;
	for (int i = 0; i < RGA_N_TENSORS; i++)
		if (a->t[i] == nullptr)
			return false;
	return true;
}

#endif
