/*
 * welford.c - the 128-thread Welford reduction of PyTorch's vectorized
 * LayerNorm, in the same order and with the same roundings (see welford.h).
 *
 * Compiled with -ffp-contract=off: every fused multiply-add below is an
 * explicit fmaf(), every other product and sum is rounded on its own.
 */
#include "kernels/common/welford.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kernels/common/cpu_target.h"

/* The helpers below are inlined into the CPU_HOT row functions, so that
 * they are compiled for the vector target of each clone: a helper left as
 * a call runs the baseline code (and calls libm for every fmaf). */
#define AB_INLINE __attribute__((always_inline))

/*
 * PyTorch:  delta = val - mean; new_count = count + 1.f;
 *           new_mean = mean + delta * (1.f / new_count);
 *           sigma2 + delta * (val - new_mean)
 * nvcc (no fast-math) computes 1.f / new_count as an IEEE division and
 * contracts both updates into FMAs: mean' = fma(delta, r, mean),
 * sigma2' = fma(delta, val - mean', sigma2).
 */
struct welford_state welford_update(struct welford_state w, float v)
{
	float delta = v - w.mean;
	float count = w.count + 1.f;
	float r = 1.f / count;
	float mean = fmaf(delta, r, w.mean);
	float sigma2 = fmaf(delta, v - mean, w.sigma2);
	return (struct welford_state){ mean, sigma2, count };
}

/*
 * PyTorch (dataB = own, dataA = other):
 *   delta = B.mean - A.mean; count = A.count + B.count;
 *   coef = 1.f / count; nA = A.count * coef; nB = B.count * coef;
 *   mean = nA * A.mean + nB * B.mean;
 *   sigma2 = A.sigma2 + B.sigma2 + delta * delta * A.count * nB;
 * Contraction as we read nvcc: mean = fma(nA, A.mean, nB * B.mean);
 * sigma2 = fma((delta * delta) * A.count, nB, A.sigma2 + B.sigma2).
 * An empty pair (count 0) gives mean = sigma2 = 0 with count 0.
 */
static inline AB_INLINE struct welford_state combine(struct welford_state own, struct welford_state other)
{
	float delta = own.mean - other.mean;
	float count = other.count + own.count;
	struct welford_state r = { 0.f, 0.f, count };
	if (count > 0.f) {
		float coef = 1.f / count;
		float na = other.count * coef;
		float nb = own.count * coef;
		r.mean = fmaf(na, other.mean, nb * own.mean);
		r.sigma2 = fmaf(delta * delta * other.count, nb, other.sigma2 + own.sigma2);
	}
	return r;
}

struct welford_state welford_combine(struct welford_state own, struct welford_state other)
{
	return combine(own, other);
}

/*
 * One round of the load loop: threads 0 .. active-1 each fold the 4 values
 * of their vector in chunk (thread t's at chunk[4 t .. 4 t + 3]), in
 * order; the loop over threads is what the compiler vectorizes.
 *
 * The reciprocals 1 / count two ways, the same correctly rounded values:
 *  - run-time counts (aten's kernel): each thread increments its count and
 *    divides, for every value;
 *  - constant counts (the fused kernels, whose counts are compile-time
 *    constants that the compiler folds): every active thread has folded
 *    `done` values before, so the 4 reciprocals are the same for all of
 *    them and are computed once for the round.
 */
#define WELFORD_STEP(x, r)                    \
	do {                                  \
		float delta_ = (x) - m;       \
		m = fmaf(delta_, (r), m);     \
		s = fmaf(delta_, (x) - m, s); \
	} while (0)

static inline AB_INLINE void threads_round_runtime(const bf16_t *restrict chunk, int active, float *restrict mean,
						   float *restrict sigma2, float *restrict count)
{
	for (int t = 0; t < active; t++) {
		const bf16_t *v = chunk + WELFORD_VEC * t;
		float m = mean[t], s = sigma2[t], c = count[t];
		for (int k = 0; k < WELFORD_VEC; k++) {
			c = c + 1.f;
			WELFORD_STEP(bf16_to_float(v[k]), 1.f / c);
		}
		mean[t] = m;
		sigma2[t] = s;
		count[t] = c;
	}
}

static inline AB_INLINE void threads_round_const(const bf16_t *restrict chunk, int active, float done,
						 float *restrict mean, float *restrict sigma2)
{
	const float r0 = 1.f / (done + 1.f), r1 = 1.f / (done + 2.f);
	const float r2 = 1.f / (done + 3.f), r3 = 1.f / (done + 4.f);
	for (int t = 0; t < active; t++) {
		const bf16_t *v = chunk + WELFORD_VEC * t;
		float m = mean[t], s = sigma2[t];
		WELFORD_STEP(bf16_to_float(v[0]), r0);
		WELFORD_STEP(bf16_to_float(v[1]), r1);
		WELFORD_STEP(bf16_to_float(v[2]), r2);
		WELFORD_STEP(bf16_to_float(v[3]), r3);
		mean[t] = m;
		sigma2[t] = s;
	}
}

/* The load loop for threads 0 .. lanes-1 (the others stay empty): vector i
 * belongs to thread i % 128; full rounds of 128 vectors, then the first
 * n_vec % 128 threads take one more. */
static inline AB_INLINE void threads_load(const bf16_t *row, int64_t n, int lanes, bool runtime_counts,
					  struct welford_block *b)
{
	const int64_t n_vec = n / WELFORD_VEC;
	const int64_t full = n_vec / WELFORD_THREADS;
	const int rem = (int)(n_vec % WELFORD_THREADS);
	const int last = rem < lanes ? rem : lanes;
	for (int t = 0; t < lanes; t++) {
		b->mean[t] = 0.f;
		b->sigma2[t] = 0.f;
		b->count[t] = runtime_counts ? 0.f : (float)(WELFORD_VEC * (full + (t < rem)));
	}
	for (int64_t q = 0; q <= full; q++) {
		const bf16_t *chunk = row + q * WELFORD_THREADS * WELFORD_VEC;
		const int active = q < full ? lanes : last;
		if (runtime_counts)
			threads_round_runtime(chunk, active, b->mean, b->sigma2, b->count);
		else
			threads_round_const(chunk, active, (float)(WELFORD_VEC * q), b->mean, b->sigma2);
	}
}

/* v when count > 0, else +0: welford_combine's branch as bit masks, so
 * that the combine of a whole warp level is one straight-line loop body
 * (a float select lets the compiler move the arithmetic under a branch,
 * which then cannot be vectorized). Counts are sums of non-negative
 * integers: count > 0 exactly when its bits are not those of +0. */
static inline AB_INLINE float keep_if_counted(float v, float count)
{
	uint32_t vb, cb;
	memcpy(&vb, &v, sizeof vb);
	memcpy(&cb, &count, sizeof cb);
	vb &= -(uint32_t)(cb != 0);
	memcpy(&v, &vb, sizeof v);
	return v;
}

/* One level of a warp's shuffle-down tree, for the lanes lane 0 depends
 * on: lane i < o combines its state (own) with lane i + o's (other). The
 * two halves never overlap, so all lanes go at once (vectorized). */
static inline AB_INLINE void warp_level(float *restrict mean, float *restrict sigma2, float *restrict count, int o)
{
	for (int i = 0; i < o; i++) {
		float om = mean[i + o], os = sigma2[i + o], oc = count[i + o];
		float delta = mean[i] - om;
		float c = oc + count[i];
		float coef = 1.f / c;
		float na = oc * coef;
		float nb = count[i] * coef;
		float m = fmaf(na, om, nb * mean[i]);
		float s = fmaf(delta * delta * oc, nb, os + sigma2[i]);
		mean[i] = keep_if_counted(m, c);
		sigma2[i] = keep_if_counted(s, c);
		count[i] = c;
	}
}

/*
 * WARP_SHFL_DOWN for offsets 16, 8, 4, 2, 1 then wd = combine(wd, taken).
 * Only lane 0's result is used later, and lane 0 depends, at offset o, only
 * on lanes below 2 * o: so we update lanes 0 .. o-1, each from lane i + o
 * (always inside the warp, never the "own state back" case).
 */
static inline AB_INLINE struct welford_state warp_fold(struct welford_block *b, int w)
{
	float *mean = b->mean + w * WELFORD_WARP, *sigma2 = b->sigma2 + w * WELFORD_WARP;
	float *count = b->count + w * WELFORD_WARP;
	warp_level(mean, sigma2, count, 16); /* constant offsets: each level a fixed-size loop */
	warp_level(mean, sigma2, count, 8);
	warp_level(mean, sigma2, count, 4);
	warp_level(mean, sigma2, count, 2);
	warp_level(mean, sigma2, count, 1);
	return (struct welford_state){ mean[0], sigma2[0], count[0] };
}

/* Shared-memory fold of blockDim.y = 4 warps: offset 2 then 1; warps y in
 * [offset, 2 * offset) publish, warp y < offset combines published[y].
 * Only the first `busy` warps run their trees; the others are empty. */
static inline AB_INLINE struct welford_state block_fold(struct welford_block *b, int busy)
{
	struct welford_state wd[WELFORD_WARPS];
	for (int y = 0; y < WELFORD_WARPS; y++)
		wd[y] = y < busy ? warp_fold(b, y) : (struct welford_state){ 0.f, 0.f, 0.f };
	for (int off = WELFORD_WARPS / 2; off > 0; off /= 2)
		for (int y = 0; y < off; y++)
			wd[y] = combine(wd[y], wd[y + off]);
	return wd[0];
}

void welford_threads(const bf16_t *row, int64_t n, struct welford_block *b)
{
	threads_load(row, n, WELFORD_THREADS, true, b);
}

struct welford_state welford_fold(struct welford_block *b)
{
	return block_fold(b, WELFORD_WARPS);
}

/* The hot paths: everything above inlined into each, compiled with the
 * vector and FMA instructions where the CPU has them (cpu_target.h). */
CPU_HOT void welford_row(const bf16_t *row, int64_t n, float *mean, float *var)
{
	struct welford_block b;
	threads_load(row, n, WELFORD_THREADS, true, &b);
	struct welford_state wd = block_fold(&b, WELFORD_WARPS);
	*mean = wd.mean;
	*var = wd.sigma2 / (float)n;
}

/* Constant counts; warps 0 .. busy-1 hold data (warp y does when its lane
 * 0 owns a vector), the others are the empty state. */
CPU_HOT void welford_row_fused(const bf16_t *row, int64_t n, float *mean, float *var)
{
	const int64_t n_vec = n / WELFORD_VEC;
	const int busy = n_vec >= WELFORD_THREADS ? WELFORD_WARPS : (int)((n_vec + WELFORD_WARP - 1) / WELFORD_WARP);
	struct welford_block b;
	threads_load(row, n, busy * WELFORD_WARP, false, &b);
	struct welford_state wd = block_fold(&b, busy);
	*mean = wd.mean;
	*var = wd.sigma2 / (float)n;
}
