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

/* A tensor's shape, its site's axes (indices into site_desc.axes, each
 * site.c names them in an enum) outermost first: SITE_SHAPE(AX_B, AX_W). */
#define SITE_SHAPE(...) { .rank = (int)sizeof((uint8_t[]){ __VA_ARGS__ }), .axis = { __VA_ARGS__ } }

/* Tensor-table entries of shape sh (SITE_SHAPE): a bf16 activation, a bf16
 * parameter, a bf16 output, a float32 per-row statistic, a bf16 scratch
 * intermediate of the eager chain. */
#define SITE_T_ACT(nm, sh) { .name = nm, .role = SITE_IN_ACT, .dtype = SITE_BF16, .shape = sh }
#define SITE_T_PARAM(nm, sh, dist, aff) \
	{ .name = nm, .role = SITE_IN_PARAM, .dtype = SITE_BF16, .shape = sh, .param = dist, .affine_only = aff }
#define SITE_T_OUT(nm, sh) { .name = nm, .role = SITE_OUT, .dtype = SITE_BF16, .shape = sh }
#define SITE_T_STAT(nm, sh) { .name = nm, .role = SITE_AUX, .dtype = SITE_F32, .shape = sh }
#define SITE_T_SCRATCH(nm, sh) { .name = nm, .role = SITE_SCRATCH, .dtype = SITE_BF16, .shape = sh }

/* Writes the reason into err (when err and len allow) and returns false. */
__attribute__((format(printf, 3, 4)))
bool site_rules_fail(char *err, size_t len, const char *fmt, ...);

/* The element count of the shape, or -1 past SITE_MAX_ELEMS. */
int64_t site_rules_elems(const struct site_shape *s);

/* The rule of the [B, T, W] sites: rank 3, W % 4 == 0 (the vectorized
 * paths load 4 bf16 at a time), W <= max_w when max_w > 0, at most
 * SITE_MAX_ELEMS elements; row_len = W, rows = B * T, heads = 1, and the
 * three axis values. */
bool site_rules_btw(const struct site_shape *s, struct site_dims *d, int64_t max_w, char *err, size_t len);

/* Whether every tensor the case needs is present (affine-only tensors
 * only when a->affine): the launchers' cheap re-check of what the shape
 * rule promised, so that a bad site_args is an error code, never a wild
 * kernel. */
bool site_rules_tensors_present(const struct site_desc *s, const struct site_args *a);

#endif
