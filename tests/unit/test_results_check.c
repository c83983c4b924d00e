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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_good_run_passes),
		cmocka_unit_test(test_faults_are_named),
		cmocka_unit_test(test_text_checks),
		cmocka_unit_test(test_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
