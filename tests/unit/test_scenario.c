/*
 * test_scenario.c - the INI scenario parser: the shipped scenarios parse to
 * the values their files spell out, defaults and overrides apply, sweeps
 * expand (and refuse what does not expand), [arm NAME] sections are kept
 * as written. The other error paths (each its exact "FILE:LINE: KEY:
 * reason" line, nothing left behind) are in test_scenario_errors.c; the
 * shared fixture in scenario_fixture.h.
 *
 * Run from the repository root (the shipped scenarios are opened by
 * relative path). Expected values are read off the .ini files by
 * eye; the sha256 below was computed with `printf ... | sha256sum`; the
 * LayerNorm launch count 362 is the model's (docs/BLOCK.md: ATEN_CHAIN.md's
 * 242 counts norm1 only).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/scenario.h"
#include "scenario_fixture.h"

/* ---- the shipped scenarios ---------------------------------------------- */

/* LayerNorm launches a step, from the parsed counts: the qk site launches
 * one LayerNorm for q and one for k. */
static long ln_launches_per_step(const struct scenario *s)
{
	long per_forward = 0;
	for (int i = 0; i < s->n_cases; i++) {
		const char *site = s->cases[i].site->name;
		if (strcmp(site, "qk_layernorm") == 0)
			per_forward += 2L * s->cases[i].count;
		else if (strcmp(site, "residual_gate_add") != 0)
			per_forward += s->cases[i].count;
	}
	return per_forward * s->forwards_per_step;
}

static void test_glm_1024(void **state)
{
	(void)state;
	struct scenario *s = parse_file_ok("scenarios/glm_1024.ini");
	assert_string_equal(s->path, "scenarios/glm_1024.ini");
	assert_string_equal(s->name, "glm_1024");
	assert_string_equal(s->backend, BACKEND_AUTO);
	assert_string_equal(s->dtype, "bf16");
	assert_string_equal(s->bracket, "ABA");
	assert_true(s->seed == 20261129u);
	assert_int_equal(s->sampling.warmup, 5);
	assert_int_equal(s->sampling.min_samples, 50);
	assert_int_equal(s->sampling.max_samples, 2000);
	assert_true(s->sampling.min_time_ms == 10);
	assert_true(s->sampling.max_time_ms == 2000);
	assert_true(s->sampling.target_noise == 0.005);
	assert_true(s->l2_flush);
	assert_int_equal(s->launch_gaps, BACKEND_GAPS_INCLUDE);
	assert_string_equal(s->arm_a, "eager");
	assert_string_equal(s->arm_b, "fused");
	assert_int_equal(s->steps, 30);
	assert_int_equal(s->forwards_per_step, 2);
	assert_int_equal(s->n_cases, 6);

	static const struct {
		const char *name, *site, *shape;
		int count;
		int64_t rows, row_len;
	} want[] = {
		{ "img_ln_modulate", "ln_modulate", "1x4096x4096", 60, 4096, 4096 },
		{ "txt_ln_modulate", "ln_modulate", "1x264x4096", 60, 264, 4096 },
		{ "qk_layernorm", "qk_layernorm", "1x4360x32x128", 30, 4360 * 32, 128 },
		{ "ln_continuous", "ln_continuous", "1x4096x4096", 1, 4096, 4096 },
		{ "img_gate_add", "residual_gate_add", "1x4096x4096", 60, 4096, 4096 },
		{ "txt_gate_add", "residual_gate_add", "1x264x4096", 60, 264, 4096 },
	};
	for (int i = 0; i < 6; i++) {
		const struct scenario_case *c = &s->cases[i];
		assert_string_equal(c->name, want[i].name);
		assert_string_equal(c->site->name, want[i].site);
		assert_shape(c, want[i].shape);
		assert_int_equal(c->count, want[i].count);
		assert_int_equal(c->dims.rows, want[i].rows);
		assert_int_equal(c->dims.row_len, want[i].row_len);
		assert_int_equal(c->dims.width, 4096);
		assert_true(c->eps == 1e-5);
		assert_false(c->affine);
		assert_int_equal(c->input.dist, SCENARIO_DIST_NORMAL);
		assert_true(c->input.mean == 0 && c->input.std == 1);
	}
	assert_int_equal(s->cases[2].dims.heads, 32);
	/* The model: 2 x (60 image + 60 text + 30 q + 30 k + 1 norm_out) LayerNorm
	 * launches a step (docs/BLOCK.md, "Sites per block"). */
	assert_int_equal(ln_launches_per_step(s), 362);

	char *bytes = slurp("scenarios/glm_1024.ini");
	assert_string_equal(s->text, bytes);
	free(bytes);
	assert_int_equal(strlen(s->hash), 64);
	scenario_free(s);
}

/* s with the first "from" replaced by "to" (malloc'd). */
static char *replaced(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	assert_non_null(at);
	size_t n = strlen(s) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return out;
}

/* glm_1024_noflush.ini is glm_1024.ini from [scenario] on, but for its
 * name, description and l2_flush (the sed its header names). */
static void test_glm_1024_noflush(void **state)
{
	(void)state;
	struct scenario *s = parse_file_ok("scenarios/glm_1024.ini");
	struct scenario *n = parse_file_ok("scenarios/glm_1024_noflush.ini");
	assert_true(s->l2_flush && !n->l2_flush);
	assert_string_equal(n->name, "glm_1024_noflush");
	char *a = replaced(strstr(s->text, "\n[scenario]\n") + 1, "\nname = glm_1024\n", "\nname = glm_1024_noflush\n");
	char *b = replaced(a, "\nl2_flush = true\n", "\nl2_flush = false\n");
	char *c = replaced(b, " at real shapes\n", " at real shapes (no L2 flush)\n");
	assert_string_equal(strstr(n->text, "\n[scenario]\n") + 1, c);
	free(a);
	free(b);
	free(c);
	scenario_free(s);
	scenario_free(n);
}

static void test_smoke_and_aa(void **state)
{
	(void)state;
	static const char *const sites[] = { "ln_modulate", "ln_continuous", "qk_layernorm", "residual_gate_add" };
	struct scenario *smoke = parse_file_ok("scenarios/smoke.ini");
	struct scenario *aa = parse_file_ok("scenarios/aa_smoke.ini");
	assert_string_equal(smoke->arm_b, "fused");
	assert_string_equal(aa->arm_a, "eager");
	assert_string_equal(aa->arm_b, "eager");
	assert_string_equal(aa->name, "aa_smoke");
	assert_int_equal(smoke->sampling.warmup, 1);
	assert_int_equal(smoke->sampling.min_samples, 3);
	assert_int_equal(smoke->sampling.max_samples, 20);
	assert_true(smoke->sampling.min_time_ms == 5 && smoke->sampling.max_time_ms == 200);
	assert_int_equal(smoke->n_cases, aa->n_cases);
	for (size_t j = 0; j < 4; j++) {
		bool seen = false;
		for (int i = 0; i < smoke->n_cases; i++)
			seen |= strcmp(smoke->cases[i].site->name, sites[j]) == 0;
		assert_true(seen);
	}
	for (int i = 0; i < smoke->n_cases; i++) {
		assert_string_equal(smoke->cases[i].name, aa->cases[i].name);
		assert_true(smoke->cases[i].dims.rows * smoke->cases[i].dims.row_len <= 4096);
		assert_int_equal(smoke->cases[i].dims.width % 4, 0);
	}
	assert_shape(find_case(smoke, "qk_layernorm"), "1x8x4x128");
	assert_shape(find_case(smoke, "ln_modulate_short"), "1x4x64");
	scenario_free(smoke);
	scenario_free(aa);
}

static void test_hostile(void **state)
{
	(void)state;
	struct scenario *s = parse_file_ok("scenarios/hostile.ini");
	const struct scenario_case *c = find_case(s, "offset_1e5");
	assert_int_equal(c->input.dist, SCENARIO_DIST_NORMAL);
	assert_true(c->input.mean == 1e5 && c->input.std == 1);
	c = find_case(s, "offset_1000");
	assert_true(c->input.mean == 1000 && c->input.std == 1);
	c = find_case(s, "constant_1000");
	assert_int_equal(c->input.dist, SCENARIO_DIST_CONSTANT);
	assert_true(c->input.value == 1000);
	assert_true(find_case(s, "constant_1e5")->input.value == 1e5);
	assert_int_equal(find_case(s, "special")->input.dist, SCENARIO_DIST_SPECIAL);
	c = find_case(s, "uniform_100");
	assert_int_equal(c->input.dist, SCENARIO_DIST_UNIFORM);
	assert_true(c->input.low == -100 && c->input.high == 100);
	assert_int_equal(find_case(s, "one_row")->dims.rows, 1);
	assert_int_equal(find_case(s, "short_rows_32")->dims.rows, 16384);
	assert_int_equal(find_case(s, "w3072")->dims.width, 3072);
	assert_int_equal(find_case(s, "w5120")->dims.width, 5120);
	assert_true(find_case(s, "affine")->affine);
	assert_true(find_case(s, "qk_affine")->affine);
	assert_false(find_case(s, "w3072")->affine);
	/* count defaults to 1 where the file gives none */
	assert_int_equal(find_case(s, "special")->count, 1);
	scenario_free(s);
}

static void test_qk_heads(void **state)
{
	(void)state;
	struct scenario *s = parse_file_ok("scenarios/qk_heads.ini");
	static const int64_t dims[] = { 64, 96, 128 };
	char name[32];
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "qk_d%d", (int)dims[i]);
		const struct scenario_case *c = find_case(s, name);
		assert_string_equal(c->site->name, "qk_layernorm");
		assert_int_equal(c->dims.row_len, dims[i]);
		assert_int_equal(c->dims.heads, 32);
		assert_int_equal(c->dims.rows, 4360 * 32);
		snprintf(name, sizeof name, "qk_d%d_special", (int)dims[i]);
		assert_int_equal(find_case(s, name)->input.dist, SCENARIO_DIST_SPECIAL);
	}
	scenario_free(s);
}

/* ---- defaults, overrides, helpers ---------------------------------------- */

static void test_defaults(void **state)
{
	(void)state;
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(scenario_parse_text("some/dir/minimal.ini", MIN_TEXT, &s, &d), AB_OK);
	assert_string_equal(s->name, "minimal");
	assert_string_equal(s->description, "");
	assert_string_equal(s->backend, BACKEND_AUTO);
	assert_string_equal(s->dtype, "bf16");
	assert_string_equal(s->bracket, "ABA");
	assert_true(s->seed == 1);
	assert_int_equal(s->sampling.warmup, 3);
	assert_int_equal(s->sampling.min_samples, 10);
	assert_int_equal(s->sampling.max_samples, 1000);
	assert_true(s->sampling.min_time_ms == 500 && s->sampling.max_time_ms == 15000);
	assert_true(s->sampling.target_noise == 0.005);
	assert_true(s->l2_flush);
	assert_int_equal(s->launch_gaps, BACKEND_GAPS_HIDE); /* the kernel question by default */
	assert_string_equal(s->arm_a, "eager");
	assert_string_equal(s->arm_b, "fused");
	assert_int_equal(s->steps, 1);
	assert_int_equal(s->forwards_per_step, 1);
	assert_int_equal(s->n_cases, 1);
	const struct scenario_case *c = &s->cases[0];
	assert_true(c->eps == 1e-5);
	assert_false(c->affine);
	assert_int_equal(c->count, 1);
	assert_int_equal(c->line, 1);
	assert_int_equal(c->input.dist, SCENARIO_DIST_NORMAL);
	assert_true(c->input.mean == 0 && c->input.std == 1 && c->input.low == -1 && c->input.high == 1 &&
		    c->input.value == 1);
	/* printf '[case a]\nsite = ln_modulate\nshape = 1x16x256\n' | sha256sum */
	assert_string_equal(s->hash, "e6a73f5f6aa7cc8b664f137d1df69ca7968abbe3d6cac4dafcc8c62d2c5fe342");
	assert_string_equal(s->text, MIN_TEXT);
	scenario_free(s);
}

/* [scenario] may come after the cases; a case overrides single fields of
 * the input defaults and inherits the rest. */
static void test_input_overrides(void **state)
{
	(void)state;
	struct scenario *s = parse_text_ok("[case own]\n"
					   "site = ln_modulate\n"
					   "shape = 1x16x256\n"
					   "input_high = 10\n"
					   "[case inherit]\n"
					   "site = qk_layernorm\n"
					   "shape = 1x8x4x128\n"
					   "[case other]\n"
					   "site = ln_modulate\n"
					   "shape = 1x16x256\n"
					   "input = constant\n"
					   "input_value = -2.5\n"
					   "[scenario]\n"
					   "input = uniform\n"
					   "input_low = -5\n"
					   "input_high = 5\n"
					   "input_mean = 3\n");
	const struct scenario_case *own = find_case(s, "own"), *inh = find_case(s, "inherit"), *oth = find_case(s, "other");
	assert_int_equal(own->input.dist, SCENARIO_DIST_UNIFORM);
	assert_true(own->input.low == -5 && own->input.high == 10 && own->input.mean == 3);
	assert_int_equal(inh->input.dist, SCENARIO_DIST_UNIFORM);
	assert_true(inh->input.low == -5 && inh->input.high == 5);
	assert_int_equal(oth->input.dist, SCENARIO_DIST_CONSTANT);
	assert_true(oth->input.value == -2.5 && oth->input.low == -5);
	assert_int_equal(inh->line, 5);
	scenario_free(s);
}

/* Every value form the documentation promises. */
static void test_value_forms(void **state)
{
	(void)state;
	struct scenario *s = parse_text_ok("\xEF\xBB\xBF; a BOM, CRLF line ends, blanks and comments\r\n"
					   "[ scenario ]   ; inline comment after a header\r\n"
					   "  backend = cpu\r\n"
					   "\tseed = 18446744073709551615\r\n"
					   "l2_flush = no ; an inline comment\r\n"
					   "launch_gaps = hide\r\n"
					   "bracket = ABABA\r\n"
					   "description = speed; not accuracy\r\n"
					   "target_noise : 0.02\r\n"
					   "warmup = 0\r\n"
					   "# hash comment\r\n"
					   "[model]\r\n"
					   "steps = +4\r\n"
					   "[case x.y-z_1]\r\n"
					   "site = ln_continuous\r\n"
					   "shape = 2x8x128\r\n"
					   "affine = yes\r\n"
					   "eps = 1e-6\r\n"
					   "count = 7\r\n");
	assert_string_equal(s->backend, "cpu");
	assert_true(s->seed == UINT64_MAX);
	assert_false(s->l2_flush);
	assert_int_equal(s->launch_gaps, BACKEND_GAPS_HIDE);
	assert_string_equal(s->bracket, "ABABA");
	assert_string_equal(s->description, "speed; not accuracy");
	assert_true(s->sampling.target_noise == 0.02);
	assert_int_equal(s->sampling.warmup, 0);
	assert_int_equal(s->steps, 4);
	const struct scenario_case *c = &s->cases[0];
	assert_string_equal(c->name, "x.y-z_1");
	assert_int_equal(c->line, 14);
	assert_true(c->affine);
	assert_true(c->eps == 1e-6);
	assert_int_equal(c->count, 7);
	assert_int_equal(c->dims.batch, 2);
	assert_int_equal(c->dims.rows, 16);
	scenario_free(s);
}

static void test_keep_only(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct scenario *s = parse_file_ok("scenarios/glm_1024.ini");
	assert_int_equal(scenario_keep_only(s, "nope", &d), AB_ERR_USAGE);
	assert_string_equal(d.msg, "no case matches 'nope' in 'scenarios/glm_1024.ini' (cases: img_ln_modulate, "
				   "txt_ln_modulate, qk_layernorm, ln_continuous, img_gate_add, txt_gate_add)");
	assert_int_equal(s->n_cases, 6);
	assert_int_equal(scenario_keep_only(s, "ln_continuous", &d), AB_OK);
	assert_int_equal(s->n_cases, 1);
	assert_string_equal(s->cases[0].name, "ln_continuous");
	assert_int_equal(s->cases[0].count, 1);
	scenario_free(s);
}

/* ---- sweeps ------------------------------------------------------------- */

static void assert_swept(const struct scenario_case *c, const char *name, const char *sweep, const char *axis,
			 int64_t value, const char *shape)
{
	assert_string_equal(c->name, name);
	assert_string_equal(c->sweep, sweep);
	assert_string_equal(c->axis, axis);
	assert_true(c->axis_value == value);
	assert_shape(c, shape);
}

static void test_sweep_expansion(void **state)
{
	(void)state;
	struct scenario *s = parse_text_ok("[case first]\nsite = residual_gate_add\nshape = 1x16x256\n"
					   "[case img]\nshape = 1x{1024,256,4096}x4096\nsite = ln_modulate\ncount = 3\n"
					   "[case q]\nsite = qk_layernorm\nshape = 2x64x8x{64:128:+32}\n"
					   "[case w]\nsite = ln_continuous\nshape = {1:8:x2}x16x256\n");
	assert_int_equal(s->n_cases, 1 + 3 + 3 + 4);
	assert_swept(&s->cases[0], "first", "", "", 0, "1x16x256");
	/* in place, in the order written, each with the case's other keys */
	assert_swept(&s->cases[1], "img[T=1024]", "img", "T", 1024, "1x1024x4096");
	assert_swept(&s->cases[2], "img[T=256]", "img", "T", 256, "1x256x4096");
	assert_swept(&s->cases[3], "img[T=4096]", "img", "T", 4096, "1x4096x4096");
	assert_int_equal(s->cases[3].count, 3);
	assert_true(s->cases[3].dims.tokens == 4096 && s->cases[3].dims.rows == 4096);
	/* the axis letter from the site's shape: BxTxHxD */
	assert_swept(&s->cases[4], "q[D=64]", "q", "D", 64, "2x64x8x64");
	assert_swept(&s->cases[5], "q[D=96]", "q", "D", 96, "2x64x8x96");
	assert_swept(&s->cases[6], "q[D=128]", "q", "D", 128, "2x64x8x128");
	assert_true(s->cases[6].dims.row_len == 128 && s->cases[6].dims.rows == 2 * 64 * 8);
	assert_swept(&s->cases[7], "w[B=1]", "w", "B", 1, "1x16x256");
	assert_swept(&s->cases[10], "w[B=8]", "w", "B", 8, "8x16x256");
	scenario_free(s);
	/* a range stops at the last value not above its end */
	s = parse_text_ok("[case g]\nsite = residual_gate_add\nshape = 1x{3:20:x3}x256\n");
	assert_int_equal(s->n_cases, 2); /* 3, 9 */
	assert_string_equal(s->cases[1].name, "g[T=9]");
	scenario_free(s);
	s = parse_text_ok("[case g]\nsite = residual_gate_add\nshape = 1x{5}x256\n");
	assert_swept(&s->cases[0], "g[T=5]", "g", "T", 5, "1x5x256");
	scenario_free(s);
}

static void test_glm_sweep(void **state)
{
	(void)state;
	static const char *const sweeps[] = { "ln_modulate", "ln_continuous", "qk_layernorm", "gate_add" };
	struct scenario *s = parse_file_ok("scenarios/glm_sweep.ini");
	assert_int_equal(s->n_cases, 4 * 7);
	for (int i = 0; i < s->n_cases; i++) {
		const struct scenario_case *c = &s->cases[i];
		char name[64];
		int64_t t = (int64_t)256 << (i % 7);
		snprintf(name, sizeof name, "%s[T=%lld]", sweeps[i / 7], (long long)t);
		assert_string_equal(c->name, name);
		assert_true(c->axis_value == t && c->dims.tokens == t);
		assert_true(c->dims.width == 4096);
		assert_true(c->dims.row_len == (i / 7 == 2 ? 128 : 4096));
	}
	assert_int_equal(s->sampling.noise, SCENARIO_NOISE_MEDIAN);
	scenario_free(s);
}

static void test_sweep_errors(void **state)
{
	(void)state;
	char many[64 * 6 + 64], want[512];
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16,32x256\n",
		     "t.ini:3: shape: '1x{16,32x256' opens a sweep with '{' and never closes it");
	expect_error("[case a]\nsite = ln_modulate\nshape = {1,2}x{16,32}x256\n",
		     "t.ini:3: shape: '{1,2}x{16,32}x256' sweeps more than one dimension (one per case)");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x1{6,7}x256\n",
		     "t.ini:3: shape: '1x1{6,7}x256': a sweep in braces must be a whole dimension, as in "
		     "1x{256,1024}x4096");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16,,32}x256\n",
		     "t.ini:3: shape: sweep '16,,32' is not a list of positive integers, as in {256,1024}");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{}x256\n",
		     "t.ini:3: shape: sweep '' is not a list of positive integers, as in {256,1024}");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16,0}x256\n",
		     "t.ini:3: shape: sweep '16,0' is not a list of positive integers, as in {256,1024}");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16,32,16}x256\n",
		     "t.ini:3: shape: sweep '16,32,16' lists 16 twice");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16:64}x256\n",
		     "t.ini:3: shape: sweep '16:64' is not a range LOW:HIGH:xFACTOR or LOW:HIGH:+STEP, as in "
		     "{256:16384:x2}");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16:64:*2}x256\n",
		     "t.ini:3: shape: sweep '16:64:*2' is not a range LOW:HIGH:xFACTOR or LOW:HIGH:+STEP, as in "
		     "{256:16384:x2}");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{64:16:x2}x256\n",
		     "t.ini:3: shape: sweep '64:16:x2' starts above its end");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16:64:x1}x256\n",
		     "t.ini:3: shape: sweep '16:64:x1' multiplies by 1: the factor must be at least 2");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{1:65:+1}x256\n",
		     "t.ini:3: shape: sweep '1:65:+1' has more than 64 values (the limit of one sweep)");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x{16,32}x256x5x5x6x7x8x9\n",
		     "t.ini:3: shape: '1x{16,32}x256x5x5x6x7x8x9' is not a shape (1 to 8 positive dimensions joined by 'x', as "
		     "in 1x{256:16384:x2}x4096)");
	/* every value meets the site's rule, reported at the shape line */
	snprintf(want, sizeof want, "t.ini:2: shape: site 'ln_modulate' rejects '1x16x250' (W=250 of the sweep): %s",
		 geometry_reason("ln_modulate", "1x16x250"));
	expect_error("[case a]\nshape = 1x16x{256,250}\nsite = ln_modulate\n", want);
	/* a 57-character name fits with [T=16] (63), not with [T=128] (64) */
	expect_error("[case abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz01234]\nsite = ln_modulate\n"
		     "shape = 1x{16,128}x256\n",
		     "t.ini:1: [case abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz01234]: expanded case name "
		     "'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz01234[T=128]' is 64 characters long, at most "
		     "63 allowed (shorten the case name)");
	/* 17 sweeps of 64: 1088 cases, past the limit at the 17th */
	char text[17 * 80 + 1] = "";
	for (int i = 0; i < 17; i++) {
		snprintf(many, sizeof many, "[case c%d]\nsite = residual_gate_add\nshape = 1x{1:64:+1}x4\n", i);
		strcat(text, many);
	}
	expect_error(text, "t.ini:51: [case c16]: the scenario expands to more than 1024 cases (the limit)");
}

static void test_keep_only_globs(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct scenario *s = parse_file_ok("scenarios/glm_sweep.ini");
	assert_int_equal(scenario_keep_only(s, "qk_layernorm[T=1024]", &d), AB_OK); /* a name, not a glob */
	assert_int_equal(s->n_cases, 1);
	assert_string_equal(s->cases[0].name, "qk_layernorm[T=1024]");
	scenario_free(s);
	s = parse_file_ok("scenarios/glm_sweep.ini");
	assert_int_equal(scenario_keep_only(s, "gate_add*,ln_*[[]T=256]", &d), AB_OK);
	assert_int_equal(s->n_cases, 7 + 2);
	assert_string_equal(s->cases[0].name, "ln_modulate[T=256]"); /* scenario order, not pattern order */
	assert_string_equal(s->cases[1].name, "ln_continuous[T=256]");
	assert_string_equal(s->cases[8].name, "gate_add[T=16384]");
	assert_int_equal(scenario_keep_only(s, "gate_add*,nothing*", &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "no case matches 'nothing*' in 'scenarios/glm_sweep.ini' (cases: "));
	assert_int_equal(s->n_cases, 9); /* untouched on error */
	assert_int_equal(scenario_keep_only(s, "gate_add*,", &d), AB_ERR_USAGE);
	scenario_free(s);
}

static void test_noise_measure(void **state)
{
	(void)state;
	struct scenario *s = parse_text_ok(MIN_TEXT);
	assert_int_equal(s->sampling.noise, SCENARIO_NOISE_MEDIAN);
	assert_string_equal(scenario_noise_str(s->sampling.noise), "median");
	scenario_free(s);
	s = parse_text_ok("[scenario]\nnoise_measure = mean\n" MIN_TEXT);
	assert_int_equal(s->sampling.noise, SCENARIO_NOISE_MEAN);
	assert_string_equal(scenario_noise_str(s->sampling.noise), "mean");
	scenario_free(s);
	expect_error("[scenario]\nnoise_measure = mad\n" MIN_TEXT,
		     "t.ini:2: noise_measure: 'mad' is not one of: median, mean");
}

static void test_strings(void **state)
{
	(void)state;
	char buf[128];
	assert_string_equal(scenario_dist_str(SCENARIO_DIST_NORMAL), "normal");
	assert_string_equal(scenario_dist_str(SCENARIO_DIST_UNIFORM), "uniform");
	assert_string_equal(scenario_dist_str(SCENARIO_DIST_CONSTANT), "constant");
	assert_string_equal(scenario_dist_str(SCENARIO_DIST_SPECIAL), "special");
	struct scenario_input in = { SCENARIO_DIST_NORMAL, 0, 1, -1, 1, 1 };
	scenario_input_describe(&in, buf, sizeof buf);
	assert_string_equal(buf, "normal(mean=0,std=1)");
	in = (struct scenario_input){ SCENARIO_DIST_UNIFORM, 0, 1, -100, 100, 1 };
	scenario_input_describe(&in, buf, sizeof buf);
	assert_string_equal(buf, "uniform(low=-100,high=100)");
	in = (struct scenario_input){ SCENARIO_DIST_CONSTANT, 0, 1, -1, 1, 1000 };
	scenario_input_describe(&in, buf, sizeof buf);
	assert_string_equal(buf, "constant(1000)");
	in = (struct scenario_input){ SCENARIO_DIST_SPECIAL, 1e5, 0.5, -1, 1, 1 };
	scenario_input_describe(&in, buf, sizeof buf);
	assert_string_equal(buf, "special(mean=100000,std=0.5)");
}

/* ---- user arms ---------------------------------------------------------- */

/* [arm NAME] sections and KIND:PATH:NAME shortcuts as config/ keeps them:
 * name, kind, site and the other keys as records with their lines (their
 * meaning is the kind's: test_arms, test_cubin_spec). */
static void test_user_arms(void **state)
{
	(void)state;
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	const char *text = "[arms]\na = plugin:../lib/libp.so:p_eager\nb = mine\n"          /* 1-3 */
			   "[arm mine]\ntype = cubin\nsite = residual_gate_add\n"            /* 4-6 */
			   "binary = k.cubin\nkernel = k\ngrid = cdiv(M * W, 256), 1\n"       /* 7-9 */
			   "block = 256\nshared = 0\nparams = x, ff, gate, out, M * W:i64, eps\n" /* 10-12 */
			   "[arm unused]\ntype = plugin\nlibrary = /opt/l.so\nname = u\n"    /* 13-16 */
			   GATE_CASE;
	assert_int_equal(scenario_parse_text("dir/sc.ini", text, &s, &d), AB_OK);
	assert_int_equal(s->n_arms, 3);
	assert_string_equal(s->arm_a, "p_eager");
	assert_string_equal(s->arm_b, "mine");
	assert_int_equal(s->arm_ref[1], 0);
	const struct arm_spec *m = &s->arms[0];
	assert_string_equal(m->kind, "cubin");
	assert_false(arm_spec_is_shortcut(m));
	assert_ptr_equal(m->site, site_find("residual_gate_add"));
	assert_int_equal(m->header, 4);
	assert_int_equal(m->kind_line, 5);
	assert_int_equal(m->site_line, 6);
	assert_int_equal(m->n_keys, 6);
	assert_string_equal(m->keys[0].key, "binary");
	assert_string_equal(m->keys[0].value, "k.cubin"); /* as written: the kind resolves it */
	assert_int_equal(m->keys[0].line, 7);
	assert_string_equal(arm_spec_find(m, "grid")->value, "cdiv(M * W, 256), 1");
	assert_string_equal(arm_spec_find(m, "params")->value, "x, ff, gate, out, M * W:i64, eps");
	assert_int_equal(arm_spec_line(m, "params"), 12);
	assert_string_equal(arm_spec_find(&s->arms[1], "library")->value, "/opt/l.so");
	assert_string_equal(arm_spec_find(&s->arms[1], "name")->value, "u");
	const struct arm_spec *p = &s->arms[s->arm_ref[0]];
	assert_int_equal(s->arm_ref[0], 2);
	assert_true(arm_spec_is_shortcut(p));
	assert_string_equal(p->kind, "plugin");
	assert_string_equal(p->via, "a");
	assert_null(p->site);
	assert_string_equal(p->path, "../lib/libp.so");
	assert_string_equal(p->name, "p_eager");
	assert_int_equal(p->header, 2);
	assert_int_equal(arm_spec_line(p, "library"), 2);
	scenario_free(s);
	/* built-in variants keep no arm */
	s = parse_text_ok(GATE_CASE);
	assert_int_equal(s->n_arms, 0);
	assert_int_equal(s->arm_ref[0], -1);
	assert_int_equal(s->arm_ref[1], -1);
	scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glm_1024),
		cmocka_unit_test(test_glm_1024_noflush),
		cmocka_unit_test(test_smoke_and_aa),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_qk_heads),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_input_overrides),
		cmocka_unit_test(test_value_forms),
		cmocka_unit_test(test_keep_only),
		cmocka_unit_test(test_sweep_expansion),
		cmocka_unit_test(test_glm_sweep),
		cmocka_unit_test(test_sweep_errors),
		cmocka_unit_test(test_keep_only_globs),
		cmocka_unit_test(test_noise_measure),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_user_arms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
