/*
 * welford.h - PyTorch's LayerNorm statistics, emulated bit for bit in float.
 *
 * vectorized_layer_norm_kernel<BFloat16, float> (layer_norm_kernel.cu,
 * compute_stats) reduces a row with one block of 128 threads (32 x 4): each
 * thread folds its values into a Welford state (cuWelfordOnlineSum), the
 * states are combined down each warp with shuffles and then across the
 * warps through shared memory (cuWelfordCombine). Float addition is not
 * associative, so the CPU reproduces that exact tree, thread by thread; its
 * means are bit-equal to the GPU's (docs/PERF_NOTES.md, session 1).
 *
 * The two per-value operations are one small function each, because the
 * fused multiply-adds in them are our reading of what nvcc contracts,
 * confirmed against the GPU: if it disagreed, only these two would change.
 *
 * The row functions keep the 128 threads' states as arrays (one per field)
 * and advance all threads one value at a time, so that the compiler turns
 * each step into vector instructions across threads: every thread still
 * sees its own values in its own order, and every operation is the same
 * IEEE operation on the same operands (no reassociation anywhere).
 *
 * Two row functions, one per kind of GPU kernel they stand for, each doing
 * the work its kernel does:
 *   welford_row        aten's kernel: run-time counts (every thread adds
 *                      one to its count and divides, for every value), and
 *                      the shuffle tree of all four warps, whether they
 *                      hold data or not;
 *   welford_row_fused  the fused kernels: the counts are compile-time
 *                      constants there, so the reciprocals of one round are
 *                      computed once for all threads (the same correctly
 *                      rounded values); and a warp whose lanes hold no data
 *                      is the empty state (0, 0, 0) without its tree being
 *                      run. That is exact, not a shortcut: combining two
 *                      empty states gives count 0 and so (+0, +0, 0), the
 *                      empty state itself, at every level. For n >= 388
 *                      every warp holds data; for the qk heads (n <= 128)
 *                      only warp 0 does, as in the fused qk kernel.
 * Both give the same bits for every row (tests/unit/test_welford.c).
 */
#ifndef AB_WELFORD_H
#define AB_WELFORD_H

#include <stdint.h>

#include "kernels/common/bf16.h"

#define WELFORD_THREADS 128 /* block (32, 4) */
#define WELFORD_WARP 32
#define WELFORD_WARPS (WELFORD_THREADS / WELFORD_WARP)
#define WELFORD_VEC 4 /* bf16 values per 8-byte load */

struct welford_state {
	float mean;
	float sigma2; /* sum of squared deviations, not yet divided by N */
	float count;
};

/* cuWelfordOnlineSum: folds value v into w. */
struct welford_state welford_update(struct welford_state w, float v);

/* cuWelfordCombine(dataB = own, dataA = other), e.g. own = this lane's
 * state, other = the state shuffled down from lane + offset. */
struct welford_state welford_combine(struct welford_state own, struct welford_state other);

/* The block's 128 thread states, one array per field. */
struct welford_block {
	float mean[WELFORD_THREADS];
	float sigma2[WELFORD_THREADS];
	float count[WELFORD_THREADS];
};

/* Per-thread states after the load loop: thread t folds the 4-element
 * vectors t, t + 128, ... of the row, each vector's values in order.
 * n % 4 == 0. */
void welford_threads(const bf16_t *row, int64_t n, struct welford_block *b);

/* The warp shuffle folds then the shared-memory fold of the 4 warps; returns
 * the state lane 0 of warp 0 ends with. b is clobbered. */
struct welford_state welford_fold(struct welford_block *b);

/* The row's mean and variance (sigma2 / float(n), a correctly rounded
 * division) exactly as compute_stats publishes them. n % 4 == 0, n > 0. */
void welford_row(const bf16_t *row, int64_t n, float *mean, float *var);

/* The same bits, with the work of the fused kernels (see the top). */
void welford_row_fused(const bf16_t *row, int64_t n, float *mean, float *var);

#endif
