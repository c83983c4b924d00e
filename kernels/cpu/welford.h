/*
 * welford.h - PyTorch's LayerNorm statistics, emulated bit for bit in float.
 *
 * vectorized_layer_norm_kernel<BFloat16, float> (layer_norm_kernel.cu,
 * compute_stats) reduces a row with one block of 128 threads (32 x 4): each
 * thread folds its values into a Welford state (cuWelfordOnlineSum), the
 * states are combined down each warp with shuffles and then across the
 * warps through shared memory (cuWelfordCombine). Float addition is not
 * associative, so the CPU reproduces that exact tree, thread by thread.
 *
 * The two per-value operations are one small function each, because the
 * fused multiply-adds in them are our reading of what nvcc contracts, to be
 * confirmed against the GPU: if it disagrees, only these two change.
 */
#ifndef AB_CPU_WELFORD_H
#define AB_CPU_WELFORD_H

#include <stdint.h>

#include "../bf16.h"

#define CPU_WELFORD_THREADS 128 /* block (32, 4) */
#define CPU_WELFORD_WARP 32
#define CPU_WELFORD_VEC 4       /* bf16 values per 8-byte load */

struct cpu_welford {
	float mean;
	float sigma2; /* sum of squared deviations, not yet divided by N */
	float count;
};

/* cuWelfordOnlineSum: folds value v into w. */
struct cpu_welford cpu_welford_update(struct cpu_welford w, float v);

/* cuWelfordCombine(dataB = own, dataA = other), e.g. own = this lane's
 * state, other = the state shuffled down from lane + offset. */
struct cpu_welford cpu_welford_combine(struct cpu_welford own, struct cpu_welford other);

/* Per-thread states after the load loop: thread t folds the 4-element
 * vectors t, t + 128, ... of the row, each vector's values in order.
 * n % 4 == 0. */
void cpu_welford_threads(const bf16_t *row, int64_t n, struct cpu_welford th[CPU_WELFORD_THREADS]);

/* The warp shuffle folds then the shared-memory fold of the 4 warps; returns
 * the state lane 0 of warp 0 ends with. th is clobbered. */
struct cpu_welford cpu_welford_fold(struct cpu_welford th[CPU_WELFORD_THREADS]);

/* The row's mean and variance (sigma2 / float(n), a correctly rounded
 * division) exactly as compute_stats publishes them. n % 4 == 0, n > 0. */
void cpu_welford_row(const bf16_t *row, int64_t n, float *mean, float *var);

#endif
