/*
 * test_scenario_site.c - sites a scenario declares ([site NAME], its
 * included site files), per-tensor generators and arms per case
 * (config/scenario_site.c, scenario_gen.c, scenario_arms.c): what a
 * declared site becomes (axes, tensors, rules, its help line), how its
 * shapes are checked, where included files come from and how they are
 * stored with the run, which generator wins, which arms each case runs
 * and what the run's arms are, and every bad input with its exact
 * "FILE:LINE: ..." line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "config/scenario.h"
#include "fixtures.h"

#define SS_SITE                                                                                                       \
	"[site ss]\nsummary = x * (1 + scale) + shift\naxes = B T W\n"                                                    \
	"tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, shift:bf16:B,W:input, out:bf16:B,T,W:output\n"             \
	"tensor.s1 = bf16:B,W:scratch\nrequire = W % 8 == 0, T <= 4096\ninput.scale = normal(0, 0.5)\n"
#define SS_ARMS "[arms]\na = plugin:p.so:mss_eager\nb = plugin:p.so:mss_fused\n"
#define SS_CASE "[case c]\nsite = ss\nshape = 2x16x64\n"

static struct scenario *parse_ok(const char *path, const char *text)
{
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	if (scenario_parse_text(path, text, &s, &d) != AB_OK)
		fail_msg("%s", d.msg);
	return s;
}

static void expect_error(const char *text, const char *want)
{
	struct scenario *s = (struct scenario *)1;
	struct ab_diag d = { "" };
	enum ab_rc rc = scenario_parse_text("t.ini", text, &s, &d);
	if (rc != AB_ERR_INPUT || strcmp(d.msg, want) != 0)
		fail_msg("text:\n%s\ngot rc %d: %s\nwant: %s", text, (int)rc, d.msg, want);
	assert_null(s);
}

static void test_declared_site(void **state)
{
	(void)state;
	struct scenario *s = parse_ok("t.ini", SS_SITE SS_ARMS SS_CASE);
	const struct site_desc *ss = scenario_site_find(s, "ss");
	assert_non_null(ss);
	assert_ptr_equal(s->cases[0].site, ss);
	assert_string_equal(ss->summary, "x * (1 + scale) + shift");
	assert_string_equal(ss->shape_help, "BxTxW, W % 8 == 0, T <= 4096");
	assert_string_equal(ss->declared_at, "t.ini:1");
	assert_int_equal(ss->n_axes, 3);
	assert_int_equal(ss->n_tensors, 5);
	assert_null(ss->reference);
	assert_int_equal(ss->n_variants, 0);
	char axes[32];
	site_tensor_axes(ss, &ss->tensors[site_tensor_index(ss, "scale")], axes, sizeof axes);
	assert_string_equal(axes, "B,W");
	assert_int_equal(ss->tensors[4].role, SITE_SCRATCH); /* tensor.NAME lines come after the list */
	assert_string_equal(ss->tensors[4].name, "s1");
	assert_true(s->cases[0].dims.axis[1] == 16 && s->cases[0].dims.row_len == 64 && s->cases[0].dims.rows == 32);
	assert_ptr_equal(scenario_site_find(s, "ln_modulate"), site_find("ln_modulate"));
	assert_null(scenario_site_find(s, "nope"));
	char names[256];
	scenario_site_names(s, names, sizeof names);
	assert_string_equal(names, "ln_modulate, ln_continuous, qk_layernorm, residual_gate_add, ss");
	scenario_free(s);
	/* a sweep names the declared axis, and every value meets the rules */
	s = parse_ok("t.ini", SS_SITE SS_ARMS "[case c]\nsite = ss\nshape = 1x{8:4096:x8}x64\n");
	assert_int_equal(s->n_cases, 4);
	assert_string_equal(s->cases[3].name, "c[T=4096]");
	assert_string_equal(s->cases[3].axis, "T");
	scenario_free(s);
	expect_error(SS_SITE SS_ARMS "[case c]\nsite = ss\nshape = 1x{8:32768:x8}x64\n",
		     "t.ini:13: shape: site 'ss' rejects '1x32768x64' (T=32768 of the sweep): require 'T <= 4096' does not "
		     "hold (B=1, T=32768, W=64)");
}

/* Generators: [case] over [scenario] over [site] over the case's input. */
static void test_generators(void **state)
{
	(void)state;
	struct scenario *s = parse_ok("t.ini", "[scenario]\ninput.shift = uniform(-1, 1)\ninput = constant\ninput_value = 3\n"
				      SS_SITE SS_ARMS SS_CASE "input.scale = constant(2)\n"
				      "[case d]\nsite = ss\nshape = 1x8x8\n");
	const struct site_desc *ss = s->cases[0].site;
	int x = site_tensor_index(ss, "x"), sc = site_tensor_index(ss, "scale"), sh = site_tensor_index(ss, "shift");
	const struct scenario_case *c = &s->cases[0], *d = &s->cases[1];
	assert_int_equal(c->gen[x].kind, SCENARIO_GEN_NONE); /* the case's input: constant(3) */
	assert_int_equal(c->gen[sc].kind, SCENARIO_GEN_CONSTANT);
	assert_true(c->gen[sc].a == 2);
	assert_int_equal(c->gen[sh].kind, SCENARIO_GEN_UNIFORM);
	assert_int_equal(d->gen[sc].kind, SCENARIO_GEN_NORMAL); /* the site's own */
	assert_true(d->gen[sc].a == 0 && d->gen[sc].b == 0.5);
	char desc[128];
	scenario_case_describe_input(c, desc, sizeof desc);
	assert_string_equal(desc, "constant(3) scale=constant(2) shift=uniform(-1,1)");
	scenario_case_describe_input(d, desc, 24);
	assert_string_equal(desc, "constant(3) scale=no...");
	scenario_free(s);
	/* randint over an axis, evaluated per case (a sweep's too) */
	s = parse_ok("t.ini", "[site g]\naxes = B T V\ntensors = i:i32:B,T:input, o:f32:B,T:output\n"
			      "input.i = randint(1, V + 1)\n" SS_ARMS "[case c]\nsite = g\nshape = 1x2x{10,20}\n");
	assert_true(s->cases[0].gen[0].lo == 1 && s->cases[0].gen[0].hi == 11 && s->cases[1].gen[0].hi == 21);
	scenario_free(s);
	/* an i64's extremes, exactly: no double holds INT64_MAX */
	s = parse_ok("t.ini", "[site g]\naxes = B\ntensors = i:i64:B:input, j:i64:B:input, k:i32:B:input, o:f32:B:output\n"
			      "input.i = constant(9223372036854775807)\ninput.j = randint(-9223372036854775807 - 1, "
			      "9223372036854775807)\ninput.k = constant(1e3)\n" SS_ARMS "[case c]\nsite = g\nshape = 4\n");
	assert_true(s->cases[0].gen[0].lo == INT64_MAX);
	assert_true(s->cases[0].gen[1].lo == INT64_MIN && s->cases[0].gen[1].hi == INT64_MAX);
	assert_true(s->cases[0].gen[2].lo == 1000);
	scenario_case_describe_input(&s->cases[0], desc, sizeof desc);
	assert_non_null(strstr(desc, "i=constant(9223372036854775807)"));
	scenario_free(s);
}

/* Each case's arms: its own, else [arms]'s; the run's arms empty on a
 * side no case runs; one shortcut written twice is one arm. */
static void test_case_arms(void **state)
{
	(void)state;
	struct scenario *s = parse_ok("t.ini", "[case g]\nsite = residual_gate_add\nshape = 1x8x8\n"
					       "[case h]\nsite = residual_gate_add\nshape = 1x8x8\nb = fused.h1\n");
	assert_string_equal(s->arm_a, "eager");
	assert_string_equal(s->arm_b, "fused");
	assert_string_equal(s->cases[0].arm_b, "fused");
	assert_string_equal(s->cases[1].arm_b, "fused.h1");
	assert_int_equal(s->cases[1].arm_line[1], 7);
	scenario_free(s);
	s = parse_ok("t.ini", SS_SITE "[case c]\nsite = ss\nshape = 1x8x8\na = plugin:p.so:e\nb = plugin:p.so:f\n"
				      "[case d]\nsite = ss\nshape = 1x8x8\na = plugin:p.so:e\nb = plugin:p.so:g\n"
				      "[case r]\nsite = residual_gate_add\nshape = 1x8x8\n");
	assert_int_equal(s->n_arms, 3); /* e once, f, g */
	assert_int_equal(s->cases[0].arm_ref[0], s->cases[1].arm_ref[0]);
	assert_string_equal(s->cases[1].arm_b, "g");
	assert_string_equal(s->arm_a, "eager"); /* case r runs [arms]'s defaults */
	assert_int_equal(s->cases[2].arm_ref[0], -1);
	scenario_free(s);
	s = parse_ok("t.ini", SS_SITE "[case c]\nsite = ss\nshape = 1x8x8\na = plugin:p.so:e\nb = plugin:p.so:f\n");
	assert_string_equal(s->arm_a, ""); /* every case names its own */
	assert_string_equal(s->arm_b, "");
	scenario_free(s);
	/* bytes and writes of an [arm] */
	s = parse_ok("t.ini", SS_SITE "[arms]\na = e\nb = plugin:p.so:f\n[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\n"
				      "name = e\nbytes = 4 * B * T * W\nwrites = s1\n" SS_CASE);
	const struct arm_spec *e = &s->arms[s->cases[0].arm_ref[0]];
	int64_t v = 0;
	char err[64];
	assert_true(expr_eval(e->bytes_expr, &s->cases[0].dims, &v, err, sizeof err) && v == 4 * 2 * 16 * 64);
	assert_int_equal(e->writes_mask, SITE_IO(4));
	scenario_free(s);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[site ss]\naxes = B T W\ntensors = x:fp8:B,T,W:input, o:bf16:B:output\n" SS_CASE,
		     "t.ini:3: tensors: tensor 'x': unknown dtype 'fp8' (dtypes: bf16, f16, f32, i32, i64, u8)");
	expect_error("[site ss]\naxes = B T W\ntensors = x:bf16:B,T,W:weight, o:bf16:B:output\n" SS_CASE,
		     "t.ini:3: tensors: tensor 'x': unknown role 'weight' (roles: input, output, stat, scratch)");
	expect_error("[site ss]\naxes = B T\ntensors = x:bf16:B,T,W:input, o:bf16:B:output\n" SS_CASE,
		     "t.ini:3: tensors: tensor 'x' uses axis 'W', which axes lacks (axes = B T)");
	expect_error("[site ss]\naxes = B T W\ntensors = x:bf16:B:input, x:bf16:T:input, o:bf16:B:output\n" SS_CASE,
		     "t.ini:3: tensors: two tensors named 'x'");
	expect_error("[site ss]\naxes = B T W\ntensors = x:bf16:B:input, o:bf16:B:output\ntensor.x = f32:W:input\n" SS_CASE,
		     "t.ini:4: tensor.x: two tensors named 'x'");
	expect_error("[site ss]\naxes = B T W\ntensors = x:bf16:B,T,W:input\n" SS_CASE,
		     "t.ini:3: tensors: site 'ss' has no output tensor (arms are compared on their outputs: give one role "
		     "output)");
	expect_error("[site ss]\naxes = B T W\ntensors = W:bf16:B:output\n" SS_CASE,
		     "t.ini:3: tensors: tensor 'W' has the name of an axis (params and expressions could not tell them "
		     "apart)");
	expect_error("[site ss]\naxes = B T B\n", "t.ini:2: axes: axis 'B' is named twice");
	expect_error("[site ss]\ntensors = o:bf16::output\n" SS_CASE,
		     "t.ini:1: [site ss]: missing key 'axes' (the letters of a case's shape, as in axes = B T W)");
	expect_error("[site residual_gate_add]\naxes = B\n",
		     "t.ini:1: [site residual_gate_add]: 'residual_gate_add' is a built-in site (abbench sites): choose "
		     "another name");
	expect_error(SS_SITE "[site ss]\naxes = B\n", "t.ini:8: [site ss]: site 'ss' is declared twice (first at t.ini:1)");
	expect_error("[site ss]\naxes = B\ntensors = o:bf16:B:output\ncolour = red\n",
		     "t.ini:4: colour: unknown key in [site ss] (keys: summary, axes, tensors, require) (or tensor.NAME, "
		     "input.NAME)");
	expect_error("[site ss]\naxes = B\ntensors = o:bf16:B:output\nrequire = B %% 2\n",
		     "t.ini:4: require: 'B %% 2': expected a number, a symbol or '(' at '% 2'");
	expect_error(SS_SITE SS_ARMS "[case c]\nsite = ss\nshape = 1x16\n",
		     "t.ini:13: shape: site 'ss' rejects '1x16': shape must be BxTxW (3 dims), not 2 dims");
	expect_error(SS_SITE SS_ARMS "[case c]\nsite = ss\nshape = 1x16x12\n",
		     "t.ini:13: shape: site 'ss' rejects '1x16x12': require 'W % 8 == 0' does not hold (B=1, T=16, W=12)");
	expect_error(SS_SITE SS_CASE,
		     "t.ini:8: a: case 'c' (line 8) has site 'ss', which is declared (t.ini:1) and has no built-in "
		     "variant 'eager': name a plugin, cubin or python arm (a = ..., b = ... in [arms] or the case)");
	expect_error(SS_SITE "[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\nname = e\n"
			     "[case r]\nsite = residual_gate_add\nshape = 1x8x8\na = e\n",
		     "t.ini:10: site: arm 'e' is for site 'ss', but case 'r' (line 13) has site 'residual_gate_add'");
	expect_error(SS_SITE SS_ARMS SS_CASE "input.out = normal(0, 1)\n",
		     "t.ini:14: input.out: site 'ss' of case 'c' has no input tensor 'out' (its inputs: x, scale, shift)");
	expect_error(SS_SITE SS_ARMS SS_CASE "input.scale = gauss(0, 1)\n",
		     "t.ini:14: input.scale: 'gauss(0, 1)' is not a generator (normal(MEAN, STD), uniform(LOW, HIGH), "
		     "constant(VALUE), special(MEAN, STD) or randint(LOW, HIGH))");
	expect_error(SS_SITE SS_ARMS SS_CASE "input.scale = uniform(1, 1)\n",
		     "t.ini:14: input.scale: 'uniform(1, 1)': LOW (1) must be less than HIGH (1)");
	expect_error(SS_SITE SS_ARMS SS_CASE "input.scale = normal(0)\n",
		     "t.ini:14: input.scale: 'normal(0)': normal takes MEAN, STD");
	expect_error("[scenario]\ninput.nope = normal(0, 1)\n" SS_SITE SS_ARMS SS_CASE,
		     "t.ini:2: input.nope: no case's site has an input tensor 'nope' (their inputs: x, scale, shift)");
	expect_error("[site g]\naxes = B V\ntensors = i:i32:B:input, o:f32:B:output\n" SS_ARMS "[case c]\nsite = g\n"
		     "shape = 1x4\n",
		     "t.ini:7: [case c]: tensor 'i' of site 'g' is i32 and has no generator: give it one, as in input.i = "
		     "randint(0, 16)");
	expect_error("[site g]\naxes = B V\ntensors = i:u8:B:input, o:f32:B:output\ninput.i = normal(0, 1)\n",
		     "t.ini:4: input.i: 'normal(0, 1)': tensor 'i' is u8: it takes randint(LOW, HIGH) or constant(VALUE)");
	expect_error("[site g]\naxes = B V\ntensors = i:u8:B:input, o:f32:B:output\ninput.i = constant(300)\n",
		     "t.ini:4: input.i: 'constant(300)': tensor 'i' is u8, which holds the integers 0 to 255");
	/* the bounds printed as the integers they are (issue 31 row 5; before:
	 * 2^63 as 9223372036854775808, and constant(2^63) taken) */
	expect_error("[site g]\naxes = B V\ntensors = i:i64:B:input, o:f32:B:output\ninput.i = constant(9223372036854775808)\n",
		     "t.ini:4: input.i: 'constant(9223372036854775808)': tensor 'i' is i64, which holds the integers "
		     "-9223372036854775808 to 9223372036854775807");
	expect_error("[site g]\naxes = B V\ntensors = i:i64:B:input, o:f32:B:output\ninput.i = constant(1e19)\n",
		     "t.ini:4: input.i: 'constant(1e19)': tensor 'i' is i64, which holds the integers "
		     "-9223372036854775808 to 9223372036854775807");
	expect_error("[site g]\naxes = B V\ntensors = i:i32:B:input, o:f32:B:output\ninput.i = randint(0, 2147483648 + V)\n"
		     SS_ARMS "[case c]\nsite = g\nshape = 1x1\n",
		     "t.ini:4: input.i: randint(0, 2147483649) for case 'c': tensor 'i' is i32, which holds -2147483648 to "
		     "2147483647");
	expect_error("[site g]\naxes = B V\ntensors = i:u8:B:input, o:f32:B:output\ninput.i = randint(0, V + 1)\n" SS_ARMS
		     "[case c]\nsite = g\nshape = 1x300\n",
		     "t.ini:4: input.i: randint(0, 301) for case 'c': tensor 'i' is u8, which holds 0 to 255");
	expect_error(SS_SITE "[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\nname = e\nbytes = M\n" SS_CASE,
		     "t.ini:13: bytes: 'M': unknown symbol 'M' (shape symbols: B, T, W; function: cdiv(a, b))");
	/* bytes = EXPR per case, as require is (issue 31 row 6; before: the
	 * site's minimum taken without a word) */
	expect_error(SS_SITE "[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\nname = e\nbytes = B*T*W/(B-1)\n[arms]\na = e\nb = e\n"
		     "[case c]\nsite = ss\nshape = 1x16x64\n",
		     "t.ini:13: bytes: 'B*T*W/(B-1)' of arm 'e' for case 'c': division by zero");
	expect_error(SS_SITE "[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\nname = e\nbytes = B*T*W*9223372036854775807\n"
		     "[arms]\na = e\nb = e\n" SS_CASE,
		     "t.ini:13: bytes: 'B*T*W*9223372036854775807' of arm 'e' for case 'c': integer overflow");
	expect_error(SS_SITE "[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\nname = e\nbytes = T - 16\n[arms]\na = e\nb = e\n"
		     "[case c]\nsite = ss\nshape = 1x{32,16}x64\n",
		     "t.ini:13: bytes: 'T - 16' of arm 'e' for case 'c[T=16]' is 0: the bytes an arm moves must be more than 0");
	expect_error(SS_SITE "[arm e]\ntype = plugin\nsite = ss\nlibrary = p.so\nname = e\nwrites = out\n" SS_CASE,
		     "t.ini:13: writes: 'out' is not a stat or scratch tensor of site 'ss' (its stat and scratch tensors: s1)");
	expect_error("[arm e]\ntype = plugin\nlibrary = p.so\nname = e\nbytes = 4\n" "[case r]\nsite = residual_gate_add\n"
		     "shape = 1x8x8\n",
		     "t.ini:5: bytes: [arm e] needs site = NAME: its expression and tensors are the site's");
	expect_error("[case c]\nsite = sss\nshape = 1x8x8\n",
		     "t.ini:2: site: unknown site 'sss' (sites: ln_modulate, ln_continuous, qk_layernorm, residual_gate_add)");
}

/* Included site files: found relative to the scenario, each once, never
 * the scenario itself, regular files only, [site NAME] sections only;
 * their text is stored with the scenario's, so its hash covers them. */
static void test_includes(void **state)
{
	(void)state;
	char dir[64], path[160], sub[160], scn[256], want[400];
	assert_int_equal(fx_tmpdir_make(dir, sizeof dir, "include"), 0);
	snprintf(sub, sizeof sub, "%s/sites", dir);
	assert_int_equal(mkdir(sub, 0777), 0);
	snprintf(path, sizeof path, "%s/sites/ss.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(SS_SITE, f);
	fclose(f);
	snprintf(scn, sizeof scn, "%s/s.ini", dir);
	struct scenario *s = parse_ok(scn, "[scenario]\ninclude = sites/ss.ini\n" SS_ARMS SS_CASE);
	assert_non_null(strstr(s->text, "; ---- abbench: included "));
	assert_non_null(strstr(s->text, "[site ss]"));
	snprintf(want, sizeof want, "%s/sites/ss.ini:1", dir);
	assert_string_equal(s->cases[0].site->declared_at, want);
	char hash[65];
	memcpy(hash, s->hash, sizeof hash);
	scenario_free(s);
	/* the included file's bytes are part of the scenario's hash */
	f = fopen(path, "a");
	fputs("; a comment\n", f);
	fclose(f);
	s = parse_ok(scn, "[scenario]\ninclude = sites/ss.ini\n" SS_ARMS SS_CASE);
	assert_string_not_equal(s->hash, hash);
	scenario_free(s);
	struct {
		const char *text, *want;
	} bad[] = {
		{ "[scenario]\ninclude = sites/none.ini\n", "%s/s.ini:2: include: cannot include '%s/sites/none.ini': No such "
							  "file or directory" },
		{ "[scenario]\ninclude = s.ini\n", "%s/s.ini:2: include: 's.ini' is this scenario: a file cannot include itself" },
		{ "[scenario]\ninclude = sites/ss.ini, ./sites/ss.ini\n", "%s/s.ini:2: include: './sites/ss.ini' is included twice" },
		{ "[scenario]\ninclude = sites\n", "%s/s.ini:2: include: cannot include '%s/sites': it is a directory, not a regular file" },
		{ "[scenario]\ninclude = sites/ss.ini,\n", "%s/s.ini:2: include: 'sites/ss.ini,' has an empty file name" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ab_diag d = { "" };
		char msg[600];
		snprintf(msg, sizeof msg, bad[i].want, dir, dir);
		assert_int_equal(scenario_parse_text(scn, bad[i].text, &s, &d), AB_ERR_INPUT);
		assert_string_equal(d.msg, msg);
	}
	/* an included file holds [site NAME] sections only */
	f = fopen(path, "w");
	fputs("[site q]\naxes = B\ntensors = o:f32:B:output\n[case x]\nsite = q\n", f);
	fclose(f);
	struct ab_diag d = { "" };
	assert_int_equal(scenario_parse_text(scn, "[scenario]\ninclude = sites/ss.ini\n", &s, &d), AB_ERR_INPUT);
	snprintf(want, sizeof want, "%s/sites/ss.ini:4: [case x]: an included file holds [site NAME] sections only", dir);
	assert_string_equal(d.msg, want);
	/* a site file alone, no case: abbench sites FILE */
	f = fopen(path, "w");
	fputs("[site q]\naxes = B\ntensors = o:f32:B:output\n", f);
	fclose(f);
	assert_int_equal(scenario_parse_sites(path, &s, &d), AB_OK);
	assert_int_equal(s->n_sites, 1);
	assert_int_equal(s->n_cases, 0);
	scenario_free(s);
	fx_tmpdir_remove(sub);
	fx_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declared_site),
		cmocka_unit_test(test_generators),
		cmocka_unit_test(test_case_arms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_includes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
