/*
 * site_rules.h - what every site folder uses to describe itself: shape
 * rules shared by several sites, the tensor-table shorthands, and the
 * variant-table shorthands (SITE_CPU, SITE_CUDA: the latter leaves CUDA
 * launchers out of a build without nvcc).
 *
 * A site's site.c defines its struct site_desc with these; nothing here
 * knows any particular site.
 */
#ifndef AB_SITE_RULES_H
#define AB_SITE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/site.h"

/* Elements per tensor: far beyond any real case, and keeps every size
 * product (bytes included) away from int64 overflow. */
#define SITE_MAX_ELEMS ((int64_t)1 << 36)

/* A variant's code for one backend, an entry of site_variant.impls:
 * SITE_CPU(impl) files a struct site_cpu_impl (its type checked) under
 * "cpu"; SITE_CUDA(fn) a launcher under "cuda", or an empty entry in a
 * build without nvcc (the .cu files are then not compiled). */
#define SITE_CPU(impl) { SITE_IMPL_CPU, 1 ? &(impl) : (const struct site_cpu_impl *)NULL }
#if AB_HAVE_CUDA
#define SITE_CUDA(fn) { SITE_IMPL_CUDA, &(const struct site_cuda_impl){ (fn) } }
#else
#define SITE_CUDA(fn) { NULL, NULL }
#endif

/* Tensor-table entries: an activation, a parameter, an output, a float32
 * per-row statistic, a scratch intermediate of the eager chain. */
#define SITE_T_ACT(nm) { .name = nm, .role = SITE_IN_ACT, .dtype = SITE_BF16, .extent = SITE_EXT_FULL }
#define SITE_T_PARAM(nm, ext, dist, aff) \
	{ .name = nm, .role = SITE_IN_PARAM, .dtype = SITE_BF16, .extent = ext, .param = dist, .affine_only = aff }
#define SITE_T_OUT(nm) { .name = nm, .role = SITE_OUT, .dtype = SITE_BF16, .extent = SITE_EXT_FULL }
#define SITE_T_STAT(nm) { .name = nm, .role = SITE_AUX, .dtype = SITE_F32, .extent = SITE_EXT_ROWS }
#define SITE_T_SCRATCH(nm, ext) { .name = nm, .role = SITE_SCRATCH, .dtype = SITE_BF16, .extent = ext }

/* Writes the reason into err (when err and len allow) and returns false. */
__attribute__((format(printf, 3, 4)))
bool site_rules_fail(char *err, size_t len, const char *fmt, ...);

/* The element count of the shape, or -1 past SITE_MAX_ELEMS. */
int64_t site_rules_elems(const struct site_shape *s);

/* The rule of the [B, T, W] sites: rank 3, W % 4 == 0 (the vectorized
 * paths load 4 bf16 at a time), W <= max_w when max_w > 0, at most
 * SITE_MAX_ELEMS elements; row_len = W, rows = B * T, heads = 1. */
bool site_rules_btw(const struct site_shape *s, struct site_dims *d, int64_t max_w, char *err, size_t len);

/* Whether every tensor the case needs is present (affine-only tensors
 * only when a->affine): the launchers' cheap re-check of what the shape
 * rule promised, so that a bad site_args is an error code, never a wild
 * kernel. */
bool site_rules_tensors_present(const struct site_desc *s, const struct site_args *a);

#endif
