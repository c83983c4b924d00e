/*
 * test_scenario_errors.c - the INI scenario parser's refusals: every error
 * path gives its exact "FILE:LINE: KEY: reason" line and leaves nothing
 * behind (structure, keys, brackets, numbers, sites, user arms, UTF-8,
 * line length, files and the shipped bad files). Apart from
 * test_scenario.c (what parses, and to what) because these tests are
 * tables of texts and the one message each must give; the shared fixture
 * is scenario_fixture.h.
 *
 * Run from the repository root (the bad files are opened by relative
 * path). Each expected message is the one the parser must print, written
 * out whole.
 */
#include <dirent.h>
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

#define BAD_DIR "tests/scenarios/bad"

/* ---- errors ------------------------------------------------------------------ */

static void test_errors_structure(void **state)
{
	(void)state;
	expect_error("", "t.ini:1: the file is empty");
	expect_error(" \n\t\n", "t.ini:1: the file is empty");
	expect_error("; only a comment\n", "t.ini:1: no case: a scenario needs at least one [case NAME] section");
	expect_error("[scenario]\nseed = 1\n", "t.ini:2: no case: a scenario needs at least one [case NAME] section");
	expect_error("[scenari]\n" CASE_A,
		     "t.ini:1: [scenari]: unknown section (did you mean [scenario]? sections: [scenario], [arms], [model], [case NAME], [arm NAME], "
		     "[site NAME])");
	expect_error(CASE_A "[model]\nsteps = 2\n[model]\n", "t.ini:6: [model]: section repeated (first at line 4)");
	expect_error(CASE_A "[case a]\n", "t.ini:4: [case a]: duplicate case name (first at line 1)");
	expect_error("[case]\n", "t.ini:1: [case]: a case needs a name, as in [case img_ln_modulate]");
	expect_error("[case a/b]\n", "t.ini:1: [case a/b]: case name 'a/b' may use only letters, digits, '_', '-' and '.'");
	expect_error("[case "
		     "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd]\n",
		     "t.ini:1: [case abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd]: "
		     "case name is 64 characters long, at most 63 allowed");
	expect_error("[scenario\n", "t.ini:1: section header '[scenario' has no closing ']'");
	expect_error("[scenario] seed = 1\n", "t.ini:1: text after the section header: 'seed = 1'");
	expect_error(CASE_A "junk here\n", "t.ini:4: expected '[section]', 'key = value' or a comment, not 'junk here'");
	expect_error(CASE_A "= 5\n", "t.ini:4: missing key name before '='");
	expect_error("seed = 1\n" CASE_A,
		     "t.ini:1: seed: key outside any section (put it under [scenario], [arms], [model], [case NAME], [arm NAME] "
		     "or [site NAME])");
	/* an indented line is a key of its own, not a continuation of seed */
	expect_error("[scenario]\nseed = 1\n   seed = 2\n" CASE_A, "t.ini:3: seed: duplicate key (first set at line 2)");
}

static void test_errors_keys(void **state)
{
	(void)state;
	expect_error("[scenario]\nwarmpu = 2\n", "t.ini:2: warmpu: unknown key in [scenario] (did you mean 'warmup'?)");
	expect_error("[scenario]\nfrobnicate = 2\n",
		     "t.ini:2: frobnicate: unknown key in [scenario] (docs/SCENARIO_FORMAT.md lists the keys)");
	expect_error("[arms]\nc = fused\n", "t.ini:2: c: unknown key in [arms] (keys: a, b)");
	expect_error("[model]\nsteps = 2\nforward = 2\n",
		     "t.ini:3: forward: unknown key in [model] (did you mean 'forwards_per_step'?)");
	expect_error("[model]\nsteps = 2\nrounds = 2\n", "t.ini:3: rounds: unknown key in [model] (keys: steps, forwards_per_step)");
	expect_error(CASE_A "colour = red\n", "t.ini:4: colour: unknown key in [case a] (docs/SCENARIO_FORMAT.md lists "
					     "the keys)");
	expect_error(CASE_A "count = 2\ncount = 3\n", "t.ini:5: count: duplicate key (first set at line 4)");
	expect_error("[scenario]\nseed =\n", "t.ini:2: seed: missing value");
	expect_error("[scenario]\nname = my run\n", "t.ini:2: name: 'my run' may use only letters, digits, '_', '-' and '.'");
	expect_error("[scenario]\nbackend = gpu\n", "t.ini:2: backend: 'gpu' is not one of: auto, cpu, cuda (did you mean 'cpu'?)");
	expect_error("[scenario]\ndtype = fp16\n", "t.ini:2: dtype: 'fp16' is not supported: only bf16 is, for now");
	expect_error("[scenario]\nlaunch_gaps = skip\n", "t.ini:2: launch_gaps: 'skip' is not one of: include, hide");
	expect_error("[scenario]\ninput = gaussian\n",
		     "t.ini:2: input: 'gaussian' is not one of: normal, uniform, constant, special");
	expect_error("[scenario]\nl2_flush = maybe\n", "t.ini:2: l2_flush: 'maybe' is not a boolean (use true or false)");
	expect_error(CASE_A "affine = TRUE\n", "t.ini:4: affine: 'TRUE' is not a boolean (use true or false)");
}

static void test_errors_bracket(void **state)
{
	(void)state;
	expect_error("[scenario]\nbracket = ABC\n", "t.ini:2: bracket: 'ABC' may use only the letters A and B, as in ABA");
	expect_error("[scenario]\nbracket = aba\n", "t.ini:2: bracket: 'aba' may use only the letters A and B, as in ABA");
	expect_error("[scenario]\nbracket = BAB\n", "t.ini:2: bracket: 'BAB' must start and end with A, as in ABA");
	expect_error("[scenario]\nbracket = ABB\n", "t.ini:2: bracket: 'ABB' must start and end with A, as in ABA");
	expect_error("[scenario]\nbracket = AAA\n", "t.ini:2: bracket: 'AAA' has no B slot");
	expect_error("[scenario]\nbracket = ABABABABABABABABA\n",
		     "t.ini:2: bracket: 'ABABABABABABABABA' is 17 slots long, at most 16 allowed");
	/* 16 slots is the most allowed */
	struct scenario *s = parse_text_ok("[scenario]\nbracket = ABABABABABABABBA\n" CASE_A);
	assert_string_equal(s->bracket, "ABABABABABABABBA");
	scenario_free(s);
}

static void test_errors_numbers(void **state)
{
	(void)state;
	expect_error("[scenario]\nwarmup = 3x\n", "t.ini:2: warmup: '3x' is not an integer");
	expect_error("[scenario]\nwarmup = 2.5\n", "t.ini:2: warmup: '2.5' is not an integer");
	expect_error("[scenario]\nwarmup = -1\n", "t.ini:2: warmup: -1 is out of range (must be >= 0 and <= 1000000)");
	expect_error("[scenario]\nwarmup = 99999999999999999999\n", "t.ini:2: warmup: '99999999999999999999' is out of range");
	expect_error("[scenario]\nmin_samples = 0\n",
		     "t.ini:2: min_samples: 0 is out of range (must be >= 1 and <= 10000000)");
	expect_error("[scenario]\nmax_samples = 5\nmin_samples = 6\n",
		     "t.ini:3: min_samples: min_samples (6) must be at most max_samples (5)");
	expect_error("[scenario]\nmin_samples = 6\nmax_samples = 5\n",
		     "t.ini:3: max_samples: min_samples (6) must be at most max_samples (5)");
	expect_error("[scenario]\nmin_time_ms = 0\n", "t.ini:2: min_time_ms: 0 is out of range (must be > 0)");
	expect_error("[scenario]\nmax_time_ms = -5\n", "t.ini:2: max_time_ms: -5 is out of range (must be > 0)");
	expect_error("[scenario]\nmax_time_ms = 100\n" CASE_A,
		     "t.ini:2: max_time_ms: min_time_ms (500) must be at most max_time_ms (100)");
	expect_error("[scenario]\nmin_time_ms = 1ms\n", "t.ini:2: min_time_ms: '1ms' is not a number (trailing 'ms')");
	expect_error("[scenario]\nmin_time_ms = fast\n", "t.ini:2: min_time_ms: 'fast' is not a number");
	expect_error("[scenario]\nmax_time_ms = inf\n", "t.ini:2: max_time_ms: 'inf' is not a finite number");
	expect_error("[scenario]\ntarget_noise = 0\n", "t.ini:2: target_noise: 0 is out of range (must be > 0 and < 1)");
	expect_error("[scenario]\ntarget_noise = 1\n", "t.ini:2: target_noise: 1 is out of range (must be > 0 and < 1)");
	expect_error("[scenario]\nseed = -1\n", "t.ini:2: seed: '-1' is not an integer from 0 to 18446744073709551615");
	expect_error("[scenario]\nseed = 0x10\n", "t.ini:2: seed: '0x10' is not an integer from 0 to 18446744073709551615");
	expect_error("[scenario]\nseed = 18446744073709551616\n",
		     "t.ini:2: seed: '18446744073709551616' is larger than 18446744073709551615");
	expect_error("[scenario]\ninput_std = -0.5\n", "t.ini:2: input_std: -0.5 is out of range (must be >= 0)");
	expect_error("[scenario]\ninput_mean = nan\n", "t.ini:2: input_mean: 'nan' is not a finite number");
	expect_error("[scenario]\ninput_value = 1e999\n", "t.ini:2: input_value: '1e999' is not a finite number");
	expect_error("[scenario]\ninput_low = 2\n" CASE_A,
		     "t.ini:2: input_low: input_low (2) must be less than input_high (1)");
	expect_error("[scenario]\ninput_high = 3\ninput_low = 3\n" CASE_A,
		     "t.ini:3: input_low: input_low (3) must be less than input_high (3)");
	expect_error(CASE_A "input_high = -4\n", "t.ini:4: input_high: input_low (-1) must be less than input_high (-4)");
	expect_error("[model]\nsteps = 0\n", "t.ini:2: steps: 0 is out of range (must be >= 1 and <= 1000000)");
	expect_error("[model]\nforwards_per_step = 0\n",
		     "t.ini:2: forwards_per_step: 0 is out of range (must be >= 1 and <= 1000000)");
	expect_error(CASE_A "eps = 0\n", "t.ini:4: eps: 0 is out of range (must be > 0)");
	expect_error(CASE_A "eps = -1e-5\n", "t.ini:4: eps: -1e-5 is out of range (must be > 0)");
	expect_error(CASE_A "eps = inf\n", "t.ini:4: eps: 'inf' is not a finite number");
	expect_error(CASE_A "count = 0\n", "t.ini:4: count: 0 is out of range (must be >= 1 and <= 1000000)");
}

static void test_errors_sites(void **state)
{
	(void)state;
	char want[512];
	expect_error("[case a]\nsite = layernorm\nshape = 1x16x256\n",
		     "t.ini:2: site: unknown site 'layernorm' (sites: ln_modulate, ln_continuous, qk_layernorm, "
		     "residual_gate_add)");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1x0x256\n",
		     "t.ini:3: shape: '1x0x256' is not a shape (1 to 8 positive dimensions joined by 'x', as in "
		     "1x4096x4096)");
	expect_error("[case a]\nsite = ln_modulate\nshape = 1 x 16\n",
		     "t.ini:3: shape: '1 x 16' is not a shape (1 to 8 positive dimensions joined by 'x', as in "
		     "1x4096x4096)");
	/* the shape comes before the site: checked once the case is complete */
	snprintf(want, sizeof want, "t.ini:3: shape: site 'ln_modulate' rejects '1x16x250': %s",
		 geometry_reason("ln_modulate", "1x16x250"));
	expect_error("[case a]\ncount = 2\nshape = 1x16x250\nsite = ln_modulate\n", want);
	snprintf(want, sizeof want, "t.ini:6: shape: site 'qk_layernorm' rejects '1x16x256': %s",
		 geometry_reason("qk_layernorm", "1x16x256"));
	expect_error(CASE_A "[case q]\nsite = qk_layernorm\nshape = 1x16x256\n", want);
	expect_error("[case a]\nshape = 1x16x256\n",
		     "t.ini:1: [case a]: missing key 'site' (sites: ln_modulate, ln_continuous, qk_layernorm, "
		     "residual_gate_add)");
	char missing_shape[256];
	snprintf(missing_shape, sizeof missing_shape, "t.ini:2: [case b]: missing key 'shape' (qk_layernorm takes %s)",
		 site_find("qk_layernorm")->shape_help);
	expect_error("\n[case b]\nsite = qk_layernorm\n" CASE_A, missing_shape);
	expect_error("[arms]\na = turbo\n", "t.ini:2: a: unknown variant 'turbo' (variants: eager, fused, twopass, "
					     "fused.pf8, fused.r1, fused.generic; or an [arm NAME], or plugin:PATH:ARM)");
	expect_error("[arms]\nb = twopass\n" CASE_A "[case g]\nsite = residual_gate_add\nshape = 1x16x256\n",
		     "t.ini:2: b: case 'g' (line 6) has site 'residual_gate_add', which has no variant 'twopass' "
		     "(it has: eager, fused, fused.h1)");
	expect_error("[case g]\nsite = residual_gate_add\nshape = 1x16x256\naffine = true\n",
		     "t.ini:4: affine: site 'residual_gate_add' has no weight or bias (affine = true applies to "
		     "LayerNorm sites)");
	/* twopass is fine where every case's site has it */
	struct scenario *s = parse_text_ok("[arms]\nb = twopass\n" CASE_A);
	assert_string_equal(s->arm_b, "twopass");
	scenario_free(s);
}

/* What config/ refuses in user arms: names, sections, duplicates, the
 * site, the form of a shortcut. (Each kind's keys: test_arms.) */
static void test_user_arm_errors(void **state)
{
	(void)state;
	expect_error("[arms]\nb = mine\n[arm mine]\ntype = plugin\nlibrary = l.so\nname = x\n[arm mine]\n" GATE_CASE,
		     "t.ini:7: [arm mine]: duplicate arm name (first at line 3)");
	expect_error("[arm]\n", "t.ini:1: [arm]: an arm needs a name of letters, digits, '_', '-' and '.', as in [arm my_ln]");
	expect_error("[arm abcdefghijabcdefghijabcdefghijab]\n",
		     "t.ini:1: [arm abcdefghijabcdefghijabcdefghijab]: arm name is 32 characters long, at most 31 allowed");
	expect_error("[arm eager]\n", "t.ini:1: [arm eager]: 'eager' is a built-in variant (abbench sites): choose another name");
	expect_error("[arm m]\ntype = plugin\ntype = cubin\n", "t.ini:3: type: duplicate key (first set at line 2)");
	expect_error("[arm m]\ntype = plugin\nlibrary = a\nlibrary = b\n", "t.ini:4: library: duplicate key (first set at line 3)");
	expect_error("[arm m]\ntype = plugin\nsite = ln_modulate\nsite = ln_modulate\n",
		     "t.ini:4: site: duplicate key (first set at line 3)");
	expect_error("[arm m]\ntype = plugin\nlibrary =\n", "t.ini:3: library: missing value");
	expect_error("[arm m]\nsite = nope\n", "t.ini:2: site: unknown site 'nope' (sites: ln_modulate, ln_continuous, qk_layernorm, residual_gate_add)");
	expect_error("[arms]\nb = m\n[arm m]\ntype = plugin\nsite = ln_modulate\nlibrary = l.so\nname = x\n" GATE_CASE,
		     "t.ini:5: site: arm 'm' is for site 'ln_modulate', but case 'g' (line 8) has site 'residual_gate_add'");
	expect_error("[arms]\nb = plugin:l.so\n" GATE_CASE, "t.ini:2: b: 'plugin:l.so' is not of the form plugin:PATH:ARM");
	expect_error("[arms]\nb = plugin:l.so:a/b\n" GATE_CASE,
		     "t.ini:2: b: 'plugin:l.so:a/b': the arm name 'a/b' may use only letters, digits, '_', '-' and '.'");
	expect_error("[arms]\na = m2\n[arm m]\ntype = plugin\nlibrary = l.so\nname = x\n" GATE_CASE,
		     "t.ini:2: a: unknown variant or arm 'm2' (variants: eager, fused, twopass, fused.pf8, fused.r1, "
		     "fused.generic; arms: m)");
	char many[2048] = "[arm m]\ntype = plugin\n";
	for (int i = 0; i < 25; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "k%d = v\n", i);
	expect_error(many, "t.ini:27: k24: [arm m] has more than 24 keys");
}

/* Text is UTF-8 or refused at its line and column (issue 19, row 6): in
 * the description, a name, a section header, an [arm] value or a comment;
 * overlong forms, surrogates and cut sequences too. Valid UTF-8 passes. */
static void test_utf8(void **state)
{
	(void)state;
	struct scenario *s = parse_text_ok("[scenario]\ndescription = caf\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80\n" CASE_A);
	assert_string_equal(s->description, "caf\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80");
	scenario_free(s);
	expect_error("[scenario]\ndescription = caf\xE9\n" CASE_A,
		     "t.ini:2: byte 0xE9 at column 18 is not UTF-8 (a scenario is UTF-8 text)");
	expect_error("[scenario]\nname = n\xFF\n" CASE_A, "t.ini:2: byte 0xFF at column 9 is not UTF-8 (a scenario is UTF-8 text)");
	expect_error("[case a\xC0\xAF]\nsite = ln_modulate\nshape = 1x16x256\n",
		     "t.ini:1: byte 0xC0 at column 8 is not UTF-8 (a scenario is UTF-8 text)");
	expect_error("[arms]\nb = m\n[arm m]\ntype = plugin\nlibrary = l\xED\xA0\x80.so\nname = x\n" GATE_CASE,
		     "t.ini:5: byte 0xED at column 12 is not UTF-8 (a scenario is UTF-8 text)");
	expect_error("; a comment \xE2\x82\n" CASE_A, "t.ini:1: byte 0xE2 at column 13 is not UTF-8 (a scenario is UTF-8 text)");
	expect_error(CASE_A "; cut at the end \xF0\x9F", "t.ini:4: byte 0xF0 at column 18 is not UTF-8 (a scenario is UTF-8 text)");
}

/* inih's buffer is 200 bytes with room for "\r\n\0": 197 characters is the
 * longest line, whatever its line end. */
static void test_line_length(void **state)
{
	(void)state;
	char text[600], desc[300];
	for (int crlf = 0; crlf < 2; crlf++) {
		memset(desc, 'd', sizeof desc);
		desc[197 - strlen("description = ")] = '\0';
		snprintf(text, sizeof text, "[scenario]%s\ndescription = %s%s\n" CASE_A, crlf ? "\r" : "", desc,
			 crlf ? "\r" : "");
		struct scenario *s = parse_text_ok(text);
		assert_string_equal(s->description, desc);
		scenario_free(s);
		strcat(desc, "d");
		snprintf(text, sizeof text, "[scenario]%s\ndescription = %s%s\n" CASE_A, crlf ? "\r" : "", desc,
			 crlf ? "\r" : "");
		expect_error(text, "t.ini:2: line is 198 characters long, at most 197 allowed");
	}
	/* on the last line, without a newline */
	memset(desc, 'e', sizeof desc);
	desc[250] = '\0';
	snprintf(text, sizeof text, CASE_A "; %s", desc);
	expect_error(text, "t.ini:4: line is 252 characters long, at most 197 allowed");
}

static void test_errors_files(void **state)
{
	(void)state;
	struct scenario *s = (struct scenario *)1;
	struct ab_diag d = { "" };
	assert_int_equal(scenario_parse_file("tests/scenarios/no_such_file.ini", &s, &d), AB_ERR_IO);
	assert_string_equal(d.msg, "cannot open 'tests/scenarios/no_such_file.ini': No such file or directory");
	assert_null(s);
	s = (struct scenario *)1;
	assert_int_equal(scenario_parse_file("tests/scenarios", &s, &d), AB_ERR_INPUT); /* common/infile.h */
	assert_string_equal(d.msg, "cannot open 'tests/scenarios': it is a directory, not a regular file");
	assert_null(s);

	char path[] = "/tmp/test_scenario_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_non_null(f);
	fwrite("[case a]\nsite = ln_modulate\nsha\0pe = 1x16x256\n", 1, 46, f);
	fclose(f);
	s = (struct scenario *)1;
	assert_int_equal(scenario_parse_file(path, &s, &d), AB_ERR_INPUT);
	char want[128];
	snprintf(want, sizeof want, "%s:3: the file contains a NUL byte (not a text file?)", path);
	assert_string_equal(d.msg, want);
	assert_null(s);

	/* 1 MiB + 1 byte of comment lines: past the size limit */
	f = fopen(path, "wb");
	assert_non_null(f);
	for (int i = 0; i < (1 << 20) / 64; i++)
		fprintf(f, ";%62s\n", "");
	fputc(';', f);
	fclose(f);
	s = (struct scenario *)1;
	assert_int_equal(scenario_parse_file(path, &s, &d), AB_ERR_INPUT);
	snprintf(want, sizeof want, "%s:16385: the file is larger than 1 MiB, too large for a scenario (a wrong path?)",
		 path); /* byte 1048577 is the ';' alone on line 16385 */
	assert_string_equal(d.msg, want);
	assert_null(s);
	remove(path);
}

/* Each tests/scenarios/bad/NAME.ini carries "; expect: LINE: REST" and must
 * fail with exactly "tests/scenarios/bad/NAME.ini:LINE: REST". */
static void test_bad_files(void **state)
{
	(void)state;
	DIR *dir = opendir(BAD_DIR);
	struct dirent *e;
	int n = 0;
	assert_non_null(dir);
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
			continue;
		char path[512], want[2 * AB_DIAG_MAX];
		snprintf(path, sizeof path, "%s/%s", BAD_DIR, e->d_name);
		char *text = slurp(path);
		char *exp = strstr(text, "; expect: ");
		if (!exp)
			fail_msg("%s: no '; expect: ' line", path);
		exp += strlen("; expect: ");
		exp[strcspn(exp, "\n")] = '\0';
		snprintf(want, sizeof want, "%s:%s", path, exp);
		free(text);
		struct scenario *s = (struct scenario *)1;
		struct ab_diag d = { "" };
		enum ab_rc rc = scenario_parse_file(path, &s, &d);
		if (rc != AB_ERR_INPUT || strcmp(d.msg, want) != 0)
			fail_msg("%s: got rc %d: %s\nwant: %s", path, (int)rc, d.msg, want);
		assert_null(s);
		n++;
	}
	closedir(dir);
	assert_true(n >= 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_structure),
		cmocka_unit_test(test_errors_keys),
		cmocka_unit_test(test_errors_bracket),
		cmocka_unit_test(test_errors_numbers),
		cmocka_unit_test(test_errors_sites),
		cmocka_unit_test(test_user_arm_errors),
		cmocka_unit_test(test_line_length),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_errors_files),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
