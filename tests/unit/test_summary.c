/*
 * test_summary.c - the summary layer: known samples in, known figures out.
 *
 * The hand-built case "x" (ABA, count 3; the run has 2 forwards per step
 * and 5 steps) has
 *   A1 = 100 110 120 130 140, A2 = 150 160 170 180 190, B = 40 50 60 70 80
 * so, by type-7 quantiles worked out by hand:
 *   pooled A: 10 values 100..190; median (140 + 150) / 2 = 145, p10 at
 *             h = 0.9: 109, p90 at h = 8.1: 181
 *   B:        median 60, p10 at h = 0.4: 44, p90 at h = 3.6: 76
 *   speedup   145 / 60; drift |170 - 120| / 120 = 5 / 12
 *   per forward A 3 x 145 = 435, B 180, saving 255; per step x 2:
 *   870, 360, 510; per image x 5: 4350, 1800, 2550; saving 510 / 870
 * Bandwidth: with bytes_a = 2900, bytes_b = 1200, bytes_min = 600 and a
 *   measured copy of 40 GB/s: A 2900 / 145 = 20 GB/s = 50%, B 1200 / 60 =
 *   20 GB/s = 50%, the floor 600 / 40 = 15 ns; slot B 1200 / 60 again, slot
 *   A1 2900 / 120. The pooled A median's 95% interval: 10 values, ranks 2
 *   and 9 (stats.h), so [110, 180]; B's five values give none.
 * Intervals: constant samples give the point itself at both bounds; for
 * "x" the bounds must be those of stats_speedup_ci at the summary's one set
 * of constants (0.95, 2000 resamples, seed "abbe" = 0x61626265, the seed
 * report, compare and gate always used), and bracket the point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/summary.h"
#include "common/stats.h"
#include "fixtures.h"

static const double A1[] = { 100, 110, 120, 130, 140 };
static const double A2[] = { 150, 160, 170, 180, 190 };
static const double B[] = { 40, 50, 60, 70, 80 };

/* Replaces a slot's samples by x[0..n) and recomputes its stored figures. */
static void set_samples(struct results_slot *s, const double *x, int n)
{
	free(s->samples_ns);
	free(s->kernel_ns);
	s->samples_ns = calloc((size_t)n + 1, sizeof *s->samples_ns);
	s->kernel_ns = calloc((size_t)n + 1, sizeof *s->kernel_ns);
	assert_non_null(s->samples_ns);
	assert_non_null(s->kernel_ns);
	memcpy(s->samples_ns, x, (size_t)n * sizeof *x);
	s->n_samples = n;
	fake_slot_stats(s);
}

/* Run 1 of scenario "s": case "x" as in the header, case "y" (count 1)
 * with constant samples A = 300, B = 100. */
static struct results_run *known_run(void)
{
	const struct fake_case fc[] = { { "x", 100, 50, 5, true }, { "y", 300, 100, 4, true } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 2);
	struct results_case *x = &r->cases[0], *y = &r->cases[1];
	set_samples(&x->slots[0], A1, 5);
	set_samples(&x->slots[1], B, 5);
	set_samples(&x->slots[2], A2, 5);
	x->count = 3;
	for (int s = 0; s < 3; s++) {
		double v[4];
		for (int i = 0; i < 4; i++)
			v[i] = s == 1 ? 100 : 300;
		set_samples(&y->slots[s], v, 4);
	}
	r->forwards_per_step = 2;
	r->steps = 5;
	return r;
}

static void near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want))))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* The copy floor measured per case: each arm's median over it, B's kernel
 * median over the floor's, its own GB/s and % of copy; not measured (NAN,
 * or 0 in a case never filled) gives NAN everywhere. A cache-resident case
 * (its bytes fit the device's cache) keeps its floor and ratios but, as
 * its arms, no % of copy. */
static void test_copy_floor(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	struct results_case *x = &r->cases[0];
	x->copy_floor_ns = 40;
	x->copy_floor_kernel_ns = 30;
	x->bytes_min = 400;
	r->device.copy_gbps = 5;
	for (int i = 0; i < 5; i++)
		x->slots[1].kernel_ns[i] = B[i] - 15; /* B's kernel median: 45 */
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_case *sx = &S->cases[0], *sy = &S->cases[1];
	near(sx->copy_floor_ns, 40);
	near(sx->a_over_copy, 145.0 / 40);
	near(sx->b_over_copy, 60.0 / 40);
	near(sx->b.kernel_median_ns, 45);
	near(sx->b_kernel_over_copy, 45.0 / 30);
	near(sx->a_kernel_over_copy, 0.9 * 145 / 30); /* fake_slot_stats: A's kernel times are 0.9 of its samples */
	near(sx->copy_floor_bw.gbps, 10);  /* 400 bytes in 40 ns */
	near(sx->copy_floor_bw.pct_copy, 200);
	assert_false(sx->cache_resident); /* no cache size known */
	assert_true(isnan(sy->copy_floor_ns) && isnan(sy->a_over_copy) && isnan(sy->b_over_copy));
	assert_true(isnan(sy->b_kernel_over_copy) && isnan(sy->a_kernel_over_copy));
	fx_summary_free(S);
	r->device.l2_bytes = 400; /* x's 400 bytes fit */
	S = fx_summary(r, SUMMARY_NO_INTERVALS);
	sx = &S->cases[0];
	assert_true(sx->cache_resident);
	near(sx->copy_floor_ns, 40);
	near(sx->b_over_copy, 60.0 / 40);
	near(sx->copy_floor_bw.gbps, 10);
	assert_true(isnan(sx->copy_floor_bw.pct_copy) && isnan(sx->b.bw.pct_copy));
	fx_summary_free(S);
	results_run_free(r);
}

static void test_pooled_arms(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *x = &S->cases[0];
	assert_int_equal(S->n_cases, 2);
	assert_ptr_equal(x->c, &r->cases[0]);
	assert_int_equal(x->a.arm, 'a');
	assert_int_equal(x->a.n_slots, 2);
	assert_int_equal(x->a.time.n, 10);
	/* pooled in slot order: A1 then A2 */
	for (int i = 0; i < 5; i++) {
		assert_true(x->a.samples[i] == A1[i]);
		assert_true(x->a.samples[5 + i] == A2[i]);
	}
	near(x->a.time.median_ns, 145);
	near(x->a.time.p10_ns, 109);
	near(x->a.time.p90_ns, 181);
	assert_int_equal(x->b.time.n, 5);
	near(x->b.time.median_ns, 60);
	near(x->b.time.p10_ns, 44);
	near(x->b.time.p90_ns, 76);
	near(x->a.wall_ns, 1450);
	assert_string_equal(x->a.variant, "eager");
	assert_string_equal(x->b.variant, "fused");
	fx_summary_free(S);
	results_run_free(r);
}

static void test_speedup_and_interval(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *x = &S->cases[0], *y = &S->cases[1];
	near(x->speedup.point, 145.0 / 60.0);
	/* B has 5 samples, y's arms 8 and 4: under SUMMARY_MIN_SAMPLES (10), no interval */
	assert_true(SUMMARY_MIN_SAMPLES == 10);
	assert_true(isnan(x->speedup.low) && isnan(x->speedup.high));
	assert_true(y->speedup.point == 3 && isnan(y->speedup.low) && isnan(y->speedup.high));
	fx_summary_free(S);

	/* 10 samples a slot (A 20, B 10): the interval is the seeded bootstrap's */
	const struct fake_case fc[] = { { "z", 100e3, 50e3, 10, true }, { "c", 300, 100, 10, true } };
	struct results_run *r10 = fake_run(2, "s", "cpu0", fc, 2);
	for (int k = 0; k < 3; k++) {
		double v[10];
		for (int i = 0; i < 10; i++)
			v[i] = k == 1 ? 100 : 300;
		set_samples(&r10->cases[1].slots[k], v, 10);
	}
	S = fx_summary(r10, SUMMARY_FULL);
	const struct summary_case *z = &S->cases[0], *c = &S->cases[1];
	assert_true(z->speedup.low < z->speedup.point && z->speedup.point < z->speedup.high);
	assert_true(SUMMARY_SEED == UINT64_C(0x61626265) && SUMMARY_RESAMPLES == 2000 && SUMMARY_CI_LEVEL == 0.95);
	struct stats_interval want = stats_speedup_ci(z->a.samples, 20, z->b.samples, 10, 0.95, 2000, UINT64_C(0x61626265));
	assert_true(z->speedup.low == want.low && z->speedup.high == want.high);
	assert_true(z->improved); /* [1.98, 2.02]-ish, far above 1, no drift */
	/* constant samples: every resample gives 3 */
	assert_true(c->speedup.point == 3 && c->speedup.low == 3 && c->speedup.high == 3);
	fx_summary_free(S);
	results_run_free(r10);

	/* without intervals: the same point, no bounds */
	S = fx_summary(r, SUMMARY_NO_INTERVALS);
	near(S->cases[0].speedup.point, 145.0 / 60.0);
	assert_true(isnan(S->cases[0].speedup.low) && isnan(S->cases[0].speedup.high));
	assert_int_equal(S->detail, SUMMARY_NO_INTERVALS);
	fx_summary_free(S);
	results_run_free(r);
}

static void test_drift(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	near(S->cases[0].drift, 5.0 / 12.0);
	assert_true(S->cases[1].drift == 0);
	fx_summary_free(S);

	/* one A slot: no drift */
	r->cases[0].slots[2].arm = 'b';
	S = fx_summary(r, SUMMARY_FULL);
	assert_true(isnan(S->cases[0].drift));
	assert_int_equal(S->cases[0].b.n_slots, 2);
	fx_summary_free(S);
	results_run_free(r);
}

static void test_projection(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *x = &S->cases[0];
	near(x->per_forward.a_ns, 435);
	near(x->per_forward.b_ns, 180);
	near(x->per_forward.saving_ns, 255);
	near(x->per_step.a_ns, 870);
	near(x->per_step.saving_ns, 510);
	/* y: count 1, A 300, B 100: per step 600, 200, 400 */
	near(S->per_forward.saving_ns, 255 + 200);
	near(S->per_step.a_ns, 870 + 600);
	near(S->per_step.b_ns, 360 + 200);
	near(S->per_step.saving_ns, 510 + 400);
	near(S->per_image.saving_ns, 5 * (510 + 400));
	near(S->per_image.a_ns, 5 * (870 + 600));
	near(S->saving_fraction, 910.0 / 1470.0);
	assert_true(S->have_model);
	fx_summary_free(S);

	r->steps = 0;
	S = fx_summary(r, SUMMARY_NO_INTERVALS);
	assert_false(S->have_model);
	fx_summary_free(S);
	results_run_free(r);
}

static void test_exactness(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "ok", 100e3, 50e3, 5, true }, { "b_off", 100e3, 50e3, 5, false } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 2);
	r->cases[0].slots[2].outputs[0].ref_ok = false;
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_case *ok = &S->cases[0], *off = &S->cases[1];
	assert_int_equal(ok->n_outputs, 3);
	assert_int_equal(ok->n_not_exact, 0);
	assert_true(ok->b_byte_equal && ok->a_deterministic);
	assert_false(ok->ref_ok);
	assert_false(ok->slots[2].ref_ok);
	assert_true(ok->slots[1].ref_ok);
	assert_int_equal(off->n_not_exact, 1);
	assert_false(off->b_byte_equal);
	assert_true(off->a_deterministic && off->ref_ok);
	assert_false(off->slots[1].bit_exact);
	assert_int_equal(off->slots[1].mismatches, 17);
	fx_summary_free(S);

	/* an A slot that differs: the A arm is not deterministic */
	r->cases[0].slots[2].outputs[0].bit_exact = false;
	S = fx_summary(r, SUMMARY_NO_INTERVALS);
	assert_false(S->cases[0].a_deterministic);
	assert_true(S->cases[0].b_byte_equal);
	assert_int_equal(S->cases[0].n_not_exact, 1);
	fx_summary_free(S);
	results_run_free(r);
}

/* Two outputs on one slot: md5s joined in tensor order, mismatches summed,
 * the largest errors (a NAN ignored), verdicts over both. */
static void test_slot_fold(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "qk", 100e3, 50e3, 5, true } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 1);
	struct results_slot *b = &r->cases[0].slots[1];
	b->n_outputs = 2;
	b->outputs[1] = b->outputs[0];
	snprintf(b->outputs[1].tensor, sizeof b->outputs[1].tensor, "k_out");
	snprintf(b->outputs[1].md5, sizeof b->outputs[1].md5, "%s", "ffffffffffffffffffffffffffffffff");
	b->outputs[0].max_abs_err = 0.25;
	b->outputs[0].max_err_ratio = NAN;
	b->outputs[1].max_abs_err = 0.5;
	b->outputs[1].max_err_ratio = 0.75;
	b->outputs[1].bit_exact = false;
	b->outputs[1].mismatches = 4;
	b->n_discarded = 2;
	r->cases[0].slots[0].n_discarded = 1;
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_slot *sb = &S->cases[0].slots[1];
	assert_ptr_equal(sb->slot, b);
	assert_string_equal(sb->md5, "0123456789abcdef0123456789abcdef+ffffffffffffffffffffffffffffffff");
	assert_int_equal(sb->mismatches, 4);
	assert_true(sb->max_abs_err == 0.5 && sb->max_err_ratio == 0.75);
	assert_false(sb->bit_exact);
	assert_true(sb->ref_ok);
	assert_int_equal(S->cases[0].n_outputs, 4);
	assert_int_equal(S->n_discarded, 3);
	fx_summary_free(S);
	results_run_free(r);
}

static void add_kernel(struct results_slot *s, const char *name, int64_t launches, double total, double lo, double hi)
{
	s->kernels = realloc(s->kernels, (size_t)(s->n_kernels + 1) * sizeof *s->kernels);
	assert_non_null(s->kernels);
	struct results_kernel *k = &s->kernels[s->n_kernels++];
	memset(k, 0, sizeof *k);
	snprintf(k->name, sizeof k->name, "%s", name);
	snprintf(k->family, sizeof k->family, "other");
	k->launches = launches;
	k->total_ns = total;
	k->min_ns = lo;
	k->max_ns = hi;
}

static void test_kernels_merged(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 5, true } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 1);
	struct results_case *c = &r->cases[0];
	add_kernel(&c->slots[0], "k1", 5, 10, 1, 3);
	add_kernel(&c->slots[0], "k2", 5, 25, 4, 6);
	add_kernel(&c->slots[2], "k1", 5, 20, 0.5, 4);
	add_kernel(&c->slots[1], "fused", 5, 40, 7, 9);
	c->slots[2].kernel_records_bad = 2;
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_arm *a = &S->cases[0].a, *b = &S->cases[0].b;
	assert_int_equal(a->n_kernels, 2);
	assert_string_equal(a->kernels[0].name, "k1"); /* largest total first */
	assert_true(a->kernels[0].total_ns == 30 && a->kernels[0].launches == 10);
	assert_true(a->kernels[0].min_ns == 0.5 && a->kernels[0].max_ns == 4);
	assert_string_equal(a->kernels[1].name, "k2");
	assert_true(a->kernel_ns == 55);
	assert_int_equal(a->kernel_records_bad, 2);
	assert_int_equal(b->n_kernels, 1);
	assert_true(b->kernel_ns == 40);
	/* per sample of the arm: A pools 10 samples, B 5 */
	near(a->kfig[0].per_sample_ns, 3);
	near(a->kfig[0].launches_per_sample, 1);
	near(a->kfig[0].share, 30 / a->wall_ns);
	near(a->window_ns, a->wall_ns / 10);
	near(a->kernels_per_sample_ns, 5.5);
	near(a->kernel_share, 55 / a->wall_ns);
	near(b->kfig[0].per_sample_ns, 8);
	near(b->gaps_ns, (b->wall_ns - 40) / 5);
	assert_string_equal(b->kfig[0].operation, "fused");
	fx_summary_free(S);
	results_run_free(r);
}

/* The judgments printers show: the run's word, drift against the
 * profile's noise floor, B over its floor (the measured copy: the profile's
 * bandwidth does not move it), throttled slots, sweeps. */
static void test_verdicts_and_judgments(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	const struct summary_profile prof = { "P", 40, 0.01 };
	struct summary_run S;
	struct ab_diag d = { "" };
	r->cases[0].bytes_min = 600;
	r->cases[0].copy_floor_ns = 15;
	r->cases[0].slots[2].clocks_after = (struct results_clocks){ .valid = true, .sm_mhz = 1500, .temp_c = 70,
								     .throttle_reasons = 0x4 };
	r->cases[0].slots[2].clocks_before = (struct results_clocks){ .valid = true, .sm_mhz = 1900, .temp_c = 60 };
	assert_int_equal(summary_compute_profile(r, SUMMARY_NO_INTERVALS, &prof, &S, &d), AB_OK);
	/* x drifts 5/12 over a 1% floor; y's constant A does not drift */
	assert_int_equal(S.cases[0].drift_verdict, SUMMARY_DRIFT_ENVIRONMENTAL);
	assert_int_equal(S.cases[1].drift_verdict, SUMMARY_DRIFT_OK);
	/* the profile's 40 GB/s; the floor measured at 15 ns, B's median 60: 4x */
	assert_int_equal(S.copy.source, BANDWIDTH_PROFILE);
	near(S.cases[0].copy_floor_ns, 15);
	near(S.cases[0].b_over_copy, 4);
	assert_true(isnan(S.cases[1].b_over_copy));
	/* 5 samples of B: no interval, so inconclusive */
	assert_int_equal(S.verdict, SUMMARY_INCONCLUSIVE);
	assert_string_equal(summary_verdict_str(S.verdict), "INCONCLUSIVE");
	/* sw power cap slows the clock; the slot's SM clock moved */
	assert_true(S.cases[0].slots[2].throttled && S.cases[0].slots[2].clock_moved);
	assert_false(S.cases[0].slots[0].throttled);
	assert_int_equal(S.cases[0].clocks.throttled, 1);
	assert_int_equal(S.clocks.readings, 2);
	assert_true(S.clocks.sm_lo_mhz == 1500 && S.clocks.sm_hi_mhz == 1900 && S.clocks.temp_hi_c == 70);
	assert_true(S.min_slot_samples == 4 && S.max_slot_samples == 5 && S.n_slots == 6);
	summary_free(&S);
	/* without a profile: drift not judged, no copy bandwidth */
	assert_int_equal(summary_compute(r, SUMMARY_NO_INTERVALS, &S, &d), AB_OK);
	assert_int_equal(S.cases[0].drift_verdict, SUMMARY_DRIFT_NO_PROFILE);
	assert_int_equal(S.copy.source, BANDWIDTH_NONE);
	near(S.cases[0].b_over_copy, 4);
	summary_free(&S);
	/* a B output not byte-equal comes first */
	r->cases[1].slots[1].outputs[0].bit_exact = false;
	assert_int_equal(summary_compute(r, SUMMARY_NO_INTERVALS, &S, &d), AB_OK);
	assert_int_equal(S.verdict, SUMMARY_NOT_BIT_EXACT);
	summary_free(&S);
	results_run_free(r);
}

static void test_sweeps(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "s[T=64]", 100, 50, 3, true }, { "p", 100, 50, 3, true },
					{ "s[T=16]", 100, 50, 3, true }, { "s[T=32]", 100, 50, 3, true } };
	static const int64_t t[] = { 64, 0, 16, 32 };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 4);
	for (int i = 0; i < 4; i++)
		if (t[i]) {
			snprintf(r->cases[i].sweep, sizeof r->cases[i].sweep, "s");
			snprintf(r->cases[i].axis, sizeof r->cases[i].axis, "T");
			r->cases[i].axis_value = t[i];
		}
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	assert_int_equal(S->n_sweeps, 1);
	assert_string_equal(S->sweeps[0].name, "s");
	assert_int_equal(S->sweeps[0].n, 3);
	assert_true(S->sweeps[0].idx[0] == 2 && S->sweeps[0].idx[1] == 3 && S->sweeps[0].idx[2] == 0);
	fx_summary_free(S);
	results_run_free(r);
}

/* A divergence of tensor on slot s (n_diff of elems, max_ulp, stage). */
static void add_div(struct results_slot *s, const char *tensor, const char *role, int64_t n_diff, int64_t elems,
		    int64_t max_ulp, int64_t n_class, int stage)
{
	struct results_divergence *v;
	s->div = realloc(s->div, (size_t)(s->n_div + 1) * sizeof *s->div);
	assert_non_null(s->div);
	v = &s->div[s->n_div++];
	memset(v, 0, sizeof *v);
	snprintf(v->tensor, sizeof v->tensor, "%s", tensor);
	snprintf(v->role, sizeof v->role, "%s", role);
	v->n_diff = n_diff;
	v->elems = elems;
	v->max_ulp = max_ulp;
	v->n_class = n_class;
	v->stage = stage;
}

/* issue 29: the case's divergence figures (elements, %, max ULP, the
 * departure), a byte-equal case's zeros, an old run's unknown; a
 * nondeterministic slot makes the case not exact; a sweep's invariance. */
static void test_divergence_figures(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "ok", 100e3, 50e3, 5, true }, { "off", 100e3, 50e3, 5, false },
					{ "old", 100e3, 50e3, 5, false }, { "nondet", 100e3, 50e3, 5, true } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 4);
	struct results_slot *b = &r->cases[1].slots[1];
	add_div(b, "rstd", "stat", 2, 16, 1, 0, 1);
	add_div(b, "out", "output", 17, 4096, 3, 2, 2);
	for (int c = 0; c < 4; c++)
		for (int s = 0; s < 3; s++)
			r->cases[c].slots[s].check.calls_checked = c == 2 ? 0 : 7;
	r->cases[3].slots[1].check.calls_differ = 4;
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_case *ok = &S->cases[0], *off = &S->cases[1], *old = &S->cases[2], *nd = &S->cases[3];
	assert_true(ok->div.measured && ok->div.pct == 0 && ok->div.n_diff == 0 && !ok->div.tensor);
	assert_int_equal(ok->div.max_ulp, 0);
	assert_true(off->div.measured);
	assert_string_equal(off->div.tensor, "out");
	assert_string_equal(off->div.slot, "B");
	assert_int_equal(off->div.n_diff, 17);
	assert_int_equal(off->div.elems, 4096);
	assert_true(fabs(off->div.pct - 100.0 * 17 / 4096) < 1e-12);
	assert_int_equal(off->div.max_ulp, 3);
	assert_int_equal(off->div.n_class, 2);
	assert_string_equal(off->div.departure, "rstd"); /* the first of the chain that differs */
	assert_false(old->div.measured);
	assert_true(isnan(old->div.pct));
	assert_int_equal(old->det.slots_checked, 0);
	assert_true(nd->b_byte_equal && nd->det.nondeterministic);
	assert_string_equal(nd->det.slot, "B");
	assert_true(nd->det.calls_differ == 4 && nd->det.calls == 7 && nd->det.slots_checked == 3);
	assert_int_equal(nd->verdict, SUMMARY_CASE_NOT_EXACT);
	assert_false(ok->det.nondeterministic);
	assert_int_equal(S->n_nondeterministic, 1);
	assert_int_equal(S->n_verdict[SUMMARY_CASE_NOT_EXACT], 3);
	assert_int_equal(ok->inv.verdict, SUMMARY_INVARIANCE_NOT_CHECKED);
	fx_summary_free(S);
	results_run_free(r);
}

/* A sweep's batch invariance: yes when every case's arms held, else the
 * first case (ascending) and arm that broke it. */
static void test_sweep_invariance(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "s[T=9]", 100, 50, 3, true }, { "s[T=1]", 100, 50, 3, true },
					{ "s[T=5]", 100, 50, 3, true } };
	static const int64_t t[] = { 9, 1, 5 };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 3);
	for (int i = 0; i < 3; i++) {
		struct results_case *c = &r->cases[i];
		snprintf(c->sweep, sizeof c->sweep, "s");
		snprintf(c->axis, sizeof c->axis, "T");
		c->axis_value = t[i];
		for (int a = 0; a < 2; a++)
			c->inv[a] = (struct results_invariance){ .checked = true, .first_row = -1, .rows_compared = t[i] > 1 };
	}
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	assert_int_equal(S->sweeps[0].invariance, SUMMARY_INVARIANCE_YES);
	assert_int_equal(S->sweeps[0].n_checked, 3);
	assert_int_equal(S->cases[0].inv.verdict, SUMMARY_INVARIANCE_YES);
	fx_summary_free(S);
	/* arm b breaks at row 0 in T=9 (against T=1) and T=5 (against T=1):
	 * T=5 is the first in ascending order */
	for (int i = 0; i < 3; i += 2) {
		r->cases[i].inv[1].first_row = 0;
		r->cases[i].inv[1].other_value = 1;
		snprintf(r->cases[i].inv[1].tensor, sizeof r->cases[i].inv[1].tensor, "out");
	}
	S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_sweep *w = &S->sweeps[0];
	assert_int_equal(w->invariance, SUMMARY_INVARIANCE_NO);
	assert_int_equal(w->break_case, 2);
	assert_true(w->break_arm == 'b' && w->break_row == 0 && w->break_other == 1);
	assert_string_equal(w->break_tensor, "out");
	assert_int_equal(S->cases[1].inv.verdict, SUMMARY_INVARIANCE_YES);
	assert_int_equal(S->cases[0].inv.verdict, SUMMARY_INVARIANCE_NO);
	fx_summary_free(S);
	results_run_free(r);
}

static void test_missing_arm_and_variants(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 5, true } };
	struct results_run *r = fake_run(1, "s", "cpu0", fc, 1);
	struct results_case *c = &r->cases[0];
	results_slot_release(&c->slots[1]); /* B kept no samples */
	snprintf(c->slots[2].variant, sizeof c->slots[2].variant, "other");
	struct summary_run *S = fx_summary(r, SUMMARY_FULL);
	const struct summary_case *x = &S->cases[0];
	assert_int_equal(x->b.time.n, 0);
	assert_null(x->b.samples);
	assert_true(isnan(x->b.time.median_ns) && isnan(x->b.time.p10_ns));
	assert_true(isnan(x->speedup.point) && isnan(x->speedup.low));
	assert_string_equal(x->a.variant, ""); /* eager and other */
	assert_string_equal(x->b.variant, "fused");
	assert_ptr_equal(summary_find(S, "x"), x);
	assert_null(summary_find(S, "nope"));
	fx_summary_free(S);
	results_run_free(r);
}

static void test_bandwidth(void **state)
{
	(void)state;
	struct results_run *r = known_run();
	r->cases[0].bytes_a = 2900;
	r->cases[0].bytes_b = 1200;
	r->cases[0].bytes_min = 600;
	r->device.copy_gbps = 40;
	struct summary_run *S = fx_summary(r, SUMMARY_NO_INTERVALS);
	const struct summary_case *x = &S->cases[0], *y = &S->cases[1];
	assert_int_equal(S->copy.source, BANDWIDTH_MEASURED);
	assert_true(S->copy.gbps == 40);
	near(x->a.bw.gbps, 20);
	near(x->a.bw.pct_copy, 50);
	near(x->b.bw.gbps, 20);
	near(x->b.bw.bytes, 1200);
	assert_true(isnan(x->copy_floor_ns) && isnan(x->b_over_copy)); /* not measured: no floor */
	near(x->slots[1].bw.gbps, 20);
	near(x->slots[0].bw.gbps, 2900.0 / 120.0);
	assert_true(x->a.median_ci.low == 110 && x->a.median_ci.high == 180);
	assert_true(isnan(x->b.median_ci.low));
	/* y has no bytes: every figure unknown */
	assert_true(isnan(y->a.bw.bytes) && isnan(y->b.bw.gbps) && isnan(y->copy_floor_bw.gbps) &&
		    isnan(y->slots[0].bw.gbps));
	fx_summary_free(S);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pooled_arms),
		cmocka_unit_test(test_speedup_and_interval),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_projection),
		cmocka_unit_test(test_exactness),
		cmocka_unit_test(test_slot_fold),
		cmocka_unit_test(test_kernels_merged),
		cmocka_unit_test(test_missing_arm_and_variants),
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_copy_floor),
		cmocka_unit_test(test_verdicts_and_judgments),
		cmocka_unit_test(test_sweeps),
		cmocka_unit_test(test_divergence_figures),
		cmocka_unit_test(test_sweep_invariance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
