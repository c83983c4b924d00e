/*
 * test_profile.c - device profiles: parsing, errors with file:line, the
 * directory lookup ($ABBENCH_PROFILES, ./profiles) and device matching,
 * and that the repository's own profiles parse with the values their
 * comments argue for (gate_min_change_ns: H200 500, CPU 250, default 1000).
 *
 * Expected values are the literals written in the test INI texts; line
 * numbers are counted by hand in those texts (line 1 is the first line).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/profile.h"

static const char H200[] = "[profile]\n"
			   "name = H200\n"
			   "match = H200, GH200\n"
			   "dram_gbps = 4200\n"
			   "l2_bytes = 62914560\n"
			   "sm_count = 132\n"
			   "noise_floor = 0.01\n"
			   "gate_max_regression_pct = 5\n"
			   "gate_min_change_ns = 500\n"
			   "notes = measured copy, read + write\n";

static void test_parse_ok(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	assert_int_equal(profile_parse_text("dir/h200.ini", H200, &p, &d), AB_OK);
	assert_string_equal(p.file, "h200.ini");
	assert_string_equal(p.name, "H200");
	assert_string_equal(p.match, "H200, GH200");
	assert_true(p.dram_gbps == 4200);
	assert_true(p.l2_bytes == 62914560);
	assert_int_equal(p.sm_count, 132);
	assert_true(p.noise_floor == 0.01);
	assert_true(p.gate_max_regression_pct == 5);
	assert_true(p.gate_min_change_ns == 500);
	assert_string_equal(p.notes, "measured copy, read + write");
	assert_string_equal(p.backend, "");
}

static void test_name_defaults_to_file_stem(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	assert_int_equal(profile_parse_text("x/a100.ini",
					 "[profile]\nnoise_floor=0.02\ngate_max_regression_pct=7\ngate_min_change_ns=0\n", &p,
					 &d),
			 AB_OK);
	assert_string_equal(p.name, "a100");
	assert_true(p.dram_gbps == 0 && p.sm_count == 0);
	assert_true(p.gate_min_change_ns == 0); /* 0 is allowed: no absolute floor */
	assert_true(p.gate_machine_moved_pct == 7); /* not given: the threshold */
	assert_int_equal(profile_parse_text("x/a100.ini",
					 "[profile]\nnoise_floor=0.02\ngate_max_regression_pct=7\ngate_min_change_ns=0\n"
					 "gate_machine_moved_pct = 2.5\n",
					 &p, &d),
			 AB_OK);
	assert_true(p.gate_machine_moved_pct == 2.5 && p.gate_max_regression_pct == 7);
}

/* Each bad text with the message it must give (file:line: reason). */
static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "[profile]\nnoise_floor = 0.01\nfoo = 1\n", "p.ini:3: unknown key 'foo' (docs/REPORTS.md lists the keys)" },
		{ "[profile]\nnoise_flor = 0.01\n", "p.ini:2: unknown key 'noise_flor' (did you mean 'noise_floor'?)" },
		{ "[profile]\nnoise_floor = abc\n", "p.ini:2: 'noise_floor' needs a number, not 'abc'" },
		{ "[profile]\nnoise_floor = 0\n", "p.ini:2: 'noise_floor' out of range: '0'" },
		{ "[profile]\nnoise_floor = 1.5\n", "p.ini:2: 'noise_floor' out of range: '1.5'" },
		{ "[profile]\ngate_max_regression_pct = -5\n", "p.ini:2: 'gate_max_regression_pct' out of range: '-5'" },
		{ "[profile]\nsm_count = 1.5\n", "p.ini:2: 'sm_count' needs an integer, not '1.5'" },
		{ "[profile]\nl2_bytes = -1\n", "p.ini:2: 'l2_bytes' out of range: '-1'" },
		{ "[profile]\nbackend = rocm\n", "p.ini:2: 'backend' must be cpu or cuda, not 'rocm'" },
		{ "[profile]\nsm_count = 1\nsm_count = 2\n", "p.ini:3: duplicate key 'sm_count'" },
		{ "; c\n[device]\nsm_count = 1\n", "p.ini:3: unknown section '[device]' (profiles have one [profile] section)" },
		{ "[profile]\nthis line has no equals\n", "p.ini:2: syntax error" },
		{ "[profile]\ngate_max_regression_pct = 5\n", "p.ini: missing 'noise_floor' in [profile]" },
		{ "[profile]\nnoise_floor = 0.05\n", "p.ini: missing 'gate_max_regression_pct' in [profile]" },
		{ "[profile]\nnoise_floor = 0.05\ngate_max_regression_pct = 15\n",
		  "p.ini: missing 'gate_min_change_ns' in [profile]" },
		{ "[profile]\nnoise_floor = 0.05\ngate_min_change_ns = -1\n",
		  "p.ini:3: 'gate_min_change_ns' out of range: '-1'" },
		{ "[profile]\ngate_min_change_ns = 2e9\n", "p.ini:2: 'gate_min_change_ns' out of range: '2e9'" },
		{ "[profile]\n\ngate_min_change_ns = 0.5us\n",
		  "p.ini:3: 'gate_min_change_ns' needs a number, not '0.5us'" },
		{ "[profile]\ngate_min_change_ns = 500\ngate_min_change_ns = 250\n",
		  "p.ini:3: duplicate key 'gate_min_change_ns'" },
		{ "[profile]\ngate_machine_moved_pct = 0\n", "p.ini:2: 'gate_machine_moved_pct' out of range: '0'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct profile p;
		struct ab_diag d = { "" };
		assert_int_equal(profile_parse_text("p.ini", cases[i].text, &p, &d), AB_ERR_INPUT);
		if (strcmp(d.msg, cases[i].msg))
			fail_msg("case %zu: got \"%s\", wanted \"%s\"", i, d.msg, cases[i].msg);
	}
}

static void test_matching(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	assert_int_equal(profile_parse_text("h200.ini", H200, &p, &d), AB_OK);
	assert_int_equal(profile_matches(&p, "NVIDIA H200", "cuda"), 2);
	assert_int_equal(profile_matches(&p, "nvidia h200 nvl", "cuda"), 2); /* case-insensitive */
	assert_int_equal(profile_matches(&p, "NVIDIA GH200 480GB", "cuda"), 2);
	assert_int_equal(profile_matches(&p, "NVIDIA H100 80GB HBM3", "cuda"), 0);
	assert_int_equal(profile_matches(&p, NULL, NULL), 0);
	assert_int_equal(profile_parse_text("cpu.ini",
					 "[profile]\nbackend=cpu\nnoise_floor=0.05\ngate_max_regression_pct=15\n"
					 "gate_min_change_ns=250\n",
					 &p, &d),
			 AB_OK);
	assert_int_equal(profile_matches(&p, "CPU Intel(R) Xeon(R)", "cpu"), 1);
	assert_int_equal(profile_matches(&p, "NVIDIA H200", "cuda"), 0);
}

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

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_profile.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	write_file("h200.ini", H200);
	write_file("cpu.ini", "[profile]\nname = CPU\nbackend = cpu\nnoise_floor = 0.05\ngate_max_regression_pct = 15\n"
			       "gate_min_change_ns = 250\n");
	write_file("default.ini", "[profile]\nname = default\nnoise_floor = 0.02\ngate_max_regression_pct = 10\n"
				   "gate_min_change_ns = 1000\n");
	write_file("README.txt", "not a profile\n");
	return 0;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_lookup(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	bool fell_back;

	assert_int_equal(profile_lookup(dir, "NVIDIA H200", "cuda", &p, &fell_back, &d), AB_OK);
	assert_string_equal(p.name, "H200");
	assert_false(fell_back);
	assert_int_equal(profile_lookup(dir, "CPU AMD EPYC 7763", "cpu", &p, &fell_back, &d), AB_OK);
	assert_string_equal(p.name, "CPU");
	assert_false(fell_back);
	assert_int_equal(profile_lookup(dir, "NVIDIA A100-SXM4-80GB", "cuda", &p, &fell_back, &d), AB_OK);
	assert_string_equal(p.name, "default");
	assert_true(fell_back);
	assert_true(p.gate_max_regression_pct == 10);
	assert_true(p.gate_min_change_ns == 1000);
}

static void test_lookup_name_beats_backend(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	bool fell_back;
	/* a CPU-backend profile that also names a device: the name wins over
	 * cpu.ini's backend match, whatever the file order */
	write_file("a_epyc.ini", "[profile]\nname = EPYC\nmatch = EPYC\nnoise_floor = 0.03\ngate_max_regression_pct = 12\n"
				 "gate_min_change_ns = 250\n");
	assert_int_equal(profile_lookup(dir, "CPU AMD EPYC 7763", "cpu", &p, &fell_back, &d), AB_OK);
	assert_string_equal(p.name, "EPYC");
}

static void test_lookup_errors(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	bool fell_back;
	write_file("zz_bad.ini", "[profile]\nnoise_floor = 0.01\ngate_max_regression_pct = 5\ngate_min_change_ns = 500\n"
				 "bogus = 1\n");
	assert_int_equal(profile_lookup(dir, "NVIDIA H200", "cuda", &p, &fell_back, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "zz_bad.ini:5: unknown key 'bogus'"));
	char path[128];
	snprintf(path, sizeof path, "%s/zz_bad.ini", dir);
	unlink(path);
	/* a profile from before the absolute floor: an error, not a silent 0 */
	write_file("zz_old.ini", "[profile]\nnoise_floor = 0.01\ngate_max_regression_pct = 5\n");
	assert_int_equal(profile_lookup(dir, "NVIDIA H200", "cuda", &p, &fell_back, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "zz_old.ini: missing 'gate_min_change_ns' in [profile]"));
	snprintf(path, sizeof path, "%s/zz_old.ini", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/default.ini", dir);
	unlink(path);
	assert_int_equal(profile_lookup(dir, "NVIDIA A100", "cuda", &p, &fell_back, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "no profile matches device 'NVIDIA A100'"));
	assert_non_null(strstr(d.msg, "default.ini"));
	assert_int_equal(profile_lookup("/nonexistent-profiles", "x", "cpu", &p, &fell_back, &d), AB_ERR_INPUT);
}

static void test_dir_env(void **state)
{
	(void)state;
	char buf[PATH_MAX];
	struct ab_diag d;
	setenv("ABBENCH_PROFILES", dir, 1);
	assert_int_equal(profile_dir(buf, sizeof buf, &d), AB_OK);
	assert_string_equal(buf, dir);
	setenv("ABBENCH_PROFILES", "/nonexistent-profiles", 1);
	assert_int_equal(profile_dir(buf, sizeof buf, &d), AB_ERR_INPUT);
	assert_string_equal(d.msg, "$ABBENCH_PROFILES '/nonexistent-profiles' is not a directory");
	unsetenv("ABBENCH_PROFILES");
}

/* The repository's profiles (the test runs from the repository root). */
static void test_repo_profiles(void **state)
{
	(void)state;
	struct profile p;
	struct ab_diag d;
	bool fell_back;
	struct stat st;
	char buf[PATH_MAX];
	if (stat("profiles/h200.ini", &st) != 0)
		skip();
	unsetenv("ABBENCH_PROFILES");
	assert_int_equal(profile_dir(buf, sizeof buf, &d), AB_OK);
	assert_string_equal(buf, "profiles");
	assert_int_equal(profile_find("NVIDIA H200", "cuda", &p, &fell_back, &d), AB_OK);
	assert_false(fell_back);
	assert_true(p.noise_floor == 0.01 && p.gate_max_regression_pct == 5 && p.sm_count == 132);
	assert_true(p.dram_gbps == 4200);
	assert_true(p.gate_min_change_ns == 500);
	assert_int_equal(profile_find("CPU Intel(R) Xeon(R) Processor", "cpu", &p, &fell_back, &d), AB_OK);
	assert_false(fell_back);
	assert_true(p.noise_floor == 0.05 && p.gate_max_regression_pct == 15);
	assert_true(p.gate_min_change_ns == 250);
	assert_true(p.gate_machine_moved_pct == 5); /* the CPU's A arm moves with the cache, B less */
	assert_int_equal(profile_find("NVIDIA H100 80GB HBM3", "cuda", &p, &fell_back, &d), AB_OK);
	assert_false(fell_back); /* no "no profile matches device" warning on the H100 */
	assert_string_equal(p.file, "h100.ini");
	assert_true(p.gate_max_regression_pct == 2 && p.gate_min_change_ns == 1000);
	assert_true(p.gate_machine_moved_pct == 2); /* as the 2% A/A pairs were gated */
	assert_int_equal(profile_find("NVIDIA H200", "cuda", &p, &fell_back, &d), AB_OK);
	assert_true(p.gate_machine_moved_pct == 5);
	assert_int_equal(profile_find("NVIDIA B200", "cuda", &p, &fell_back, &d), AB_OK);
	assert_true(fell_back);
	assert_string_equal(p.file, "default.ini");
	assert_true(p.gate_min_change_ns == 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_name_defaults_to_file_stem),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_matching),
		cmocka_unit_test_setup_teardown(test_lookup, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_lookup_name_beats_backend, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_lookup_errors, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_dir_env, make_dir, remove_dir),
		cmocka_unit_test(test_repo_profiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
