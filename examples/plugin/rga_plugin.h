/*
 * rga_plugin.h - what the C and CUDA halves of the example plugin share:
 * the tensors of residual_gate_add, looked up by name, and the CUDA
 * functions (rga_plugin_cuda.cu).
 */
#ifndef RGA_PLUGIN_H
#define RGA_PLUGIN_H

#include <stdint.h>

#include "abbench/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rga_view {
	const uint16_t *x, *ff, *gate; /* bf16 [B*T, W], [B*T, W], [B, W] */
	uint16_t *out;                 /* bf16 [B*T, W] */
	int64_t rows, tokens, width;
};

/* Fills v from the call, or fails (ABBENCH_ERR_UNSUPPORTED) naming the
 * tensor the site lacks. */
int rga_tensors(const struct abbench_call *call, struct rga_view *v);

int rga_exact_cuda(const struct abbench_call *call);
int rga_inexact_cuda(const struct abbench_call *call);

#ifdef __cplusplus
}
#endif

#endif
