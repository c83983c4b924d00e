/*
 * test_utf8.c - the strict UTF-8 check against the boundary cases of the
 * Unicode standard's table 3-7 (well-formed byte sequences) and the
 * classic malformations: Latin-1 bytes, overlongs, surrogates, code points
 * past U+10FFFF, truncated sequences, lone continuation bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/utf8.h"

static bool valid(const char *s, size_t *bad)
{
	return utf8_valid(s, strlen(s), bad);
}

static void test_valid_text(void **state)
{
	(void)state;
	const char *ok[] = {
		"", "plain ascii", "caf\xC3\xA9",          /* U+00E9 */
		"\xC2\x80",                              /* U+0080, smallest 2-byte */
		"\xDF\xBF", "\xE0\xA0\x80",              /* U+07FF, U+0800 */
		"\xED\x9F\xBF", "\xEE\x80\x80",          /* U+D7FF, U+E000 around the surrogates */
		"\xEF\xBF\xBF", "\xF0\x90\x80\x80",      /* U+FFFF, U+10000 */
		"\xF4\x8F\xBF\xBF",                      /* U+10FFFF, the last */
		"\xE2\x82\xAC 12",                       /* euro sign */
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		assert_true(valid(ok[i], NULL));
	/* a NUL inside counted data is valid */
	assert_true(utf8_valid("a\0b", 3, NULL));
}

static void test_invalid_text(void **state)
{
	(void)state;
	struct {
		const char *s;
		size_t bad;
	} cases[] = {
		{ "caf\xE9", 3 },                /* Latin-1 e-acute */
		{ "\xC0\xAF", 0 },               /* overlong '/' */
		{ "\xC1\xBF", 0 },               /* overlong */
		{ "\xE0\x9F\xBF", 0 },           /* overlong 3-byte */
		{ "\xF0\x8F\xBF\xBF", 0 },       /* overlong 4-byte */
		{ "ab\xED\xA0\x80", 2 },         /* U+D800 surrogate */
		{ "\xED\xBF\xBF", 0 },           /* U+DFFF */
		{ "\xF4\x90\x80\x80", 0 },       /* U+110000 */
		{ "\xF5\x80\x80\x80", 0 },       /* past F4 */
		{ "\xFF", 0 },
		{ "x\x80", 1 },                  /* lone continuation */
		{ "\xE2\x82", 0 },               /* truncated */
		{ "\xE2\x82" "a", 0 },           /* broken continuation */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t bad = 999;
		assert_false(valid(cases[i].s, &bad));
		assert_int_equal(bad, cases[i].bad);
	}
	/* a sequence cut by the length given is not valid either */
	assert_false(utf8_valid("\xC3\xA9", 1, NULL));
	assert_true(utf8_valid_str("\xC3\xA9", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_text),
		cmocka_unit_test(test_invalid_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
