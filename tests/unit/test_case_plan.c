/*
 * test_case_plan.c - a case resolved once (config/case_plan.h): every
 * tensor's presence, shape, elements, bytes, dtype, role, axes and
 * reference size equal to what site.c says of it for the case; the
 * outputs in table order and the present inputs counted; the generators (a tensor's input.NAME, a
 * built-in parameter's own distribution, the case's); the stored shape,
 * dtype and input; the minimum bytes; the swept axis and the input
 * streams' key (the sweep's under invariance = rows, else the case's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config/case_plan.h"

static struct scenario *parse(const char *text)
{
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	if (scenario_parse_text("t.ini", text, &s, &d) != AB_OK)
		fail_msg("%s", d.msg);
	return s;
}

static void plan(const struct scenario_case *c, struct case_plan *p)
{
	struct ab_diag d = { "" };
	if (case_plan_build(c, p, &d) != AB_OK)
		fail_msg("%s", d.msg);
}

/* Every tensor of the plan against site.c's answers for the case. */
static void check_tensors(const struct scenario_case *c, const struct case_plan *p)
{
	assert_ptr_equal(p->c, c);
	assert_ptr_equal(p->site, c->site);
	assert_int_equal(p->n_tensors, c->site->n_tensors);
	int n_in = 0;
	for (int i = 0; i < p->n_tensors; i++) {
		const struct site_tensor *t = &c->site->tensors[i];
		const struct case_plan_tensor *pt = &p->tensor[i];
		int64_t shape[SITE_MAX_RANK] = { 0 };
		char axes[CASE_PLAN_AXES_MAX];
		assert_ptr_equal(pt->t, t);
		assert_int_equal(pt->present, site_tensor_present(t, c->affine));
		assert_int_equal(pt->input, site_role_is_input(t->role));
		assert_int_equal(pt->aux, t->role == SITE_AUX || t->role == SITE_SCRATCH);
		assert_int_equal(pt->rank, site_tensor_shape(t, &c->dims, shape));
		assert_memory_equal(pt->shape, shape, sizeof shape);
		assert_int_equal(pt->elems, site_tensor_elems(t, &c->dims));
		assert_int_equal(pt->row_len, pt->rank ? shape[pt->rank - 1] : 1);
		assert_int_equal(pt->bytes, pt->present ? (size_t)site_tensor_bytes(t, &c->dims) : 0);
		assert_string_equal(pt->dtype, site_dtype_name(t->dtype));
		assert_string_equal(pt->role, site_role_name(t->role));
		site_tensor_axes(c->site, t, axes, sizeof axes);
		assert_string_equal(pt->axes, axes);
		bool ref = t->role == SITE_OUT && pt->present && c->site->reference;
		assert_int_equal(pt->ref_bytes, ref ? (size_t)pt->elems * sizeof(double) : 0);
		n_in += pt->present && pt->input;
	}
	assert_int_equal(p->n_in, n_in);
}

/* A built-in site without affine: weight and bias absent, the outputs,
 * the reference, the parameters' own distribution, the case's for x. */
static void test_builtin_case(void **state)
{
	(void)state;
	struct scenario *s = parse("[case ln]\nsite = ln_modulate\nshape = 2x16x256\ninput = uniform\n"
				   "input_low = -1\ninput_high = 3\ninput.shift = constant(0.25)\n");
	const struct scenario_case *c = &s->cases[0];
	struct case_plan p;
	plan(c, &p);
	check_tensors(c, &p);
	int x = site_tensor_index(c->site, "x"), scale = site_tensor_index(c->site, "scale");
	int shift = site_tensor_index(c->site, "shift"), weight = site_tensor_index(c->site, "weight");
	int out = site_tensor_index(c->site, "out");
	assert_false(p.tensor[weight].present);
	assert_int_equal(p.tensor[weight].bytes, 0);
	assert_int_equal(p.tensor[x].bytes, 2 * 16 * 256 * 2);
	assert_int_equal(p.tensor[x].row_len, 256);
	assert_string_equal(p.tensor[x].axes, "B,T,W");
	assert_int_equal(p.n_out, 1);
	assert_int_equal(p.out_index[0], out);
	assert_int_equal(p.tensor[out].ref_bytes, 2 * 16 * 256 * 8);
	/* x: the case's distribution; scale: its own (a built-in parameter);
	 * shift: its input.NAME */
	assert_int_equal(p.tensor[x].gen.kind, SCENARIO_GEN_UNIFORM);
	assert_true(p.tensor[x].gen.a == -1 && p.tensor[x].gen.b == 3);
	assert_int_equal(p.tensor[scale].gen.kind, SCENARIO_GEN_NONE);
	assert_int_equal(p.tensor[shift].gen.kind, SCENARIO_GEN_CONSTANT);
	assert_true(p.tensor[shift].gen.a == 0.25);
	assert_int_equal(p.tensor[out].gen.kind, SCENARIO_GEN_NONE); /* not an input */
	/* the case's row */
	assert_string_equal(p.shape, "2x16x256");
	assert_string_equal(p.dtype, "bf16");
	char input[128];
	scenario_case_describe_input(c, input, sizeof input);
	assert_string_equal(p.input, input);
	assert_int_equal(p.bytes_min, site_min_bytes(c->site, &c->dims, c->affine));
	assert_true(p.args.dims.rows == 2 * 16 && !p.args.affine && p.args.eps == (float)c->eps);
	assert_string_equal(p.stream, "ln");
	assert_int_equal(p.swept_dim, -1);
	assert_string_equal(p.arm[0].name, "eager");
	assert_string_equal(p.arm[1].name, "fused");
	assert_null(p.arm[0].variant); /* the arms' part is arms_plan_case's */
	scenario_free(s);

	s = parse("[case ln]\nsite = ln_modulate\nshape = 1x8x128\naffine = true\n");
	plan(&s->cases[0], &p);
	check_tensors(&s->cases[0], &p);
	assert_true(p.tensor[site_tensor_index(s->cases[0].site, "weight")].present);
	assert_int_equal(p.tensor[site_tensor_index(s->cases[0].site, "bias")].bytes, 128 * 2);
	scenario_free(s);
}

/* A declared site: its dtypes, no reference; a sweep compared row by row
 * keys every case's inputs by the sweep's name and knows its axis. */
static void test_declared_sweep(void **state)
{
	(void)state;
	struct scenario *s = parse("[site plant]\naxes = B T W\n"
				   "tensors = x:f16:B,T,W:input, idx:i32:T:input, out:f32:B,T,W:output, "
				   "mean:f32:B,T:stat\n"
				   "[case inv]\nsite = plant\nshape = 1x{2,5}x16\ninvariance = rows\n"
				   "input.idx = randint(0, T)\na = x\nb = x\n"
				   "[case plain]\nsite = plant\nshape = 1x{2,5}x16\ninput.idx = randint(0, T)\na = x\nb = x\n"
				   "[arm x]\ntype = plugin\nsite = plant\nlibrary = /nonexistent.so\nname = x\n");
	assert_int_equal(s->n_cases, 4);
	struct case_plan p;
	const struct scenario_case *c = &s->cases[1]; /* inv[T=5] */
	plan(c, &p);
	check_tensors(c, &p);
	assert_string_equal(p.dtype, "f32"); /* its first output's */
	assert_string_equal(p.shape, "1x5x16");
	assert_int_equal(p.tensor[1].gen.kind, SCENARIO_GEN_RANDINT);
	assert_int_equal(p.tensor[1].gen.hi, 5);
	assert_int_equal(p.tensor[0].gen.kind, SCENARIO_GEN_NORMAL); /* the case's */
	assert_int_equal(p.tensor[2].ref_bytes, 0);                  /* no reference */
	assert_int_equal(p.tensor[3].bytes, 5 * 4);
	assert_int_equal(p.n_in, 2); /* x and idx */
	assert_int_equal(p.swept_dim, 1);
	assert_string_equal(p.stream, c->sweep);
	assert_string_not_equal(p.stream, c->name);
	c = &s->cases[3]; /* plain[T=5]: swept, not compared row by row */
	plan(c, &p);
	assert_int_equal(p.swept_dim, 1);
	assert_string_equal(p.stream, c->name);
	scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_case),
		cmocka_unit_test(test_declared_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
