/*
 * test_copy_floor.c - the copy floor's plan and the CPU's method
 * (backend/copy_floor.h): the plan's streams are exactly the site's minimum
 * bytes (inputs in table order, outputs), the memcpy writes the read
 * stream's first bytes into the outputs and touches nothing else, a case
 * whose inputs are shorter than its outputs gets zeros past them; a site
 * of more inputs or outputs than the floor takes has none; the CPU
 * backend offers the method as a variant of its own whose fake-timer cost
 * is its bytes at 16 GB/s plus 2 us.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "backend/copy_floor.h"
#include "kernels/common/site.h"

/* Host buffers for every present tensor of site s at shape text, inputs
 * filled with a byte pattern, the rest with 0xEE. */
static void make_args(const struct site_desc *s, const char *shape, struct site_args *a)
{
	struct site_shape sh;
	char err[128];
	memset(a, 0, sizeof *a);
	assert_true(site_parse_shape(shape, &sh));
	assert_true(s->geometry(&sh, &a->dims, err, sizeof err));
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		if (!site_tensor_present(t, false))
			continue;
		size_t n = (size_t)site_tensor_bytes(t, &a->dims);
		unsigned char *p = malloc(n ? n : 1);
		assert_non_null(p);
		bool in = t->role == SITE_IN_ACT || t->role == SITE_IN_PARAM;
		for (size_t k = 0; k < n; k++)
			p[k] = in ? (unsigned char)(i * 31 + k * 7) : 0xEE;
		a->t[i] = p;
	}
}

static void free_args(struct site_args *a)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++)
		free(a->t[i]);
}

static void test_plan_is_the_minimum(void **state)
{
	(void)state;
	const char *sites[][2] = { { "ln_modulate", "1x16x256" }, { "qk_layernorm", "1x8x2x64" },
				   { "residual_gate_add", "2x4x64" } };
	for (size_t k = 0; k < sizeof sites / sizeof sites[0]; k++) {
		const struct site_desc *s = site_find(sites[k][0]);
		struct site_args a;
		struct copy_floor_plan p;
		assert_non_null(s);
		make_args(s, sites[k][1], &a);
		assert_true(copy_floor_plan(s, &a, &p));
		assert_int_equal(p.read_bytes + p.write_bytes, site_min_bytes(s, &a.dims, false));
		assert_true(p.n_out >= 1 && p.n_in >= 2);
		free_args(&a);
	}
}

/* ln_modulate: out = x (the read stream starts with x), scale and shift
 * only read; nothing but out is written. */
static void test_memcpy_moves_the_streams(void **state)
{
	(void)state;
	const struct site_desc *s = site_find("ln_modulate");
	struct site_args a;
	struct copy_floor_plan p;
	make_args(s, "1x16x256", &a);
	assert_true(copy_floor_plan(s, &a, &p));
	copy_floor_memcpy(&p);
	int x = site_tensor_index(s, "x"), out = site_tensor_index(s, "out"), mean = site_tensor_index(s, "mean");
	size_t n = (size_t)site_tensor_bytes(&s->tensors[out], &a.dims);
	assert_memory_equal(a.t[out], a.t[x], n);
	unsigned char *m = a.t[mean];
	for (int64_t k = 0; k < site_tensor_bytes(&s->tensors[mean], &a.dims); k++)
		assert_int_equal(m[k], 0xEE);
	free_args(&a);
}

/* Outputs longer than the read stream: zeros past its end. */
static void test_memcpy_zeros_past_the_reads(void **state)
{
	(void)state;
	unsigned char in[24], out1[16], out2[20];
	memset(in, 0xAB, sizeof in);
	memset(out1, 0xEE, sizeof out1);
	memset(out2, 0xEE, sizeof out2);
	struct copy_floor_plan p = { .n_in = 1, .n_out = 2, .in = { in }, .out = { out1, out2 }, .in_bytes = { 24 },
				     .out_bytes = { 16, 20 }, .read_bytes = 24, .write_bytes = 36 };
	copy_floor_memcpy(&p);
	for (int k = 0; k < 16; k++)
		assert_int_equal(out1[k], 0xAB);
	for (int k = 0; k < 20; k++)
		assert_int_equal(out2[k], k < 8 ? 0xAB : 0);
}

static void test_plan_refuses_missing_buffers(void **state)
{
	(void)state;
	const struct site_desc *s = site_find("residual_gate_add");
	struct site_args a;
	struct copy_floor_plan p;
	make_args(s, "1x4x64", &a);
	int ff = site_tensor_index(s, "ff");
	void *keep = a.t[ff];
	a.t[ff] = NULL;
	assert_false(copy_floor_plan(s, &a, &p));
	a.t[ff] = keep;
	free_args(&a);
}

/* The CPU backend's method, measured as an arm from outside of its own:
 * the fake timer's cost is 2 us plus its bytes at 16 GB/s. */
/* The present inputs and outputs of a case of site s (what its plan
 * counts, config/case_plan.h). */
static void present_counts(const struct site_desc *s, bool affine, int *n_in, int *n_out)
{
	*n_in = *n_out = 0;
	for (int i = 0; i < s->n_tensors; i++) {
		if (!site_tensor_present(&s->tensors[i], affine))
			continue;
		*n_in += site_role_is_input(s->tensors[i].role);
		*n_out += s->tensors[i].role == SITE_OUT;
	}
}

static bool fits(const struct site_desc *s, bool affine, char *why, size_t len)
{
	int n_in, n_out;
	present_counts(s, affine, &n_in, &n_out);
	return copy_floor_fits(s->name, n_in, n_out, why, len);
}

/* Which sites have a copy floor: every built-in one; a declared site with
 * more inputs (outputs) than the floor's segments, or with no output
 * present, has none, and the reason names the count. */
static void test_fits(void **state)
{
	(void)state;
	char why[128] = "";
	for (const struct site_desc *const *p = site_registry; *p; p++) {
		assert_true(fits(*p, false, why, sizeof why));
		assert_true(fits(*p, true, why, sizeof why));
	}
	struct site_desc s = { .name = "many", .n_tensors = COPY_FLOOR_SEGS + 2 };
	for (int i = 0; i < s.n_tensors; i++)
		s.tensors[i] = (struct site_tensor){ .name = "t", .role = i ? SITE_IN_ACT : SITE_OUT, .dtype = SITE_F32 };
	assert_false(fits(&s, false, why, sizeof why));
	assert_string_equal(why, "site 'many' has 9 inputs, the copy floor takes at most 8");
	s.tensors[1].affine_only = true; /* absent without affine: 8 inputs */
	assert_true(fits(&s, false, why, sizeof why));
	assert_false(fits(&s, true, why, sizeof why));
	for (int i = 0; i < s.n_tensors; i++)
		s.tensors[i].role = i ? SITE_OUT : SITE_IN_ACT;
	assert_false(fits(&s, true, why, sizeof why));
	assert_string_equal(why, "site 'many' has 9 outputs, the copy floor takes at most 8");
	for (int i = 0; i < s.n_tensors; i++)
		s.tensors[i].role = i ? SITE_SCRATCH : SITE_IN_ACT;
	assert_false(fits(&s, true, why, sizeof why));
	assert_string_equal(why, "site 'many' has no output");
	assert_true(copy_floor_fits("x", COPY_FLOOR_SEGS, COPY_FLOOR_SEGS, why, sizeof why));
	assert_false(copy_floor_fits("x", 0, 0, why, sizeof why));
}

static void test_cpu_backend_method(void **state)
{
	(void)state;
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	struct backend *b = NULL;
	struct bk_options o = { .l2_flush = false };
	struct ab_diag d = { "" };
	assert_int_equal(backend_cpu.open(&b, &o, &d), AB_OK);
	assert_int_equal(backend_cpu.floor_methods(b), 1);
	const struct site_variant *v = backend_cpu.floor_variant(b, 0);
	assert_non_null(v);
	assert_string_equal(v->name, "copy_floor.memcpy");
	assert_non_null(v->ext);
	assert_null(backend_cpu.floor_variant(b, 1));
	const struct site_desc *s = site_find("ln_modulate");
	struct site_args host;
	make_args(s, "1x16x256", &host);
	struct results_clocks c;
	struct attrib_collector k;
	struct bk_sample smp;
	assert_int_equal(attrib_init(&k, 4, &d), AB_OK);
	assert_int_equal(backend_cpu.case_begin(b, s, &host, "ln", &d), AB_OK);
	assert_int_equal(backend_cpu.slot_begin(b, v, "floor", &c, &d), AB_OK);
	assert_int_equal(backend_cpu.sample(b, v, 1, &k, &smp, &d), AB_OK);
	double want = 2000.0 + (double)site_min_bytes(s, &host.dims, false) / 16.0;
	assert_true(smp.wall_ns > 0.99 * want && smp.wall_ns < 1.01 * want);
	assert_int_equal(backend_cpu.slot_end(b, &k, &c, &d), AB_OK);
	assert_int_equal(k.n_kernels, 1);
	assert_string_equal(k.kernels[0].name, "copy_floor_memcpy");
	backend_cpu.case_end(b);
	attrib_free(&k);
	backend_cpu.close(b);
	free_args(&host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_is_the_minimum),
		cmocka_unit_test(test_memcpy_moves_the_streams),
		cmocka_unit_test(test_memcpy_zeros_past_the_reads),
		cmocka_unit_test(test_plan_refuses_missing_buffers),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_cpu_backend_method),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
