/*
 * elementwise.c - whole-tensor passes of the elementwise ops (the eager
 * chain's separate launches). Compiled with -ffp-contract=off; each loop
 * is a plain loop over elements that the compiler vectorizes (CPU_HOT), as
 * the fused arms' loops are, so that eager and fused arms are compiled
 * equally well and differ only in the passes over memory they make.
 */
#include "kernels/common/elementwise.h"

#include "kernels/common/cpu_target.h"

CPU_HOT void elementwise_add_one_pass(const bf16_t *in, bf16_t *out, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = elementwise_add_one(in[i]);
}

CPU_HOT void elementwise_add_pass(const bf16_t *a, const bf16_t *b, bf16_t *out, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = elementwise_add(a[i], b[i]);
}

/*
 * out[b, t, w] = op(full[b, t, w], vec[b * width + w]): the broadcast loop
 * of both bcast passes. Always inlined, so that op is a constant in each
 * and the compiler emits the same loop as when it was written out twice.
 */
static inline __attribute__((always_inline)) void bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out,
							      int64_t batch, int64_t tokens, int64_t width,
							      bf16_t (*op)(bf16_t, bf16_t))
{
	for (int64_t bi = 0; bi < batch; bi++) {
		const bf16_t *v = vec + bi * width;
		for (int64_t t = 0; t < tokens; t++) {
			int64_t base = (bi * tokens + t) * width;
			for (int64_t w = 0; w < width; w++)
				out[base + w] = op(full[base + w], v[w]);
		}
	}
}

CPU_HOT void elementwise_mul_bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out, int64_t batch,
					int64_t tokens, int64_t width)
{
	bcast_pass(full, vec, out, batch, tokens, width, elementwise_mul);
}

CPU_HOT void elementwise_add_bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out, int64_t batch,
					int64_t tokens, int64_t width)
{
	bcast_pass(full, vec, out, batch, tokens, width, elementwise_add);
}
