/*
 * test_cubin_spec.c - what a cubin arm's [arm] section says: launch
 * dimensions, parameter lists resolved against a site, paths against the
 * scenario's folder, and the keys a section needs, each error at its line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arms/cubin_spec.h"

static const struct site_dims dims = { .batch = 1, .tokens = 16, .width = 256, .row_len = 256, .rows = 16, .heads = 1,
				       .n_axes = 3, .axis = { 1, 16, 256 } };

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
	assert_true(cubin_spec_parse_dims(site_find("ln_modulate"), "cdiv(M, 4), H, 2", e, &n, err, sizeof err));
	assert_int_equal(n, 3);
	assert_int_equal(eval(&e[0]), 4);
	assert_int_equal(eval(&e[1]), 1);
	assert_int_equal(eval(&e[2]), 2);
	assert_true(cubin_spec_parse_dims(site_find("ln_modulate"), "128", e, &n, err, sizeof err));
	assert_int_equal(n, 1);
	assert_false(cubin_spec_parse_dims(site_find("ln_modulate"), "1, 2, 3, 4", e, &n, err, sizeof err));
	assert_string_equal(err, "'1, 2, 3, 4' has more than 3 dimensions (x, y, z)");
	assert_false(cubin_spec_parse_dims(site_find("ln_modulate"), "M, , 2", e, &n, err, sizeof err));
	assert_string_equal(err, "'M, , 2': dimension 2 is empty");
	assert_false(cubin_spec_parse_dims(site_find("ln_modulate"), "M, X", e, &n, err, sizeof err));
	assert_string_equal(err, "'X': unknown symbol 'X' (shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
}

static void test_params(void **state)
{
	(void)state;
	char err[256] = "";
	struct cubin_spec_param p[CUBIN_SPEC_MAX_PARAMS];
	const struct site_desc *site = site_find("ln_modulate");
	int n = 0;
	assert_true(cubin_spec_parse_params(site, "x, scale, shift, out, M, N:i64, eps, cdiv(M * N, 2):i32, weight:ptr, eps:f32",
					    p, &n, err, sizeof err));
	assert_int_equal(n, 10);
	assert_int_equal(p[0].kind, CUBIN_SPEC_PARAM_TENSOR);
	assert_int_equal(p[0].tensor, site_tensor_index(site, "x"));
	assert_int_equal(p[3].tensor, site_tensor_index(site, "out"));
	assert_int_equal(p[4].kind, CUBIN_SPEC_PARAM_INT);
	assert_false(p[4].i64);
	assert_int_equal(eval(&p[4].value), 16);
	assert_true(p[5].i64);
	assert_int_equal(eval(&p[5].value), 256);
	assert_int_equal(p[6].kind, CUBIN_SPEC_PARAM_EPS);
	assert_int_equal(eval(&p[7].value), 2048);
	assert_int_equal(p[8].tensor, site_tensor_index(site, "weight"));
	assert_int_equal(p[9].kind, CUBIN_SPEC_PARAM_EPS);
	assert_string_equal(p[5].text, "N:i64");
}

static void params_fail(const char *params, const char *want)
{
	char err[256] = "";
	struct cubin_spec_param p[CUBIN_SPEC_MAX_PARAMS];
	int n = 0;
	assert_false(cubin_spec_parse_params(site_find("ln_modulate"), params, p, &n, err, sizeof err));
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

/* A section as config/ keeps it: name, kind and site, then records. */
static struct arm_spec section(const char *name, int header, const char *site)
{
	struct arm_spec s;
	memset(&s, 0, sizeof s);
	snprintf(s.name, sizeof s.name, "%s", name);
	snprintf(s.kind, sizeof s.kind, "cubin");
	s.header = header;
	s.kind_line = header + 1;
	if (site) {
		s.site = site_find(site);
		s.site_line = header + 2;
	}
	return s;
}

static void add(struct arm_spec *s, const char *key, const char *value, int line)
{
	struct arm_spec_key *k = &s->keys[s->n_keys++];
	snprintf(k->key, sizeof k->key, "%s", key);
	snprintf(k->value, sizeof k->value, "%s", value);
	k->line = line;
}

static struct scenario scn = { .path = "dir/s.ini" };

static void read_fails(const struct arm_spec *s, const char *want)
{
	static struct cubin_spec out;
	struct ab_diag d = { "" };
	assert_int_equal(cubin_spec_read(s, &scn, &out, &d), AB_ERR_INPUT);
	if (strcmp(d.msg, want) != 0)
		fail_msg("got: %s\nwant: %s", d.msg, want);
}

/* The keys a section needs and those it may not have together, each
 * reported at the line of the key at fault (or of the header). */
static void test_read_keys(void **state)
{
	(void)state;
	/* the site first: every expression names its symbols */
	struct arm_spec s = section("k", 20, NULL);
	add(&s, "triton", "k.json", 23);
	read_fails(&s, "dir/s.ini:20: [arm k]: missing key 'site' (the site whose tensors the params name)");
	s = section("k", 20, "residual_gate_add");
	read_fails(&s, "dir/s.ini:20: [arm k]: missing key 'binary' (a .cubin, .ptx or .fatbin; or triton = Triton's .json)");
	add(&s, "triton", "k.json", 23);
	read_fails(&s, "dir/s.ini:20: [arm k]: missing key 'grid' (1 to 3 shape expressions, as in grid = M)");
	add(&s, "grid", "M", 24);
	read_fails(&s, "dir/s.ini:20: [arm k]: missing key 'params' (the kernel's arguments, as in params = x, out, M, N, eps)");
	add(&s, "params", "x, out, M", 25);
	static struct cubin_spec out;
	struct ab_diag d = { "" };
	assert_int_equal(cubin_spec_read(&s, &scn, &out, &d), AB_OK);
	assert_string_equal(out.triton, "dir/k.json");
	assert_int_equal(out.lines.params, 25);
	assert_int_equal(out.n_params, 3);
	add(&s, "shared", "0", 26);
	read_fails(&s, "dir/s.ini:26: shared: comes from the Triton metadata (shared) with triton = ...; remove it");
	s.n_keys--;
	add(&s, "block", "64", 26);
	read_fails(&s, "dir/s.ini:26: block: comes from the Triton metadata (32 x num_warps) with triton = ...; remove it");
	s.n_keys--;
	add(&s, "binary", "k.cubin", 27);
	read_fails(&s, "dir/s.ini:27: [arm k]: give triton (Triton's metadata .json) or binary, not both");
	s = section("k", 20, "residual_gate_add");
	add(&s, "binary", "/abs/k.ptx", 22);
	add(&s, "grid", "M", 23);
	add(&s, "params", "x, out", 24);
	read_fails(&s, "dir/s.ini:20: [arm k]: missing key 'kernel' (the kernel's name in the binary)");
	add(&s, "kernel", "k", 25);
	read_fails(&s, "dir/s.ini:20: [arm k]: missing key 'block' (threads per block, as in block = 128)");
	add(&s, "block", "128, 2", 26);
	assert_int_equal(cubin_spec_read(&s, &scn, &out, &d), AB_OK);
	assert_string_equal(out.binary, "/abs/k.ptx");
	assert_int_equal(out.n_block, 2);
	assert_false(out.have_shared);
}

/* Each value is checked at its own line; params last, against the site. */
static void test_read_values(void **state)
{
	(void)state;
	struct arm_spec s = section("k", 1, "residual_gate_add");
	add(&s, "binary", "k.ptx", 4);
	add(&s, "kernel", "a b", 5);
	read_fails(&s, "dir/s.ini:5: kernel: 'a b': a kernel's name has no blanks");
	s.keys[1].value[1] = '_';
	add(&s, "shared", "4 *", 6);
	read_fails(&s, "dir/s.ini:6: shared: '4 *': expected a number, a symbol or '(' at the end");
	snprintf(s.keys[2].value, sizeof s.keys[2].value, "4 * T");
	add(&s, "grid", "M, , 1", 7);
	read_fails(&s, "dir/s.ini:7: grid: 'M, , 1': dimension 2 is empty");
	snprintf(s.keys[3].value, sizeof s.keys[3].value, "M");
	add(&s, "block", "64", 8);
	add(&s, "params", "x, outt", 9);
	read_fails(&s, "dir/s.ini:9: params: unknown name 'outt' (did you mean 'out'?): not a tensor of site 'residual_gate_add' (x, ff, gate, out, "
		       "ff_gated), eps, or a shape symbol (B, T, W, N, M, H)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dims),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_param_errors),
		cmocka_unit_test(test_read_keys),
		cmocka_unit_test(test_read_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
