/*
 * test_md.c - markdown escaping, tables, path scrubbing, number formats and
 * atomic output files.
 *
 * Expected strings are written out by hand from the GitHub-flavoured
 * markdown rules the module follows (a backslash before '|' keeps a cell
 * whole, '<' '>' '&' become entities, emphasis characters are escaped).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "print/md.h"

/* Runs fn on a memory stream and returns what it wrote (static buffer). */
static char out_buf[4096];

static FILE *mem_open(void)
{
	FILE *f = fmemopen(out_buf, sizeof out_buf, "w");
	assert_non_null(f);
	return f;
}

static const char *mem_close(FILE *f)
{
	fputc('\0', f);
	fclose(f);
	return out_buf;
}

static void test_cell_escapes(void **state)
{
	(void)state;
	FILE *f = mem_open();
	md_cell(f, "a|b <T> & x*y_z `c` [l] ~s\\ \nnext");
	assert_string_equal(mem_close(f), "a\\|b &lt;T&gt; &amp; x\\*y\\_z \\`c\\` \\[l\\] \\~s\\\\  next");
	f = mem_open();
	md_cell(f, NULL);
	assert_string_equal(mem_close(f), "");
}

static void test_code_span(void **state)
{
	(void)state;
	FILE *f = mem_open();
	md_code(f, "elementwise_kernel<128, 4, a|b>");
	assert_string_equal(mem_close(f), "`elementwise_kernel<128, 4, a\\|b>`");
	f = mem_open();
	md_code(f, "has`tick");
	assert_string_equal(mem_close(f), "has\\`tick"); /* falls back to a plain cell */
	f = mem_open();
	md_code(f, "");
	assert_string_equal(mem_close(f), "");
}

/* md_printf: %s a cell, `%s` a code span, the rest printf's. */
static void test_printf(void **state)
{
	(void)state;
	FILE *f = mem_open();
	md_printf(f, "- run %lld `%s` on %s: %d%% **%.*f** %c %zu `%s`|%5.1f|%ld%s", 12LL, "a|b", "x*y <z>", 7, 2,
		  3.14159, 'B', (size_t)9, "has`tick", 2.25, -4L, "");
	assert_string_equal(mem_close(f), "- run 12 `a\\|b` on x\\*y &lt;z&gt;: 7% **3.14** B 9 has\\`tick|  2.2|-4");
	f = mem_open();
	md_printf(f, "`%s` `x` %s`%s`", "", "", "end");
	assert_string_equal(mem_close(f), " `x` `end`");
}

static void test_table_head(void **state)
{
	(void)state;
	const char *cols[] = { "case", "a|b", "n" };
	FILE *f = mem_open();
	md_table_head(f, 3, cols, "lcr");
	assert_string_equal(mem_close(f), "| case | a\\|b | n |\n|---|:---:|---:|\n");
	f = mem_open();
	md_table_head(f, 2, cols, NULL);
	assert_string_equal(mem_close(f), "| case | a\\|b |\n|---|---|\n");
}

static void test_scrub_paths(void **state)
{
	(void)state;
	char buf[256];
	assert_string_equal(md_scrub_paths("/home/u/abbench/build/abbench run scenarios/smoke.ini --db /tmp/x/ab.db",
					   buf, sizeof buf),
			    "abbench run scenarios/smoke.ini --db ab.db");
	assert_string_equal(md_scrub_paths("--db=/tmp/a/b.db cannot open '/var/x/y.ini': no", buf, sizeof buf),
			    "--db=b.db cannot open 'y.ini': no");
	/* slashes inside words are not paths */
	assert_string_equal(md_scrub_paths("A/B/A read+write 4.2 TB/s", buf, sizeof buf), "A/B/A read+write 4.2 TB/s");
	assert_string_equal(md_scrub_paths("out dir /tmp/r/ and /", buf, sizeof buf), "out dir r and /");
	assert_string_equal(md_scrub_paths(NULL, buf, sizeof buf), "");
	/* truncation keeps a terminated string */
	char small[6];
	assert_string_equal(md_scrub_paths("abcdefgh", small, sizeof small), "abcde");
}

static void test_numbers(void **state)
{
	(void)state;
	char b[32];
	const struct md_unit us = { "us", 1e3, 3 }; /* the gate's fixed unit */
	assert_string_equal(md_time_in(123456.0, &us, b, sizeof b), "123.456");
	assert_string_equal(md_time_in(1.0, &us, b, sizeof b), "0.001");
	assert_string_equal(md_time_in(NAN, &us, b, sizeof b), "n/a");
	assert_string_equal(md_pct(0.2, b, sizeof b), "+20.00%");
	assert_string_equal(md_pct(-0.0123, b, sizeof b), "-1.23%");
	assert_string_equal(md_pct(NAN, b, sizeof b), "n/a");
	assert_string_equal(md_bytes(51328, b, sizeof b), "51.3 kB");
	assert_string_equal(md_bytes(67125248, b, sizeof b), "67.13 MB");
	assert_string_equal(md_bytes(2.5e9, b, sizeof b), "2.50 GB");
	assert_string_equal(md_bytes(0, b, sizeof b), "n/a");
	assert_string_equal(md_bytes(NAN, b, sizeof b), "n/a");
}

static char tmpdir[64];

static int make_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_md.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmp(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void test_file_commit_and_abort(void **state)
{
	(void)state;
	char path[128], tmp[160], got[64] = "";
	struct md_file mf;
	struct ab_diag d;
	snprintf(path, sizeof path, "%s/out.md", tmpdir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);

	assert_int_equal(md_file_open(&mf, path, &d), AB_OK);
	fputs("hello\n", mf.f);
	assert_int_equal(access(path, F_OK), -1); /* not there until commit */
	assert_int_equal(md_file_commit(&mf, &d), AB_OK);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof got, f));
	fclose(f);
	assert_string_equal(got, "hello\n");
	assert_int_equal(access(tmp, F_OK), -1);

	assert_int_equal(md_file_open(&mf, path, &d), AB_OK);
	fputs("half", mf.f);
	md_file_abort(&mf);
	assert_int_equal(access(tmp, F_OK), -1);
	f = fopen(path, "r");
	assert_non_null(fgets(got, sizeof got, f));
	fclose(f);
	assert_string_equal(got, "hello\n"); /* the old file is untouched */

	assert_int_equal(md_file_open(&mf, "/nonexistent-dir/x.md", &d), AB_ERR_IO);
	assert_non_null(strstr(d.msg, "cannot write '/nonexistent-dir/x.md': No such file or directory"));
}

static void test_mkdirs(void **state)
{
	(void)state;
	char dir[160], file[200];
	struct ab_diag d;
	struct stat st;
	snprintf(dir, sizeof dir, "%s/a/b/c", tmpdir);
	assert_int_equal(md_mkdirs(dir, &d), AB_OK);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(md_mkdirs(dir, &d), AB_OK); /* exists: fine */
	snprintf(file, sizeof file, "%s/plain", tmpdir);
	fclose(fopen(file, "w"));
	assert_int_equal(md_mkdirs(file, &d), AB_ERR_IO);
	assert_int_equal(md_mkdirs("", &d), AB_ERR_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cell_escapes),
		cmocka_unit_test(test_code_span),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_table_head),
		cmocka_unit_test(test_scrub_paths),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test_setup_teardown(test_file_commit_and_abort, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_mkdirs, make_tmp, remove_tmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
