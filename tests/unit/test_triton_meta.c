/*
 * test_triton_meta.c - Triton's kernel metadata: the fields of a Triton
 * 3.6 cache .json (as measured on the H200 machine, /work/shared/ANCHORS.md),
 * older files without the scratch keys, and every refusal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arms/triton_meta.h"

/* The shape of a Triton 3.6.0 NAME.json. */
static const char META36[] =
	"{\"hash\": \"4c1d\", \"target\": {\"backend\": \"cuda\", \"arch\": 90, \"warp_size\": 32}, \"num_warps\": 8, "
	"\"num_ctas\": 1, \"num_stages\": 3, \"warp_size\": 32, \"maxnreg\": null, \"cluster_dims\": [1, 1, 1], "
	"\"ptx_version\": null, \"enable_fp_fusion\": true, \"launch_cooperative_grid\": false, \"launch_pdl\": false, "
	"\"supported_fp8_dtypes\": [\"fp8e4nv\", \"fp8e5\"], \"shared\": 128, \"tmem_size\": 0, "
	"\"global_scratch_size\": 0, \"global_scratch_align\": 1, \"profile_scratch_size\": 0, "
	"\"profile_scratch_align\": 1, \"name\": \"ln_modulate_kernel\", \"triton_version\": \"3.6.0\"}";

static void parse_fails(const char *text, const char *want)
{
	struct triton_meta m;
	char err[256] = "";
	assert_false(triton_meta_parse(text, &m, err, sizeof err));
	if (!strstr(err, want))
		fail_msg("got: %s\nwant: %s", err, want);
}

static void test_triton36(void **state)
{
	(void)state;
	struct triton_meta m;
	char err[256] = "";
	assert_true(triton_meta_parse(META36, &m, err, sizeof err));
	assert_string_equal(m.name, "ln_modulate_kernel");
	assert_int_equal(m.num_warps, 8);
	assert_int_equal(m.num_ctas, 1);
	assert_int_equal(m.shared, 128);
	assert_string_equal(m.backend, "cuda");
	assert_int_equal(m.arch, 90);
	assert_int_equal(m.warp_size, 32);
	assert_true(m.has_global_scratch);
	assert_true(m.has_profile_scratch);
	assert_int_equal(m.global_scratch_size, 0);
	assert_int_equal(m.profile_scratch_align, 1);
	assert_false(m.cooperative);
	assert_false(m.pdl);
	assert_string_equal(m.version, "3.6.0");
	assert_int_equal(triton_meta_scratch_params(&m), 2);
}

/* Before the scratch pointers existed: no trailing parameters. */
static void test_older(void **state)
{
	(void)state;
	struct triton_meta m;
	char err[256] = "";
	const char *old = "{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"target\": {\"backend\": \"cuda\", \"arch\": 80}}";
	assert_true(triton_meta_parse(old, &m, err, sizeof err));
	assert_int_equal(triton_meta_scratch_params(&m), 0);
	assert_int_equal(m.num_ctas, 1);
	assert_int_equal(m.warp_size, 32);
	assert_string_equal(m.version, "");
	const char *one = "{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"target\": {\"backend\": \"cuda\", \"arch\": 90}, "
			  "\"global_scratch_size\": 64, \"global_scratch_align\": 16}";
	assert_true(triton_meta_parse(one, &m, err, sizeof err));
	assert_int_equal(triton_meta_scratch_params(&m), 1);
	assert_int_equal(m.global_scratch_size, 64);
	assert_int_equal(m.global_scratch_align, 16);
}

/* META36 with its member from replaced by to, into text (2048 bytes). */
static void edited(char *text, const char *from, const char *to)
{
	const char *at = strstr(META36, from);
	assert_non_null(at);
	snprintf(text, 2048, "%.*s%s%s", (int)(at - META36), META36, to, at + strlen(from));
}

static void test_refusals(void **state)
{
	(void)state;
	char text[2048];
	parse_fails("", "not valid JSON");
	parse_fails("{\"name\": ", "not valid JSON");
	parse_fails("[1, 2]", "the metadata is not a JSON object");
	parse_fails("{\"num_warps\": 4, \"shared\": 0}", "no 'name' in the metadata");
	parse_fails("{\"name\": \"\", \"num_warps\": 4}", "'name' is not a string of 1 to 255 characters");
	parse_fails("{\"name\": 3, \"num_warps\": 4}", "'name' is not a string");
	parse_fails("{\"name\": \"k\", \"shared\": 0}", "no 'num_warps' in the metadata");
	parse_fails("{\"name\": \"k\", \"num_warps\": 4.5, \"shared\": 0}", "'num_warps' is not an integer from 1 to 32");
	parse_fails("{\"name\": \"k\", \"num_warps\": 64, \"shared\": 0}", "'num_warps' is not an integer from 1 to 32");
	parse_fails("{\"name\": \"k\", \"num_warps\": 4, \"shared\": -1}", "'shared' is not an integer");
	parse_fails("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0}", "no 'target' object in the metadata");
	parse_fails("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"target\": {\"backend\": \"cuda\"}}",
		    "no 'arch' in the metadata");
	parse_fails("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"target\": {\"backend\": \"hip\", \"arch\": 90}}",
		    "target backend 'hip': abbench runs cuda kernels only");
	edited(text, "\"global_scratch_size\": 0", "\"global_scratch_size\": \"big\"");
	parse_fails(text, "'global_scratch_size' is not an integer");
	edited(text, "\"launch_pdl\": false", "\"launch_pdl\": 1");
	parse_fails(text, "'launch_pdl' is not true or false");
	edited(text, "\"num_ctas\": 1", "\"num_ctas\": 2");
	parse_fails(text, "num_ctas = 2: cluster launches are not supported");
	edited(text, "\"launch_cooperative_grid\": false", "\"launch_cooperative_grid\": true");
	parse_fails(text, "launch_cooperative_grid: cooperative launches are not supported");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_triton36),
		cmocka_unit_test(test_older),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
