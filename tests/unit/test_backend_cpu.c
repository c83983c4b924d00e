/*
 * test_backend_cpu.c - the CPU backend driven through its ops table, as the
 * runner drives it: open, describe, case_begin, slot_begin, sample,
 * slot_end, read_tensor, case_end, notes, close.
 *
 * With ABBENCH_FAKE_TIMER=1 a step of a case of E activation elements costs
 * 2000 + 0.5 E ns times 1 + 0.5% noise keyed by (sample id, step), the
 * steps back to back (backend_cpu.c's header): ln_modulate at 1x16x256
 * (E = 4096) makes 4048 ns a step, so an arm of n steps takes n x 4048 ns
 * within +-0.5%, the same for the same sample id, and its kernel records sum
 * to its wall time. Outputs are computed in any case: slot_begin poisons
 * them with 0xFF bytes, eager and fused give the same bytes.
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

#include "backend/backend.h"
#include "backend/guard.h"
#include "config/scenario.h"
#include "run/inputs.h"

/* A case of one site at one shape, its host tensors filled. */
struct hcase {
	const struct site_desc *site;
	struct site_args host;
	size_t bytes[SITE_MAX_TENSORS];
	int out; /* index of the first output tensor */
};

static void hcase_make(struct hcase *h, const char *site, const char *shape)
{
	struct site_shape sh;
	char err[128];
	memset(h, 0, sizeof *h);
	h->site = site_find(site);
	assert_non_null(h->site);
	assert_true(site_parse_shape(shape, &sh));
	assert_true(h->site->geometry(&sh, &h->host.dims, err, sizeof err));
	h->host.eps = 1e-6f;
	h->out = -1;
	const struct scenario_input normal = { .dist = SCENARIO_DIST_NORMAL, .mean = 0, .std = 1 };
	for (int i = 0; i < h->site->n_tensors; i++) {
		const struct site_tensor *t = &h->site->tensors[i];
		if (!site_tensor_present(t, false))
			continue;
		int64_t n = site_tensor_elems(t, &h->host.dims);
		h->bytes[i] = (size_t)site_tensor_bytes(t, &h->host.dims);
		h->host.t[i] = calloc(1, h->bytes[i] + 1);
		assert_non_null(h->host.t[i]);
		struct inputs_rng rng;
		inputs_rng_seed(&rng, 1, "test", i);
		if (t->role == SITE_IN_ACT)
			inputs_fill_activation(h->host.t[i], n, h->host.dims.row_len, &normal, &rng);
		else if (t->role == SITE_IN_PARAM)
			inputs_fill_param(h->host.t[i], n, t->param, &rng);
		else if (t->role == SITE_OUT && h->out < 0)
			h->out = i;
	}
	assert_true(h->out >= 0);
}

static void hcase_free(struct hcase *h)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++)
		free(h->host.t[i]);
}

struct fixture {
	struct backend *b;
	struct attrib_collector kc;
	struct hcase h;
};

static int setup_fake(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	struct bk_options o = { .l2_flush = true, .launch_gaps = BACKEND_GAPS_INCLUDE, .cupti = true };
	struct ab_diag d;
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	if (!f || backend_cpu.open(&f->b, &o, &d) != AB_OK || attrib_init(&f->kc, 64, &d) != AB_OK)
		return -1;
	hcase_make(&f->h, "ln_modulate", "1x16x256");
	if (backend_cpu.case_begin(f->b, f->h.site, &f->h.host, "ln16", &d) != AB_OK)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	backend_cpu.case_end(f->b);
	backend_cpu.close(f->b);
	attrib_free(&f->kc);
	hcase_free(&f->h);
	free(f);
	unsetenv("ABBENCH_FAKE_TIMER");
	return 0;
}

/* A variant's CPU code (its steps). */
static const struct site_cpu_impl *cpu_of(const struct site_variant *v)
{
	return site_variant_impl(v, SITE_IMPL_CPU);
}

static const struct site_variant *variant(const struct fixture *f, const char *name)
{
	const struct site_variant *v = site_find_variant(f->h.site, name);
	assert_non_null(v);
	assert_non_null(cpu_of(v));
	return v;
}

static void test_ops_table(void **state)
{
	(void)state;
	const struct backend_ops *o = &backend_cpu;
	char why[64] = "stale";
	assert_string_equal(o->name, "cpu");
	assert_true(o->available(why, sizeof why));
	assert_string_equal(why, "");
	assert_non_null(o->open);
	assert_non_null(o->close);
	assert_non_null(o->describe);
	assert_non_null(o->measure_copy_gbps);
	assert_non_null(o->case_begin);
	assert_non_null(o->slot_begin);
	assert_non_null(o->sample);
	assert_non_null(o->slot_end);
	assert_non_null(o->read_tensor);
	assert_non_null(o->case_end);
	assert_non_null(o->notes);
	assert_non_null(o->supports);
	assert_non_null(o->fake_timer);
	assert_int_equal(o->caps, BACKEND_CAP_HOST_BUFFERS); /* no stream, no driver modules: no cubins */
}

/* What case_begin allocates, counted by case_memory the same way: every
 * present tensor with its two guard zones (ln_modulate 1x16x256, no
 * affine: 9 tensors, 34432 bytes), no flush buffer under the fake timer. */
static void test_case_memory(void **state)
{
	struct fixture *f = *state;
	struct bk_memory m;
	struct ab_diag d;
	assert_true(backend_cpu.fake_timer(f->b));
	assert_int_equal(backend_cpu.case_memory(f->b, f->h.site, &f->h.host, &m, &d), AB_OK);
	assert_false(m.has_device);
	assert_int_equal(m.host_bytes, 34432 + 9 * 2 * GUARD_BYTES);
}

static void test_describe_and_notes(void **state)
{
	struct fixture *f = *state;
	struct results_device dev;
	struct ab_diag d;
	double gbps = -1;
	backend_cpu.describe(f->b, &dev);
	assert_string_equal(dev.name, "CPU fake timer (ABBENCH_FAKE_TIMER=1)");
	assert_string_equal(dev.backend, "cpu");
	assert_int_equal(strncmp(dev.uuid, "cpu-", 4), 0);
	assert_int_equal(dev.sm_count, 1);
	assert_int_equal(backend_cpu.measure_copy_gbps(f->b, &gbps, &d), AB_OK);
	assert_true(gbps == 16); /* the fake timer's rate: 8 bytes an element in 0.5 ns */
	assert_string_equal(dev.uuid, "cpu-fake-timer"); /* never cached for the real CPU */
	assert_string_equal(backend_cpu.notes(f->b), "");
}

/* One measured sample of variant v with id; returns its wall time. */
static double sample(struct fixture *f, const struct site_variant *v, uint32_t id)
{
	struct bk_sample s;
	struct ab_diag d;
	assert_int_equal(backend_cpu.sample(f->b, v, id, &f->kc, &s, &d), AB_OK);
	assert_false(s.discarded);
	assert_true(isnan(s.clock_ratio));
	return s.wall_ns;
}

static void test_fake_timer_cost_model(void **state)
{
	struct fixture *f = *state;
	struct results_clocks before, after;
	struct ab_diag d;
	const struct site_variant *eager = variant(f, "eager"), *fused = variant(f, "fused");
	const double step = 2000 + 0.5 * 4096;
	for (int k = 0; k < 2; k++) {
		const struct site_variant *v = k ? fused : eager;
		int n = cpu_of(v)->n_steps;
		attrib_reset(&f->kc);
		assert_int_equal(backend_cpu.slot_begin(f->b, v, "ln16/x/A1", &before, &d), AB_OK);
		assert_false(before.valid);
		sample(f, v, ATTRIB_UNTIMED); /* a warm-up: its records are ignored */
		assert_int_equal(f->kc.ignored_records, n);
		double w1 = sample(f, v, 1), w2 = sample(f, v, 2), again = sample(f, v, 1);
		if (!(w1 >= n * step * 0.995 && w1 <= n * step * 1.005))
			fail_msg("%s: %g ns for %d steps of %g", v->name, w1, n, step);
		assert_true(w2 >= n * step * 0.995 && w2 <= n * step * 1.005);
		assert_true(again == w1);  /* the noise is keyed by the sample id */
		assert_true(w1 != w2);
		/* the steps' records sum to the sample's wall time */
		assert_true(fabs(f->kc.sample_kernel_ns[0] - 2 * w1) < 1e-6); /* id 1 sampled twice */
		assert_true(fabs(f->kc.sample_kernel_ns[1] - w2) < 1e-6);
		assert_true(f->kc.n_kernels >= 1 && f->kc.n_kernels <= n);
		assert_int_equal(f->kc.bad_records, 0);
		assert_int_equal(backend_cpu.slot_end(f->b, &f->kc, &after, &d), AB_OK);
		assert_false(after.valid);
	}
}

static void test_outputs_computed_and_equal(void **state)
{
	struct fixture *f = *state;
	struct results_clocks c;
	struct ab_diag d;
	size_t bytes = f->h.bytes[f->h.out];
	unsigned char *poison = malloc(bytes), *eager = malloc(bytes), *fused = malloc(bytes);
	assert_true(poison && eager && fused);
	const struct site_variant *ve = variant(f, "eager"), *vf = variant(f, "fused");

	/* slot_begin poisons the outputs: an element no step writes shows */
	assert_int_equal(backend_cpu.slot_begin(f->b, ve, "r", &c, &d), AB_OK);
	assert_int_equal(backend_cpu.read_tensor(f->b, f->h.out, poison, bytes, &d), AB_OK);
	for (size_t i = 0; i < bytes; i++)
		assert_int_equal(poison[i], 0xFF);
	sample(f, ve, 1);
	assert_int_equal(backend_cpu.read_tensor(f->b, f->h.out, eager, bytes, &d), AB_OK);
	assert_int_equal(backend_cpu.slot_begin(f->b, vf, "r", &c, &d), AB_OK);
	sample(f, vf, 1);
	assert_int_equal(backend_cpu.read_tensor(f->b, f->h.out, fused, bytes, &d), AB_OK);
	assert_memory_not_equal(eager, poison, bytes);
	assert_memory_equal(eager, fused, bytes);
	free(poison);
	free(eager);
	free(fused);
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct results_clocks c;
	struct ab_diag d;
	char buf[8];
	size_t bytes = f->h.bytes[f->h.out];
	char *out = malloc(bytes);
	assert_int_equal(backend_cpu.read_tensor(f->b, f->h.out, out, bytes - 2, &d), AB_ERR_INTERNAL);
	assert_non_null(strstr(d.msg, "case 'ln16': bad read of tensor"));
	assert_int_equal(backend_cpu.read_tensor(f->b, SITE_MAX_TENSORS, buf, 2, &d), AB_ERR_INTERNAL);
	int weight = site_tensor_index(f->h.site, "weight"); /* affine only: absent here */
	assert_true(weight >= 0);
	assert_int_equal(backend_cpu.read_tensor(f->b, weight, buf, 2, &d), AB_ERR_INTERNAL);
	const struct site_variant gpu_only = { "gpu_only", "no cpu implementation", true, { { NULL, NULL } }, NULL, false };
	assert_int_equal(backend_cpu.slot_begin(f->b, &gpu_only, "r", &c, &d), AB_ERR_INPUT);
	assert_string_equal(d.msg, "case 'ln16': variant 'gpu_only' has no cpu implementation");
	free(out);
}

/* The real clock: times are positive and every step leaves a record. */
static void test_real_timer(void **state)
{
	(void)state;
	struct backend *b;
	struct attrib_collector kc;
	struct hcase h;
	struct results_clocks c;
	struct results_device dev;
	struct bk_sample s;
	struct bk_options o = { .l2_flush = false, .launch_gaps = BACKEND_GAPS_INCLUDE };
	struct ab_diag d;
	unsetenv("ABBENCH_FAKE_TIMER");
	assert_int_equal(backend_cpu.open(&b, &o, &d), AB_OK);
	assert_int_equal(attrib_init(&kc, 8, &d), AB_OK);
	backend_cpu.describe(b, &dev);
	assert_null(strstr(dev.name, "fake timer"));
	assert_int_equal(strncmp(dev.name, "CPU ", 4), 0);
	hcase_make(&h, "residual_gate_add", "1x8x64");
	const struct site_variant *v = site_find_variant(h.site, "eager");
	assert_int_equal(backend_cpu.case_begin(b, h.site, &h.host, "rga", &d), AB_OK);
	assert_int_equal(backend_cpu.slot_begin(b, v, "r", &c, &d), AB_OK);
	assert_int_equal(backend_cpu.sample(b, v, 1, &kc, &s, &d), AB_OK);
	assert_true(s.wall_ns > 0);
	assert_true(kc.sample_kernel_ns[0] > 0 && kc.sample_kernel_ns[0] <= s.wall_ns);
	assert_true(kc.n_kernels >= 1 && kc.n_kernels <= cpu_of(v)->n_steps);
	backend_cpu.case_end(b);
	backend_cpu.close(b);
	attrib_free(&kc);
	hcase_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_table),
		cmocka_unit_test_setup_teardown(test_case_memory, setup_fake, teardown),
		cmocka_unit_test_setup_teardown(test_describe_and_notes, setup_fake, teardown),
		cmocka_unit_test_setup_teardown(test_fake_timer_cost_model, setup_fake, teardown),
		cmocka_unit_test_setup_teardown(test_outputs_computed_and_equal, setup_fake, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup_fake, teardown),
		cmocka_unit_test(test_real_timer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
