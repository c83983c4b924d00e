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
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_every_site_declares),
		cmocka_unit_test(test_axis_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
