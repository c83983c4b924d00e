/*
 * test_cubin_arm.c - a compiled-binary arm before any GPU: a Triton
 * kernel's metadata and its binary (PTX text here, so no nvcc is needed)
 * loaded from a scenario's folder, and each case's launch checked, the
 * scratch buffers' size x programs included: a product past 64 bits is
 * refused by name (issue 19, row 14) instead of wrapping into a NULL or
 * short buffer on the device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arms/arm_kind.h"

/* A kernel k(x, out, global scratch, profile scratch) as PTX. */
static const char ptx[] = ".version 8.4\n.target sm_90a\n.address_size 64\n.visible .entry k(\n"
			  "\t.param .u64 k_param_0,\n\t.param .u64 k_param_1,\n\t.param .u64 k_param_2,\n"
			  "\t.param .u64 k_param_3\n)\n{\n\tret;\n}\n";

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Metadata with the given scratch sizes, the scenario with one case per
 * grid in grids ("16777216", ...): case c0, c1 ... */
static struct scenario *setup(long long global, long long profile, const char *const *grids, int n)
{
	char json[512], text[2048], path[128];
	snprintf(json, sizeof json,
		 "{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"target\": {\"backend\": \"cuda\", \"arch\": 90},"
		 " \"global_scratch_size\": %lld, \"global_scratch_align\": 1024,"
		 " \"profile_scratch_size\": %lld, \"profile_scratch_align\": 1}",
		 global, profile);
	write_file("k.json", json);
	write_file("k.cubin", ptx);
	int used = snprintf(text, sizeof text,
			    "[arms]\nb = k\n[arm k]\ntype = cubin\nsite = residual_gate_add\ntriton = k.json\n"
			    "grid = T\nparams = x, out\n");
	for (int i = 0; i < n; i++)
		used += snprintf(text + used, sizeof text - (size_t)used,
				 "[case c%d]\nsite = residual_gate_add\nshape = 1x%sx8\n", i, grids[i]);
	snprintf(path, sizeof path, "%s/s.ini", dir);
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	if (scenario_parse_text(path, text, &s, &d))
		fail_msg("%s", d.msg);
	return s;
}

/* Loads arm k of s through the cubin kind's row and checks case i; the
 * message in d. */
static enum ab_rc check(const struct scenario *s, int i, struct ab_diag *d)
{
	const struct arm_kind *kind = arm_kind_find("cubin");
	void *arm = NULL;
	assert_non_null(kind);
	enum ab_rc rc = kind->load(&s->arms[0], s, &arm, d);
	if (rc)
		fail_msg("%s", d->msg);
	rc = kind->check_case(arm, &s->cases[i], d);
	kind->free(arm);
	return rc;
}

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_cubin_arm_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char path[128];
	const char *names[] = { "k.json", "k.cubin" };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	return rmdir(dir);
}

static void test_scratch_fits(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	const char *grids[] = { "4096", "16777216" };
	struct scenario *s = setup(4096, 0, grids, 2);
	assert_int_equal(check(s, 0, &d), AB_OK);
	assert_int_equal(check(s, 1, &d), AB_OK); /* 2^12 x 2^24 = 2^36 bytes: large, but a number */
	scenario_free(s);
}

static void test_scratch_overflow(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	char want[512];
	/* 2^40 bytes x 2^24 programs is 2^64: it wrapped to 0, a NULL scratch pointer */
	const char *grids[] = { "8", "16777216" };
	struct scenario *s = setup((long long)1 << 40, 0, grids, 2);
	assert_int_equal(check(s, 0, &d), AB_OK);
	assert_int_equal(check(s, 1, &d), AB_ERR_INPUT);
	snprintf(want, sizeof want,
		 "%s/s.ini:6: arm 'k': Triton's global scratch of 1099511627776 bytes x 16777216 programs for case 'c1' "
		 "(line 12) does not fit in 64 bits", dir);
	assert_string_equal(d.msg, want);
	scenario_free(s);
	/* 1099494916350 bytes x 16777471 programs is 766 bytes short of 2^64:
	 * it fits, but not with the 1024 bytes of alignment slack */
	const char *one[] = { "16777471" };
	s = setup(1099494916350LL, 0, one, 1);
	assert_true(UINT64_MAX - 1099494916350ull * 16777471ull < 1024);
	assert_int_equal(check(s, 0, &d), AB_ERR_INPUT);
	scenario_free(s);
	s = setup(1099494916350LL - 1, 0, one, 1);
	assert_int_equal(check(s, 0, &d), AB_OK);
	scenario_free(s);
	/* the profile scratch is checked the same way */
	s = setup(0, (long long)1 << 40, grids + 1, 1);
	assert_int_equal(check(s, 0, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "Triton's profile scratch of 1099511627776 bytes x 16777216 programs for case 'c0'"));
	scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scratch_fits),
		cmocka_unit_test(test_scratch_overflow),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
