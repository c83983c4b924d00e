/*
 * test_results_check.c - what a stored run may hold, without a database:
 * a synthetic run passes whole; each kind of fault (a count out of range,
 * a text that does not fit, invalid UTF-8, a NUL, a slot out of its
 * bracket, a missing array) fails with the field and where it is named;
 * and an error text is made to fit its field as valid UTF-8.
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

#include "common/results_check.h"
#include "common/utf8.h"
#include "fixtures.h"

static void fill(struct results_slot *s, int ci, int si)
{
	(void)ci;
	s->n_samples = 4 + si;
	s->samples_ns = calloc((size_t)s->n_samples, sizeof *s->samples_ns);
	s->kernel_ns = calloc((size_t)s->n_samples, sizeof *s->kernel_ns);
	for (int i = 0; i < s->n_samples; i++) {
		s->samples_ns[i] = 1000 + i;
		s->kernel_ns[i] = i ? 900 : NAN;
	}
	snprintf(s->stopping_reason, sizeof s->stopping_reason, "target_noise");
	s->n_outputs = 1;
	snprintf(s->outputs[0].tensor, sizeof s->outputs[0].tensor, "out");
	snprintf(s->outputs[0].md5, sizeof s->outputs[0].md5, "00112233445566778899aabbccddeeff");
}

static struct results_run *good_run(void)
{
	struct results_run *r = synth_run(fill);
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(r->bracket, sizeof r->bracket, "ABA");
	snprintf(r->label, sizeof r->label, "na\xc3\xafve");
	return r;
}

static void fails_with(const struct results_run *r, const char *want)
{
	char why[256] = "";
	assert_false(results_check_run(r, why, sizeof why));
	if (!strstr(why, want))
		fail_msg("got: %s\nwant: %s", why, want);
}

static void test_a_good_run_passes(void **state)
{
	(void)state;
	struct results_run *r = good_run();
	char why[256] = "";
	if (!results_check_run(r, why, sizeof why))
		fail_msg("%s", why);
	results_run_free(r);
}

static void test_faults_are_named(void **state)
{
	(void)state;
	struct results_run *r = good_run();
	struct results_slot *b = &r->cases[1].slots[1];
	b->n_samples = -2;
	fails_with(r, "case 'qk' slot 1: n_samples is -2, not 0 to 10000000");
	b->n_samples = 5;
	b->samples_ns[3] = INFINITY;
	fails_with(r, "case 'qk' slot 'B' sample 3: wall_ns is inf, not a time");
	b->samples_ns[3] = 1;
	b->arm = 'x';
	fails_with(r, "case 'qk' slot 1: arm is 'x' (0x78), not 'a' or 'b'");
	b->arm = 'a';
	fails_with(r, "case 'qk': slot 1 ('B') is of arm 'a', bracket 'ABA' has B there");
	b->arm = 'b';
	r->cases[1].n_slots = 2;
	fails_with(r, "case 'qk': 2 slots for the 3 letters of bracket 'ABA'");
	r->cases[1].n_slots = 3;
	snprintf(b->outputs[0].md5, sizeof b->outputs[0].md5, "ABC");
	fails_with(r, "case 'qk' slot 'B' output 0: md5 'ABC' is not 32 hexadecimal digits");
	snprintf(b->outputs[0].md5, sizeof b->outputs[0].md5, "%s", "");
	b->n_kernels = 1; /* and no array */
	fails_with(r, "case 'qk' slot 'B': 1 kernels and no array");
	b->n_kernels = 0;
	memset(r->cases[0].site, 's', sizeof r->cases[0].site);
	fails_with(r, "case 0: site is 32 bytes long, more than 31");
	snprintf(r->cases[0].site, sizeof r->cases[0].site, "ln\xed\xa0\x80"); /* a surrogate */
	fails_with(r, "case 0: site is not valid UTF-8 (byte 2)");
	snprintf(r->cases[0].site, sizeof r->cases[0].site, "ln_modulate");
	snprintf(r->status, sizeof r->status, "done");
	fails_with(r, "the run: status 'done' is none of the known ones");
	snprintf(r->status, sizeof r->status, "ok");
	r->shard_count = 4097;
	fails_with(r, "the run: shard_count is 4097, not 0 to 4096");
	r->shard_count = 0;
	free(r->command_line);
	r->command_line = strdup("abbench run caf\xe9.ini");
	fails_with(r, "the run: command_line is not valid UTF-8 (byte 15)");
	free(r->command_line);
	r->command_line = NULL;
	r->device.copy_gbps = -1;
	fails_with(r, "the device: copy_gbps is -1, not a bandwidth");
	r->device.copy_gbps = 1e308;
	fails_with(r, "the device: copy_gbps is 1e+308, not a bandwidth (0 to 1e+06 GB/s)");
	r->device.copy_gbps = NAN; /* unknown */
	r->n_arm_sources = 1;
	r->arm_sources[0] = (struct results_arm_source){ .arm = 'b', .name = "x", .kind = "Plugin" };
	fails_with(r, "the source of arm 0: kind 'Plugin' is not the name of a kind of arm (a lower-case letter, then "
		      "letters, digits or '_', 15 at most)");
	snprintf(r->arm_sources[0].kind, sizeof r->arm_sources[0].kind, "%s", "");
	fails_with(r, "the source of arm 0: kind '' is not the name of a kind of arm (a lower-case letter, then "
		      "letters, digits or '_', 15 at most)");
	/* any kind's name: common/ knows no list of kinds */
	snprintf(r->arm_sources[0].kind, sizeof r->arm_sources[0].kind, "%s", "onnx_graph2");
	char why[256];
	assert_true(results_check_run(r, why, sizeof why));
	results_run_free(r);
}

/* Implausible figures (issue 31 item 2; before: every one passed and was
 * printed): each refused with its field named, its plausible neighbour
 * taken. */
static void test_implausible_figures(void **state)
{
	(void)state;
	struct results_run *r = good_run();
	struct results_case *c = &r->cases[1];
	struct results_slot *b = &c->slots[1];
	char why[256];
	b->min_ns = 10, b->p10_ns = 11, b->median_ns = 12, b->p90_ns = 13, b->max_ns = 14, b->mean_ns = 12.5;
	b->elapsed_s = 0.5, b->noise = 0.01, b->kernel_median_ns = 9;
	if (!results_check_run(r, why, sizeof why))
		fail_msg("%s", why);
	b->median_ns = -1;
	fails_with(r, "case 'qk' slot 1: median_ns is -1, not a time (0 to 1e+15 ns)");
	b->median_ns = 12;
	b->kernel_median_ns = -5;
	fails_with(r, "case 'qk' slot 1: kernel_median_ns is -5, not a time");
	b->kernel_median_ns = NAN; /* unknown */
	b->p90_ns = 11.5;
	fails_with(r, "case 'qk' slot 1: median_ns 12 is above p90_ns 11.5");
	b->p90_ns = 13;
	b->mean_ns = 20;
	fails_with(r, "case 'qk' slot 1: mean_ns 20 is above max_ns 14");
	b->mean_ns = 12.5;
	b->max_ns = INFINITY;
	fails_with(r, "case 'qk' slot 1: max_ns is inf, not a time");
	b->max_ns = 14;
	b->elapsed_s = 2e6; /* 23 days */
	fails_with(r, "case 'qk' slot 1: elapsed_s is 2e+06, not a time");
	b->elapsed_s = 0.5;
	b->noise = -0.5;
	fails_with(r, "case 'qk' slot 1: noise is -0.5, not a relative spread");
	b->noise = 0.01;
	b->clocks_before.temp_c = 5000;
	fails_with(r, "case 'qk' slot 1: before_temp_c is 5000, not -273 to 1000");
	b->clocks_before.temp_c = 60;
	b->samples_ns[2] = 2e15;
	fails_with(r, "case 'qk' slot 'B' sample 2: wall_ns is 2e+15, not a time");
	b->samples_ns[2] = 0; /* a CUDA event pair can read 0 */
	b->kernel_ns[2] = -1;
	fails_with(r, "case 'qk' slot 'B' sample 2: kernel_ns is -1, not a time");
	b->kernel_ns[2] = 0;
	b->outputs[0].bytes = 64;
	b->outputs[0].mismatches = 65;
	fails_with(r, "case 'qk' slot 'B' output 0: mismatches 65 is more than the output's 64 bytes");
	b->outputs[0].mismatches = 64;
	b->outputs[0].max_abs_err = -1;
	fails_with(r, "case 'qk' slot 'B' output 0: max_abs_err is -1, not an error's size");
	b->outputs[0].max_abs_err = INFINITY; /* an arm that wrote Inf */
	b->n_kernels = 1;
	b->kernels = calloc(1, sizeof *b->kernels);
	b->kernels[0].launches = 3, b->kernels[0].total_ns = -5;
	fails_with(r, "case 'qk' slot 'B' kernel 0: total_ns is -5, not a time");
	b->kernels[0].total_ns = 30, b->kernels[0].min_ns = 12, b->kernels[0].max_ns = 9;
	fails_with(r, "case 'qk' slot 'B' kernel 0: min_ns 12 is above max_ns 9");
	b->kernels[0].max_ns = 12;
	c->bytes_min = 1 << 20;
	c->copy_floor_ns = 1e-300;
	fails_with(r, "case 1: copy_floor_ns 1e-300 ns for 1048576 bytes is 1.04858e+306 GB/s, more than any device");
	c->copy_floor_ns = 400; /* 2.6 TB/s */
	c->eps = -1e-5;
	fails_with(r, "case 1: eps is -1e-05, not a LayerNorm epsilon");
	c->eps = 1e-5;
	if (!results_check_run(r, why, sizeof why))
		fail_msg("%s", why);
	results_run_free(r);
}

static void test_text_checks(void **state)
{
	(void)state;
	char why[128];
	assert_true(results_check_text("x", "caf\xc3\xa9", 5, 6, why, sizeof why));
	assert_false(results_check_text("x", "caf\xc3\xa9", 5, 5, why, sizeof why));
	assert_string_equal(why, "x is 5 bytes long, more than 4");
	assert_false(results_check_text("x", "a\0b", 3, 0, why, sizeof why));
	assert_string_equal(why, "x holds a NUL byte");
	assert_false(results_check_text("x", "\xc0\xaf", 2, 0, why, sizeof why)); /* overlong '/' */
	assert_string_equal(why, "x is not valid UTF-8 (byte 0)");
}

/* Invalid bytes as \xNN, never a character cut in two at the end. */
static void test_fit(void **state)
{
	(void)state;
	char out[8];
	results_check_fit(out, sizeof out, "a\xffz");
	assert_string_equal(out, "a\\xFFz");
	results_check_fit(out, sizeof out, "abcde\xc3\xa9");
	assert_string_equal(out, "abcde\xc3\xa9");
	results_check_fit(out, sizeof out, "abcdef\xc3\xa9"); /* the e-acute does not fit: left out whole */
	assert_string_equal(out, "abcdef");
	results_check_fit(out, sizeof out, "abcd\x80");
	assert_string_equal(out, "abcd");
	assert_true(utf8_valid_str(out, NULL));
	results_check_fit(out, 1, "abc");
	assert_string_equal(out, "");
}

/* A divergence whose counts add up passes; each way of not adding up,
 * or of pointing outside its tensor or grid, is named. */
static void test_divergence_checks(void **state)
{
	(void)state;
	struct results_divergence v;
	char why[200];
	memset(&v, 0, sizeof v);
	snprintf(v.tensor, sizeof v.tensor, "out");
	snprintf(v.role, sizeof v.role, "output");
	snprintf(v.dtype, sizeof v.dtype, "f16");
	v.elems = 10, v.n_diff = 3, v.ulp_hist[0] = 2, v.n_class = 1, v.rows = 2, v.rows_touched = 1;
	v.map_rows = 2, v.map_cols = 5, v.map_row_bin = v.map_col_bin = 1, v.max_abs = NAN;
	v.first.index = 4, v.at_max_ulp.index = 4, v.at_max_abs.index = -1;
	assert_true(results_check_divergence(&v, why, sizeof why));
	v.ulp_hist[1] = 1;
	assert_false(results_check_divergence(&v, why, sizeof why));
	assert_string_equal(why, "n_diff 3 is not the histogram's 4 within 10 elements");
	v.ulp_hist[1] = 0, v.first.index = 10;
	assert_false(results_check_divergence(&v, why, sizeof why));
	assert_string_equal(why, "first index 10 is outside the tensor's 10 elements");
	v.first.index = 4, v.map_cols = 65;
	assert_false(results_check_divergence(&v, why, sizeof why));
	v.map_cols = 5;
	snprintf(v.role, sizeof v.role, "input");
	assert_false(results_check_divergence(&v, why, sizeof why));
	assert_string_equal(why, "role 'input' is none of the known ones");
	struct results_slot_check k = { "out", 3, 4, 1, "out" };
	assert_false(results_check_slot_check(&k, why, sizeof why));
	assert_string_equal(why, "calls_differ 4 is more than calls_checked 3");
	struct results_invariance iv = { true, "B", 1, -2, 0, "", "" };
	assert_false(results_check_invariance(&iv, why, sizeof why));
}

/* The stored figures of this round's other streams, in the plausible
 * ranges of issue 31 item 2: host times per sample and per slot (NULL
 * where not measured, else a time, the median not above the p90), the
 * run's env words, a divergence's sign flips among its histogram's
 * pairs, a slot's first differing call going with its count, the first
 * row of an invariance among the rows compared. */
static void test_new_columns_plausible(void **state)
{
	(void)state;
	struct results_run *r = good_run();
	struct results_slot *b = &r->cases[1].slots[1];
	char why[256];
	b->host_ns = calloc((size_t)b->n_samples, sizeof *b->host_ns);
	for (int i = 0; i < b->n_samples; i++)
		b->host_ns[i] = i == 1 ? NAN : 700 + i; /* NAN: not measured */
	b->host_median_ns = 702, b->host_p90_ns = 704;
	snprintf(r->env, sizeof r->env, "cupti=13.0 driver=580");
	if (!results_check_run(r, why, sizeof why))
		fail_msg("%s", why);
	b->host_ns[2] = -3;
	fails_with(r, "case 'qk' slot 'B' sample 2: host_ns is -3, not a time (0 to 1e+15 ns)");
	b->host_ns[2] = 1e300;
	fails_with(r, "case 'qk' slot 'B' sample 2: host_ns is 1e+300, not a time");
	b->host_ns[2] = 702;
	b->host_median_ns = -1;
	fails_with(r, "case 'qk' slot 1: host_median_ns is -1, not a time");
	b->host_median_ns = 702, b->host_p90_ns = INFINITY;
	fails_with(r, "case 'qk' slot 1: host_p90_ns is inf, not a time");
	b->host_p90_ns = 701;
	fails_with(r, "case 'qk' slot 1: host_median_ns 702 is above host_p90_ns 701");
	b->host_median_ns = b->host_p90_ns = NAN; /* the CPU backend, timing = graph */
	if (!results_check_run(r, why, sizeof why))
		fail_msg("%s", why);
	snprintf(r->env, sizeof r->env, "cupti=13.0 =x");
	fails_with(r, "env: '=x' is not a KEY=VALUE word");
	r->env[0] = '\0';
	if (!results_check_run(r, why, sizeof why))
		fail_msg("%s", why);
	results_run_free(r);

	struct results_divergence v;
	memset(&v, 0, sizeof v);
	snprintf(v.tensor, sizeof v.tensor, "out");
	snprintf(v.role, sizeof v.role, "output");
	snprintf(v.dtype, sizeof v.dtype, "f32");
	v.elems = 10, v.n_diff = 3, v.ulp_hist[0] = 2, v.n_nan_bits = 1, v.n_sign = 2, v.rows = 1, v.rows_touched = 1;
	v.map_rows = 1, v.map_cols = 10, v.map_row_bin = v.map_col_bin = 1, v.max_abs = 0.5;
	v.first.index = 0, v.at_max_ulp.index = 1, v.at_max_abs.index = 1;
	assert_true(results_check_divergence(&v, why, sizeof why));
	v.n_sign = 3; /* one of the 3 differences is a NaN pair: no sign flip can be counted there */
	assert_false(results_check_divergence(&v, why, sizeof why));
	assert_string_equal(why, "n_sign 3 is more than the histogram's 2 pairs");
	v.n_sign = 2, v.max_abs = -0.5;
	assert_false(results_check_divergence(&v, why, sizeof why));
	assert_string_equal(why, "max_abs is -0.5, not a difference");

	struct results_slot_check k = { "out", 5, 0, 0, "" };
	assert_true(results_check_slot_check(&k, why, sizeof why));
	k.calls_differ = 2, k.first_differ = 7;
	assert_true(results_check_slot_check(&k, why, sizeof why));
	k.first_differ = 0;
	assert_false(results_check_slot_check(&k, why, sizeof why));
	assert_string_equal(why, "first_differ 0 does not go with calls_differ 2");
	k.calls_differ = 0, k.first_differ = 3;
	assert_false(results_check_slot_check(&k, why, sizeof why));
	k.calls_checked = -1, k.first_differ = 0;
	assert_false(results_check_slot_check(&k, why, sizeof why));

	struct results_invariance iv = { true, "B", 64, -1, 0, "", "" };
	assert_true(results_check_invariance(&iv, why, sizeof why));
	iv.first_row = 63, iv.other_value = 128;
	assert_true(results_check_invariance(&iv, why, sizeof why));
	iv.first_row = 64;
	assert_false(results_check_invariance(&iv, why, sizeof why));
	assert_string_equal(why, "first_row 64 is not among the 64 rows compared");
	iv.first_row = 3, iv.rows_compared = -1;
	assert_false(results_check_invariance(&iv, why, sizeof why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_good_run_passes),
		cmocka_unit_test(test_faults_are_named),
		cmocka_unit_test(test_implausible_figures),
		cmocka_unit_test(test_text_checks),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_divergence_checks),
		cmocka_unit_test(test_new_columns_plausible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
