/*
 * test_escape.c - one escaping function per sink (print/escape.h), on the
 * strings a hostile database row carries, and the printer table
 * (print/printer.h): found by name, kinds a format does not print refused.
 * escape_gnuplot's output is also run through gnuplot, when it is on PATH,
 * to see that a planted backtick runs nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "print/escape.h"
#include "print/printer.h"

/* What fn writes into a memory stream. */
static char *captured(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(f, s);
	fclose(f);
	return buf;
}

static void test_gnuplot(void **state)
{
	(void)state;
	char *q = captured(escape_gnuplot, "it's `touch x` \"a\" \\ @m\nsystem('y')");
	assert_string_equal(q, "'it\xE2\x80\x99s `touch x` \"a\" \\ @m system(\xE2\x80\x99y\xE2\x80\x99)'");
	free(q);
	q = captured(escape_gnuplot, "");
	assert_string_equal(q, "''");
	free(q);
}

/* gnuplot itself reads the literal back as the same text and runs nothing. */
static void test_gnuplot_runs_nothing(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_escape_XXXXXX", script[64], cmd[256], pwn[64], out[64];
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof script, "%s/t.gp", dir);
	snprintf(pwn, sizeof pwn, "%s/pwn", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	char hostile[256];
	snprintf(hostile, sizeof hostile, "'a`touch %s`''b\nsystem(\"touch %s\") '\\'", pwn, pwn);
	FILE *f = fopen(script, "w");
	assert_non_null(f);
	fputs("print ", f);
	escape_gnuplot(f, hostile);
	fputs("\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "gnuplot '%s' >'%s' 2>&1", script, out);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(access(pwn, F_OK), -1);
	f = fopen(out, "r");
	char line[256] = "";
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	assert_non_null(strstr(line, "a`touch")); /* the quotes first, doubled and last passed */
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_term_html_stem_csv(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(escape_term("a\x1b[31mb\a\n", buf, sizeof buf), "a\\x1B[31mb\\x07\\x0A");
	assert_string_equal(escape_term("x\x1b", buf, 4), "x\\x");
	char *h = captured(escape_html, "<a href='x'>&\"\n");
	assert_string_equal(h, "&lt;a href=&#39;x&#39;&gt;&amp;&quot; ");
	free(h);
	assert_string_equal(escape_stem("../a/b c\n", buf, sizeof buf), "_._a_b_c_");
	assert_string_equal(escape_stem("", buf, sizeof buf), "_");
	assert_string_equal(escape_stem("abcdef", buf, 4), "abc");
	assert_true(escape_csv_formula("=1+1") && escape_csv_formula("+x") && escape_csv_formula("-x"));
	assert_true(escape_csv_formula("@x") && escape_csv_formula("\tx") && escape_csv_formula("\rx"));
	assert_false(escape_csv_formula("x=1") || escape_csv_formula("") || escape_csv_formula(NULL));
}

/* A value put into one part of a URL: only RFC 3986's unreserved bytes
 * stay, so a commit cannot end its part, open a query or carry a quote. */
static void test_url_part(void **state)
{
	(void)state;
	char *u = captured(escape_url_part, "c996322-dirty_1.2~x");
	assert_string_equal(u, "c996322-dirty_1.2~x");
	free(u);
	u = captured(escape_url_part, "e\"<x>&?/# \xc3\xa9");
	assert_string_equal(u, "e%22%3Cx%3E%26%3F%2F%23%20%C3%A9");
	free(u);
}

/* html_printf: every %s escaped, backticks kept, other conversions printf's. */
static void test_html_printf(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	html_printf(f, "<td>%s</td> `%s` %lld %.*f %s%%", "<b>&", "a'b", -3LL, 1, 2.25, "");
	fclose(f);
	assert_string_equal(buf, "<td>&lt;b&gt;&amp;</td> `a&#39;b` -3 2.2 %");
	free(buf);
}

static void test_printer_table(void **state)
{
	(void)state;
	static const char *const names[] = { "text", "markdown", "csv", "json", "benchmark", "html" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct printer *p = printer_find(names[i]);
		assert_non_null(p);
		assert_string_equal(p->name, names[i]);
	}
	assert_null(printer_find("nosuch"));
	assert_null(printer_find(NULL));
	const enum printer_kind summary[] = { PRINTER_SUMMARY }, exp[] = { PRINTER_RECORD, PRINTER_SUMMARY };
	char buf[128];
	assert_string_equal(printer_names(summary, 1, buf, sizeof buf), "text, csv, json, benchmark");
	assert_int_equal(printer_pick(printer_find("json"), exp, 2), PRINTER_RECORD);
	assert_int_equal(printer_pick(printer_find("csv"), exp, 2), PRINTER_SUMMARY);
	assert_int_equal(printer_pick(printer_find("html"), exp, 2), -1);
	struct printer_job job = { 0 };
	struct ab_diag d = { "" };
	assert_int_equal(printer_emit(printer_find("html"), PRINTER_SUMMARY, &job, NULL, &d), AB_ERR_USAGE);
	assert_string_equal(d.msg, "format 'html' does not print a run's summary");
	assert_int_equal(printer_emit(printer_find("markdown"), PRINTER_REPORT, &job, NULL, &d), AB_ERR_USAGE);
	assert_true(printer_kind_is_dir(PRINTER_DASHBOARD) && !printer_kind_is_dir(PRINTER_GATE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gnuplot),
		cmocka_unit_test(test_gnuplot_runs_nothing),
		cmocka_unit_test(test_term_html_stem_csv),
		cmocka_unit_test(test_html_printf),
		cmocka_unit_test(test_printer_table),
		cmocka_unit_test(test_url_part),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
