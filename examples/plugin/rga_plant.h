/*
 * rga_plant.h - what the C and CUDA halves of the planting plugin share
 * (rga_plant.c, rga_plant_cuda.cu): the tensors of one residual_gate_add
 * call, looked up by name, and how many bytes a plant of P percent reads.
 *
 * A plant of P% is an extra read of P% of the bytes the kernel moves
 * anyway (x, ff and gate read, out written: 2 x (3 x M x W + B x W) bytes
 * of bf16), taken from the site's scratch tensor ff_gated, which no other
 * arm reads during the slot and abbench poisons (0xFF bytes) before it.
 * On a bandwidth-bound kernel that is P% more DRAM traffic, hence about P%
 * more time; scripts/aa_check.sh measures what it really is.
 */
#ifndef RGA_PLANT_H
#define RGA_PLANT_H

#include <stdint.h>

#include "abbench/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The word the sink compares the read bytes' fold with; it stores
 * only on equality, which the poisoned scratch never gives (its fold is
 * 0), so the extra read costs its traffic and writes nothing. The compare
 * keeps the compiler from dropping the loads. */
#define RGA_PLANT_MAGIC 0x2B5A6C1Du

/* The extra read is done in 16-byte words (a uint4 on the GPU). */
#define RGA_PLANT_WORD 16

struct rga_plant_view {
	const uint16_t *x, *ff, *gate; /* bf16 [M, W], [M, W], [B, W] */
	uint16_t *out;                 /* bf16 [M, W] */
	uint16_t *sink;                /* ff_gated, bf16 [M, W]: the extra bytes come from here */
	int64_t rows, tokens, width;
	int64_t extra_words;           /* RGA_PLANT_WORD-byte words to read from sink */
};

/* Fills v for a plant of pct percent, or fails: a tensor the site lacks,
 * or a plant larger than the scratch tensor (ABBENCH_ERR_UNSUPPORTED). */
int rga_plant_view(const struct abbench_call *call, int pct, struct rga_plant_view *v);

/* Queues the exact kernel with the plant's extra read on call->stream. */
int rga_plant_cuda(const struct abbench_call *call, int pct);

#ifdef __cplusplus
}
#endif

#endif
