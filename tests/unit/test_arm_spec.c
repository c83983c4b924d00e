/*
 * test_arm_spec.c - the text of user arms: launch dimensions, parameter
 * lists resolved against a site, paths against the scenario's folder,
 * plugin:PATH:ARM shortcuts, and the keys each type needs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config/arm_spec.h"

static const struct site_dims dims = { .batch = 1, .tokens = 16, .width = 256, .row_len = 256, .rows = 16, .heads = 1 };

static int64_t eval(const struct expr *e)
{
	int64_t v = 0;
	char err[128];
	assert_true(expr_eval(e, &dims, &v, err, sizeof err));
	return v;
}

static void test_dims(void **state)
{
	(void)state;
	struct expr e[3];
	int n = 0;
	char err[256] = "";
	assert_true(arm_spec_parse_dims("cdiv(M, 4), H, 2", e, &n, err, sizeof err));
	assert_int_equal(n, 3);
	assert_int_equal(eval(&e[0]), 4);
	assert_int_equal(eval(&e[1]), 1);
	assert_int_equal(eval(&e[2]), 2);
	assert_true(arm_spec_parse_dims("128", e, &n, err, sizeof err));
	assert_int_equal(n, 1);
	assert_false(arm_spec_parse_dims("1, 2, 3, 4", e, &n, err, sizeof err));
	assert_string_equal(err, "'1, 2, 3, 4' has more than 3 dimensions (x, y, z)");
	assert_false(arm_spec_parse_dims("M, , 2", e, &n, err, sizeof err));
	assert_string_equal(err, "'M, , 2': dimension 2 is empty");
	assert_false(arm_spec_parse_dims("M, X", e, &n, err, sizeof err));
	assert_string_equal(err, "'X': unknown symbol 'X' (shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
}

static struct arm_spec ln_spec(const char *params)
{
	struct arm_spec s;
	memset(&s, 0, sizeof s);
	s.site = site_find("ln_modulate");
	snprintf(s.params_text, sizeof s.params_text, "%s", params);
	return s;
}

static void test_params(void **state)
{
	(void)state;
	char err[256] = "";
	struct arm_spec s = ln_spec("x, scale, shift, out, M, N:i64, eps, cdiv(M * N, 2):i32, weight:ptr, eps:f32");
	assert_true(arm_spec_parse_params(&s, err, sizeof err));
	assert_int_equal(s.n_params, 10);
	assert_int_equal(s.params[0].kind, ARM_SPEC_PARAM_TENSOR);
	assert_int_equal(s.params[0].tensor, site_tensor_index(s.site, "x"));
	assert_int_equal(s.params[3].tensor, site_tensor_index(s.site, "out"));
	assert_int_equal(s.params[4].kind, ARM_SPEC_PARAM_INT);
	assert_false(s.params[4].i64);
	assert_int_equal(eval(&s.params[4].value), 16);
	assert_true(s.params[5].i64);
	assert_int_equal(eval(&s.params[5].value), 256);
	assert_int_equal(s.params[6].kind, ARM_SPEC_PARAM_EPS);
	assert_int_equal(eval(&s.params[7].value), 2048);
	assert_int_equal(s.params[8].tensor, site_tensor_index(s.site, "weight"));
	assert_int_equal(s.params[9].kind, ARM_SPEC_PARAM_EPS);
	assert_string_equal(s.params[5].text, "N:i64");
}

static void params_fail(const char *params, const char *want)
{
	char err[256] = "";
	struct arm_spec s = ln_spec(params);
	assert_false(arm_spec_parse_params(&s, err, sizeof err));
	if (strcmp(err, want) != 0)
		fail_msg("params '%s':\n got: %s\nwant: %s", params, err, want);
}

static void test_param_errors(void **state)
{
	(void)state;
	params_fail("x, y", "unknown name 'y': not a tensor of site 'ln_modulate' (x, scale, shift, weight, bias, out, mean, "
			    "rstd, ln_out, scale1, mod_mul), eps, or a shape symbol (B, T, W, N, M, H)");
	params_fail("x,, out", "parameter 2 is empty");
	params_fail("x:i64", "'x:i64': tensor 'x' is passed as a pointer (type ptr), not 'i64'");
	params_fail("eps:f64", "'eps:f64': eps is passed as f32, not 'f64'");
	params_fail("M:u8", "'M:u8': unknown type 'u8' (an integer is i32 or i64)");
	params_fail("M + ", "'M +': expected a number, a symbol or '(' at the end");
	char many[200] = "x";
	for (int i = 0; i < 32; i++)
		strcat(many, ", M");
	params_fail(many, "more than 32 parameters");
}

static void test_paths(void **state)
{
	(void)state;
	char out[64];
	assert_true(arm_spec_resolve_path("scenarios/a.ini", "lib/x.so", out, sizeof out));
	assert_string_equal(out, "scenarios/lib/x.so");
	assert_true(arm_spec_resolve_path("/abs/dir/a.ini", "../x.so", out, sizeof out));
	assert_string_equal(out, "/abs/dir/../x.so");
	assert_true(arm_spec_resolve_path("a.ini", "x.so", out, sizeof out));
	assert_string_equal(out, "x.so");
	assert_true(arm_spec_resolve_path("scenarios/a.ini", "/opt/x.so", out, sizeof out));
	assert_string_equal(out, "/opt/x.so");
	assert_false(arm_spec_resolve_path("scenarios/a.ini", "a-name-far-too-long-for-the-buffer-of-sixty-four-bytes.so", out,
					   sizeof out));
}

static void test_shortcut(void **state)
{
	(void)state;
	char path[64], arm[32], err[128];
	assert_true(arm_spec_split_shortcut("plugin:../build/libx.so:my_ln", path, sizeof path, arm, sizeof arm, err, sizeof err));
	assert_string_equal(path, "../build/libx.so");
	assert_string_equal(arm, "my_ln");
	assert_true(arm_spec_split_shortcut("plugin:c:/x.so:a", path, sizeof path, arm, sizeof arm, err, sizeof err));
	assert_string_equal(path, "c:/x.so");
	assert_false(arm_spec_split_shortcut("plugin:x.so", path, sizeof path, arm, sizeof arm, err, sizeof err));
	assert_string_equal(err, "'plugin:x.so' is not of the form plugin:PATH:ARM");
	assert_false(arm_spec_split_shortcut("plugin::a", path, sizeof path, arm, sizeof arm, err, sizeof err));
	assert_false(arm_spec_split_shortcut("plugin:x.so:", path, sizeof path, arm, sizeof arm, err, sizeof err));
	assert_false(arm_spec_split_shortcut("plugin:x.so:abcdefghijabcdefghijabcdefghijabcdefghij", path, sizeof path, arm,
					     sizeof arm, err, sizeof err));
	assert_string_equal(err, "'plugin:x.so:abcdefghijabcdefghijabcdefghijabcdefghij': the arm name is too long");
}

static void finish_fails(struct arm_spec *s, int want_line, const char *want)
{
	int line = -1;
	char err[256] = "";
	assert_false(arm_spec_finish(s, &line, err, sizeof err));
	if (strcmp(err, want) != 0)
		fail_msg("got: %s\nwant: %s", err, want);
	assert_int_equal(line, want_line);
}

static void test_finish(void **state)
{
	(void)state;
	int line = 0;
	char err[256] = "";
	struct arm_spec s;
	memset(&s, 0, sizeof s);
	snprintf(s.name, sizeof s.name, "my");
	s.lines.header = 10;
	finish_fails(&s, 10, "[arm my]: missing key 'type' (plugin or cubin)");
	s.lines.type = 11;
	s.type = ARM_SPEC_PLUGIN;
	s.lines.library = 12;
	finish_fails(&s, 10, "[arm my]: missing key 'name' (the arm's name in the plugin's table)");
	s.lines.name = 13;
	assert_true(arm_spec_finish(&s, &line, err, sizeof err));
	s.lines.grid = 14;
	finish_fails(&s, 14, "grid: not a key of plugin arms");
	s = (struct arm_spec){ .type = ARM_SPEC_CUBIN, .lines = { .header = 20, .type = 21 } };
	snprintf(s.name, sizeof s.name, "k");
	finish_fails(&s, 20, "[arm k]: missing key 'binary' (a .cubin, .ptx or .fatbin; or triton = Triton's .json)");
	s.lines.triton = 22;
	finish_fails(&s, 20, "[arm k]: missing key 'site' (the site whose tensors the params name)");
	s.lines.site = 23;
	s.lines.grid = 24;
	s.lines.params = 25;
	assert_true(arm_spec_finish(&s, &line, err, sizeof err));
	s.lines.shared = 26;
	finish_fails(&s, 26, "shared: comes from the Triton metadata (shared) with triton = ...; remove it");
	s.lines.shared = 0;
	s.lines.binary = 27;
	finish_fails(&s, 27, "[arm k]: give triton (Triton's metadata .json) or binary, not both");
	s.lines.triton = 0;
	finish_fails(&s, 20, "[arm k]: missing key 'kernel' (the kernel's name in the binary)");
	s.lines.kernel = 28;
	finish_fails(&s, 20, "[arm k]: missing key 'block' (threads per block, as in block = 128)");
	s.lines.block = 29;
	assert_true(arm_spec_finish(&s, &line, err, sizeof err));
	s.lines.library = 30;
	finish_fails(&s, 30, "library: not a key of cubin arms");
}

static void test_fail_message(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct arm_spec s = { .name = "my", .lines = { .header = 4, .library = 7 } };
	assert_int_equal(arm_spec_fail(&d, AB_ERR_INPUT, "x.ini", &s, s.lines.library, "cannot open '%s'", "l.so"),
			 AB_ERR_INPUT);
	assert_string_equal(d.msg, "x.ini:7: arm 'my': cannot open 'l.so'");
	arm_spec_fail(&d, AB_ERR_INPUT, "x.ini", &s, 0, "no line");
	assert_string_equal(d.msg, "x.ini:4: arm 'my': no line");
	assert_string_equal(arm_spec_type_str(ARM_SPEC_CUBIN), "cubin");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dims),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_param_errors),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_shortcut),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_fail_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
