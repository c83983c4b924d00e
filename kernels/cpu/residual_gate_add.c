/*
 * residual_gate_add.c - CPU arms of residual_gate_add: out = x + ff * gate,
 * gate broadcast over tokens.
 *
 * eager: `ff * gate` into the bf16 scratch ff_gated, then `x + ff_gated`.
 * fused: one pass with the same two per-element ops and roundings.
 */
#include "../site_layout.h"
#include "cpu_arms.h"
#include "elementwise.h"

#define BF(a, i) ((bf16_t *)(a)->t[i])

static void step_mul_gate(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	cpu_ew_mul_bcast_pass(BF(a, RGA_FF), BF(a, RGA_GATE), BF(a, RGA_FF_GATED), d->batch, d->tokens, d->width);
}

static void step_add_residual(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	cpu_ew_add_pass(BF(a, RGA_X), BF(a, RGA_FF_GATED), BF(a, RGA_OUT), d->batch * d->tokens * d->width);
}

static void step_fused(const struct site_args *a)
{
	const struct site_dims *d = &a->dims;
	const bf16_t *x = BF(a, RGA_X), *ff = BF(a, RGA_FF);
	bf16_t *out = BF(a, RGA_OUT);
	for (int64_t r = 0; r < d->batch * d->tokens; r++) {
		const bf16_t *gate = BF(a, RGA_GATE) + (r / d->tokens) * d->width;
		int64_t base = r * d->width;
		for (int64_t w = 0; w < d->width; w++)
			out[base + w] = cpu_ew_add(x[base + w], cpu_ew_mul(ff[base + w], gate[w]));
	}
}

const struct site_cpu_impl cpu_residual_gate_add_eager = {
	.n_steps = 2,
	.steps = {
		{ "cpu_elementwise_mul_broadcast", step_mul_gate },
		{ "cpu_elementwise_add", step_add_residual },
	},
};

const struct site_cpu_impl cpu_residual_gate_add_fused = {
	.n_steps = 1,
	.steps = { { "cpu_fused_residual_gate_add", step_fused } },
};
