/*
 * test_site.c - the site registry's byte declarations and axis names.
 *
 * Expected bytes worked out by hand from the tensor tables (bf16 = 2 bytes,
 * the float32 statistics 4 bytes a row):
 *   ln_modulate 1x4096x4096: x and out 33554432 each, scale and shift 8192
 *     each: minimum 67125248; eager: LayerNorm 33554432 + 33554432 + 2 x
 *     16384, add_one 2 x 8192, mul 2 x 33554432 + 8192, add the same:
 *     201392128 (3.0003x). affine adds weight and bias, 8192 each, to both.
 *   qk_layernorm 1x4360x32x128: q, k, q_out, k_out 35717120 each: 142868480;
 *     eager adds four statistics of 139520 rows: 145100800.
 *   residual_gate_add 1x4096x4096: x, ff, out and gate: 100671488; eager:
 *     ff + gate -> ff_gated, x + ff_gated -> out: 167780352.
 *
 * The tensor tables' shapes (axis lists) against the extents the tables
 * had before them (B*T*W, B*W, the LayerNorm row N, one per row), tensor
 * by tensor, so that no built-in buffer, byte count or input changed; the
 * shape symbols of expressions; site_geometry on a declared-like site.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kernels/common/site.h"

static struct site_dims dims_of(const char *site, const char *shape)
{
	struct site_shape sh;
	struct site_dims d;
	char err[128];
	assert_true(site_parse_shape(shape, &sh));
	assert_true(site_find(site)->geometry(&sh, &d, err, sizeof err));
	return d;
}

static void expect_bytes(const char *site, const char *shape, bool affine, int64_t min, int64_t eager)
{
	const struct site_desc *s = site_find(site);
	struct site_dims d = dims_of(site, shape);
	assert_true(site_min_bytes(s, &d, affine) == min);
	assert_true(site_eager_bytes(s, &d, affine) == eager);
	assert_true(site_variant_bytes(s, "eager", &d, affine) == eager);
	assert_true(site_variant_bytes(s, "fused", &d, affine) == min);
}

static void test_bytes(void **state)
{
	(void)state;
	expect_bytes("ln_modulate", "1x4096x4096", false, 67125248, 201392128);
	expect_bytes("ln_continuous", "1x4096x4096", false, 67125248, 201392128);
	expect_bytes("ln_modulate", "1x4096x4096", true, 67125248 + 16384, 201392128 + 16384);
	expect_bytes("qk_layernorm", "1x4360x32x128", false, 142868480, 145100800);
	expect_bytes("residual_gate_add", "1x4096x4096", false, 100671488, 167780352);
	/* twopass is held to the floor like any non-eager arm */
	const struct site_desc *s = site_find("ln_modulate");
	struct site_dims d = dims_of("ln_modulate", "2x16x256");
	assert_true(site_variant_bytes(s, "twopass", &d, false) == site_min_bytes(s, &d, false));
	assert_true(site_min_bytes(s, &d, false) == 2 * (2 * 16 * 256 * 2) + 2 * (2 * 256 * 2));
}

/* Every site declares its eager chain, one entry per CPU eager step. */
static void test_every_site_declares(void **state)
{
	(void)state;
	for (const struct site_desc *const *p = site_registry; *p; p++) {
		const struct site_desc *s = *p;
		const struct site_variant *e = site_find_variant(s, "eager");
		assert_non_null(e);
		assert_int_equal(s->n_eager_launches, ((const struct site_cpu_impl *)site_variant_impl(e, SITE_IMPL_CPU))->n_steps);
		for (int l = 0; l < s->n_eager_launches; l++)
			assert_true(s->eager_io[l].reads && s->eager_io[l].writes &&
				    s->eager_io[l].reads >> s->n_tensors == 0 && s->eager_io[l].writes >> s->n_tensors == 0);
	}
}

static void test_axis_names(void **state)
{
	(void)state;
	char buf[8];
	const char *want_ln = "BTW", *want_qk = "BTHD";
	for (int i = 0; i < 3; i++) {
		site_axis_name(site_find("ln_modulate"), i, buf, sizeof buf);
		assert_int_equal(buf[0], want_ln[i]);
		assert_int_equal(buf[1], '\0');
	}
	for (int i = 0; i < 4; i++) {
		site_axis_name(site_find("qk_layernorm"), i, buf, sizeof buf);
		assert_int_equal(buf[0], want_qk[i]);
	}
	site_axis_name(site_find("ln_modulate"), 3, buf, sizeof buf);
	assert_string_equal(buf, "d3");
	site_axis_name(NULL, 1, buf, sizeof buf);
	assert_string_equal(buf, "d1");
}

/* The extents of the tables before axis lists: full activation, per-batch
 * vector, the LayerNorm's row, one per row. */
enum old_extent { FULL, BATCH_VEC, ROW_VEC, ROWS };

static int64_t old_elems(enum old_extent e, const struct site_dims *d)
{
	switch (e) {
	case FULL: return d->batch * d->tokens * d->width;
	case BATCH_VEC: return d->batch * d->width;
	case ROW_VEC: return d->row_len;
	case ROWS: return d->rows;
	}
	return -1;
}

static void expect_extents(const char *site, const char *shape, const char *const *names, const enum old_extent *ext,
			   int n)
{
	const struct site_desc *s = site_find(site);
	struct site_dims d = dims_of(site, shape);
	assert_int_equal(s->n_tensors, n);
	for (int i = 0; i < n; i++) {
		assert_string_equal(s->tensors[i].name, names[i]);
		if (site_tensor_elems(&s->tensors[i], &d) != old_elems(ext[i], &d))
			fail_msg("%s %s: tensor '%s' has %lld elements, its old extent %lld", site, shape, names[i],
				 (long long)site_tensor_elems(&s->tensors[i], &d), (long long)old_elems(ext[i], &d));
	}
}

static void test_shapes_equal_old_extents(void **state)
{
	(void)state;
	static const char *const ln[] = { "x", "scale", "shift", "weight", "bias", "out", "mean", "rstd", "ln_out",
					  "scale1", "mod_mul" };
	static const enum old_extent ln_e[] = { FULL, BATCH_VEC, BATCH_VEC, ROW_VEC, ROW_VEC, FULL, ROWS, ROWS,
						FULL, BATCH_VEC, FULL };
	static const char *const qk[] = { "q", "k", "weight", "bias", "q_out", "k_out", "q_mean", "q_rstd", "k_mean",
					  "k_rstd" };
	static const enum old_extent qk_e[] = { FULL, FULL, ROW_VEC, ROW_VEC, FULL, FULL, ROWS, ROWS, ROWS, ROWS };
	static const char *const rga[] = { "x", "ff", "gate", "out", "ff_gated" };
	static const enum old_extent rga_e[] = { FULL, FULL, BATCH_VEC, FULL, FULL };
	expect_extents("ln_modulate", "2x16x256", ln, ln_e, 11);
	expect_extents("ln_continuous", "3x5x64", ln, ln_e, 11);
	expect_extents("qk_layernorm", "2x7x3x64", qk, qk_e, 10);
	expect_extents("residual_gate_add", "2x9x128", rga, rga_e, 5);
	/* the gate is [B, W]; statistics [B, T, H] */
	char axes[64];
	site_tensor_axes(site_find("residual_gate_add"), &site_find("residual_gate_add")->tensors[2], axes, sizeof axes);
	assert_string_equal(axes, "B,W");
	site_tensor_axes(site_find("qk_layernorm"), &site_find("qk_layernorm")->tensors[6], axes, sizeof axes);
	assert_string_equal(axes, "B,T,H");
	int64_t shape[SITE_MAX_RANK];
	struct site_dims d = dims_of("qk_layernorm", "2x7x3x64");
	assert_int_equal(site_tensor_shape(&site_find("qk_layernorm")->tensors[0], &d, shape), 4);
	assert_true(shape[0] == 2 && shape[1] == 7 && shape[2] == 3 && shape[3] == 64);
}

/* Every built-in site's shape_help starts with its axes. */
static void test_shape_help_names_axes(void **state)
{
	(void)state;
	for (const struct site_desc *const *p = site_registry; *p; p++) {
		char axes[64];
		site_format_axes(*p, axes, sizeof axes);
		assert_int_equal(strncmp((*p)->shape_help, axes, strlen(axes)), 0);
		assert_int_equal((*p)->shape_help[strlen(axes)], ',');
	}
}

static void test_symbols(void **state)
{
	(void)state;
	char list[128];
	site_symbol_list(site_find("ln_modulate"), list, sizeof list);
	assert_string_equal(list, "B, T, W, N, M, H");
	site_symbol_list(site_find("qk_layernorm"), list, sizeof list);
	assert_string_equal(list, "B, T, H, D, W, N, M");
	const struct site_desc *qk = site_find("qk_layernorm");
	struct site_dims d = dims_of("qk_layernorm", "2x7x3x64");
	static const struct {
		const char *name;
		int64_t value;
	} want[] = { { "B", 2 }, { "T", 7 }, { "H", 3 }, { "D", 64 }, { "W", 192 }, { "N", 64 }, { "M", 42 } };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int k = site_symbol_find(qk, want[i].name);
		assert_true(k >= 0);
		assert_true(site_symbol_value(qk, k, &d) == want[i].value);
	}
	assert_int_equal(site_symbol_find(qk, "Z"), -1);
	assert_null(site_symbol_name(qk, site_symbol_count(qk)));
}

/* A rule that refuses W = 5, as a declared site's require would. */
static bool no_five(const void *ctx, const struct site_desc *s, const struct site_dims *d, char *err, size_t len)
{
	(void)ctx;
	(void)s;
	if (d->axis[2] != 5)
		return true;
	snprintf(err, len, "W=5");
	return false;
}

/* site_geometry for a site without a built-in rule: the rank, the axis
 * values, rows and row_len from the largest tensor, element bounds, the
 * rule; a scalar tensor is one element. */
static void test_declared_geometry(void **state)
{
	(void)state;
	static struct site_desc s = {
		.name = "decl",
		.n_axes = 4,
		.axes = { "B", "T", "W", "H" },
		.declared_at = "t.ini:1",
		.n_tensors = 3,
		.tensors = {
			{ .name = "x", .role = SITE_IN_ACT, .dtype = SITE_F16, .shape = { 3, { 0, 1, 2 } } },
			{ .name = "n", .role = SITE_IN_ACT, .dtype = SITE_I64, .shape = { 0, { 0 } } },
			{ .name = "y", .role = SITE_OUT, .dtype = SITE_U8, .shape = { 2, { 0, 2 } } },
		},
		.rule = no_five,
	};
	struct site_shape sh;
	struct site_dims d;
	char err[128] = "";
	assert_true(site_parse_shape("2x3x4x7", &sh));
	assert_true(site_geometry(&s, &sh, &d, err, sizeof err));
	assert_int_equal(d.n_axes, 4);
	assert_true(d.axis[3] == 7 && d.row_len == 4 && d.rows == 6 && d.batch == 0);
	assert_true(site_tensor_elems(&s.tensors[1], &d) == 1);
	assert_true(site_tensor_bytes(&s.tensors[0], &d) == 2 * 3 * 4 * 2);
	assert_true(site_min_bytes(&s, &d, false) == 48 + 8 + 8);
	char list[64];
	site_symbol_list(&s, list, sizeof list);
	assert_string_equal(list, "B, T, W, H"); /* a declared site has its axes only */
	assert_true(site_parse_shape("2x3x4", &sh));
	assert_false(site_geometry(&s, &sh, &d, err, sizeof err));
	assert_string_equal(err, "shape must be BxTxWxH (4 dims), not 3 dims");
	assert_true(site_parse_shape("2x3x5x1", &sh));
	assert_false(site_geometry(&s, &sh, &d, err, sizeof err));
	assert_string_equal(err, "W=5");
	assert_true(site_parse_shape("65536x65536x65536x1", &sh));
	assert_false(site_geometry(&s, &sh, &d, err, sizeof err));
	assert_string_equal(err, "tensor 'x' has more than 68719476736 elements");
}

static void test_dtypes_and_roles(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		size_t size;
		bool integer;
	} want[] = { { "bf16", 2, false }, { "f16", 2, false }, { "f32", 4, false },
		     { "i32", 4, true },   { "i64", 8, true },   { "u8", 1, true } };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		enum site_dtype dt;
		assert_true(site_dtype_find(want[i].name, &dt));
		assert_int_equal(site_dtype_size(dt), want[i].size);
		assert_int_equal(site_dtype_is_int(dt), want[i].integer);
		assert_string_equal(site_dtype_name(dt), want[i].name);
	}
	enum site_dtype dt;
	enum site_role r;
	assert_false(site_dtype_find("fp8", &dt));
	assert_true(site_role_find("input", &r) && r == SITE_IN_ACT);
	assert_true(site_role_find("stat", &r) && r == SITE_AUX);
	assert_false(site_role_find("weights", &r));
	assert_string_equal(site_role_name(SITE_IN_PARAM), "input");
	assert_string_equal(site_role_name(SITE_SCRATCH), "scratch");
}

/* What a dump keeps: outputs, and the eager chain's own writes. */
static void test_variant_writes(void **state)
{
	(void)state;
	const struct site_desc *s = site_find("residual_gate_add");
	assert_int_equal(site_variant_writes(s, "fused"), SITE_IO(3));
	assert_int_equal(site_variant_writes(s, "eager"), SITE_IO(3) | SITE_IO(4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_shapes_equal_old_extents),
		cmocka_unit_test(test_shape_help_names_axes),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_declared_geometry),
		cmocka_unit_test(test_dtypes_and_roles),
		cmocka_unit_test(test_variant_writes),
		cmocka_unit_test(test_every_site_declares),
		cmocka_unit_test(test_axis_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
