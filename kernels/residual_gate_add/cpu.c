/*
 * cpu.c - CPU arms of residual_gate_add: out = x + ff * gate, gate
 * broadcast over tokens.
 *
 * eager: `ff * gate` into the bf16 scratch ff_gated, then `x + ff_gated`:
 *        two passes, as PyTorch's two launches.
 * fused: one pass with the same two per-element ops and roundings.
 */
#include "kernels/common/cpu_target.h"
#include "kernels/common/elementwise.h"
#include "kernels/residual_gate_add/residual_gate_add.h"

#define BF(a, i) ((bf16_t *)(a)->t[i])

static void step_mul_gate(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	elementwise_mul_bcast_pass(BF(a, RGA_FF), BF(a, RGA_GATE), BF(a, RGA_FF_GATED), d->batch, d->tokens,
				   d->width);
}

static void step_add_residual(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	elementwise_add_pass(BF(a, RGA_X), BF(a, RGA_FF_GATED), BF(a, RGA_OUT), d->batch * d->tokens * d->width);
}

CPU_HOT static void fused_row(const bf16_t *x, const bf16_t *ff, const bf16_t *gate, bf16_t *out, int64_t n)
{
	for (int64_t w = 0; w < n; w++)
		out[w] = elementwise_add(x[w], elementwise_mul(ff[w], gate[w]));
}

static void step_fused(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	for (int64_t r = 0; r < d->batch * d->tokens; r++) {
		const int64_t base = r * d->width;
		fused_row(BF(a, RGA_X) + base, BF(a, RGA_FF) + base, BF(a, RGA_GATE) + (r / d->tokens) * d->width,
			  BF(a, RGA_OUT) + base, d->width);
	}
}

const struct site_cpu_impl residual_gate_add_cpu_eager = {
	.n_steps = 2,
	.steps = {
		{ "cpu_elementwise_mul_broadcast", step_mul_gate },
		{ "cpu_elementwise_add", step_add_residual },
	},
};

const struct site_cpu_impl residual_gate_add_cpu_fused = {
	.n_steps = 1,
	.steps = { { "cpu_fused_residual_gate_add", step_fused } },
};
