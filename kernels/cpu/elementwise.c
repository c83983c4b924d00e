/*
 * elementwise.c - whole-tensor passes of the elementwise ops (the eager
 * chain's separate launches). Compiled with -ffp-contract=off.
 */
#include "elementwise.h"

void cpu_ew_add_one_pass(const bf16_t *in, bf16_t *out, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = cpu_ew_add_one(in[i]);
}

void cpu_ew_add_pass(const bf16_t *a, const bf16_t *b, bf16_t *out, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = cpu_ew_add(a[i], b[i]);
}

void cpu_ew_mul_bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out, int64_t batch, int64_t tokens,
			   int64_t width)
{
	for (int64_t bi = 0; bi < batch; bi++) {
		const bf16_t *v = vec + bi * width;
		for (int64_t t = 0; t < tokens; t++) {
			int64_t base = (bi * tokens + t) * width;
			for (int64_t w = 0; w < width; w++)
				out[base + w] = cpu_ew_mul(full[base + w], v[w]);
		}
	}
}

void cpu_ew_add_bcast_pass(const bf16_t *full, const bf16_t *vec, bf16_t *out, int64_t batch, int64_t tokens,
			   int64_t width)
{
	for (int64_t bi = 0; bi < batch; bi++) {
		const bf16_t *v = vec + bi * width;
		for (int64_t t = 0; t < tokens; t++) {
			int64_t base = (bi * tokens + t) * width;
			for (int64_t w = 0; w < width; w++)
				out[base + w] = cpu_ew_add(full[base + w], v[w]);
		}
	}
}
