/*
 * declared_plugin.h - what the C and CUDA halves of the declared-site
 * example plugin share (declared_plugin.c): the tensors of
 * modulate_scale_shift (scenarios/sites/modulate_scale_shift.ini), found
 * by name with their shapes, and the CUDA functions
 * (declared_plugin_cuda.cu).
 */
#ifndef DECLARED_PLUGIN_H
#define DECLARED_PLUGIN_H

#include <stdint.h>

#include "abbench/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* modulate_scale_shift's tensors: x and out [B, T, W], scale and shift
 * [B, W]; the eager chain's intermediates s1 = bf16(1 + scale) [B, W] and
 * mul = bf16(x * s1) [B, T, W] (NULL when the arm does not use them). */
struct mss_view {
	const uint16_t *x, *scale, *shift;
	uint16_t *out, *s1, *mul;
	int64_t batch, tokens, width;
};

/* Fills v from the call (the axes B, T, W and the tensors by name), or
 * fails naming what the site lacks; eager asks for s1 and mul too. */
int mss_tensors(const struct abbench_call *call, int eager, struct mss_view *v);

int mss_eager_cuda(const struct abbench_call *call);
int mss_fused_cuda(const struct abbench_call *call);
int mss_inexact_cuda(const struct abbench_call *call);

#ifdef __cplusplus
}
#endif

#endif
