/*
 * welford.c - the 128-thread Welford reduction of PyTorch's vectorized
 * LayerNorm, in the same order and with the same roundings (see welford.h).
 *
 * Compiled with -ffp-contract=off: every fused multiply-add below is an
 * explicit fmaf(), every other product and sum is rounded on its own.
 */
#include "welford.h"

#include <math.h>

#include "cpu_target.h"

/*
 * PyTorch:  delta = val - mean; new_count = count + 1.f;
 *           new_mean = mean + delta * (1.f / new_count);
 *           sigma2 + delta * (val - new_mean)
 * nvcc (no fast-math) computes 1.f / new_count as an IEEE division and
 * contracts both updates into FMAs: mean' = fma(delta, r, mean),
 * sigma2' = fma(delta, val - mean', sigma2).
 */
static inline struct cpu_welford welford_update(struct cpu_welford w, float v)
{
	float delta = v - w.mean;
	float count = w.count + 1.f;
	float r = 1.f / count;
	float mean = fmaf(delta, r, w.mean);
	float sigma2 = fmaf(delta, v - mean, w.sigma2);
	return (struct cpu_welford){ mean, sigma2, count };
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
static inline struct cpu_welford welford_combine(struct cpu_welford own, struct cpu_welford other)
{
	float delta = own.mean - other.mean;
	float count = other.count + own.count;
	struct cpu_welford r = { 0.f, 0.f, count };
	if (count > 0.f) {
		float coef = 1.f / count;
		float na = other.count * coef;
		float nb = own.count * coef;
		r.mean = fmaf(na, other.mean, nb * own.mean);
		r.sigma2 = fmaf(delta * delta * other.count, nb, other.sigma2 + own.sigma2);
	}
	return r;
}

struct cpu_welford cpu_welford_update(struct cpu_welford w, float v)
{
	return welford_update(w, v);
}

struct cpu_welford cpu_welford_combine(struct cpu_welford own, struct cpu_welford other)
{
	return welford_combine(own, other);
}

/* Walks the row once, vector by vector: vector i belongs to thread i % 128,
 * and each thread sees its vectors in increasing order, as in the kernel's
 * strided loop, while the CPU reads memory sequentially. */
static inline void welford_threads(const bf16_t *row, int64_t n, struct cpu_welford th[CPU_WELFORD_THREADS])
{
	int64_t n_vec = n / CPU_WELFORD_VEC;
	for (int t = 0; t < CPU_WELFORD_THREADS; t++)
		th[t] = (struct cpu_welford){ 0.f, 0.f, 0.f };
	for (int64_t i = 0; i < n_vec; i++) {
		struct cpu_welford *w = &th[i % CPU_WELFORD_THREADS];
		const bf16_t *v = row + i * CPU_WELFORD_VEC;
		for (int k = 0; k < CPU_WELFORD_VEC; k++)
			*w = welford_update(*w, bf16_to_float(v[k]));
	}
}

/*
 * WARP_SHFL_DOWN for offsets 16, 8, 4, 2, 1 then wd = combine(wd, taken).
 * Only lane 0's result is used later, and lane 0 depends, at offset o, only
 * on lanes below 2 * o: so we update lanes 0 .. o-1, each from lane i + o
 * (always inside the warp, never the "own state back" case), in increasing
 * order so that lane i + o still holds its value from the previous offset.
 */
static inline struct cpu_welford warp_fold(struct cpu_welford *lane)
{
	for (int o = CPU_WELFORD_WARP / 2; o > 0; o /= 2)
		for (int i = 0; i < o; i++)
			lane[i] = welford_combine(lane[i], lane[i + o]);
	return lane[0];
}

/* Shared-memory fold of blockDim.y = 4 warps: offset 2 then 1; warps y in
 * [offset, 2 * offset) publish, warp y < offset combines published[y]. */
static inline struct cpu_welford welford_fold(struct cpu_welford th[CPU_WELFORD_THREADS])
{
	enum { WARPS = CPU_WELFORD_THREADS / CPU_WELFORD_WARP };
	struct cpu_welford wd[WARPS];
	for (int y = 0; y < WARPS; y++)
		wd[y] = warp_fold(th + y * CPU_WELFORD_WARP);
	for (int off = WARPS / 2; off > 0; off /= 2)
		for (int y = 0; y < off; y++)
			wd[y] = welford_combine(wd[y], wd[y + off]);
	return wd[0];
}

void cpu_welford_threads(const bf16_t *row, int64_t n, struct cpu_welford th[CPU_WELFORD_THREADS])
{
	welford_threads(row, n, th);
}

struct cpu_welford cpu_welford_fold(struct cpu_welford th[CPU_WELFORD_THREADS])
{
	return welford_fold(th);
}

/* The hot path: everything above inlined into one function, compiled with
 * the FMA instruction where the CPU has it (cpu_target.h). */
CPU_HOT void cpu_welford_row(const bf16_t *row, int64_t n, float *mean, float *var)
{
	struct cpu_welford th[CPU_WELFORD_THREADS];
	welford_threads(row, n, th);
	struct cpu_welford wd = welford_fold(th);
	*mean = wd.mean;
	*var = wd.sigma2 / (float)n;
}
