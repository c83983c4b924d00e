/*
 * scenario_fixture.h - what the scenario parser's unit tests
 * (test_scenario.c, test_scenario_errors.c) share: minimal case texts,
 * parsing a file or a text that must parse, finding a case, a case's
 * shape, a file read whole, and expect_error, which parses a text that
 * must be refused with exactly one message.
 *
 * Each tests/unit/test_X.c is built alone against build/libabbench.a, so
 * these are static inline functions (a test file that uses only some of
 * them gets no unused-function warning). Include it after <cmocka.h>.
 */
#ifndef AB_TEST_SCENARIO_FIXTURE_H
#define AB_TEST_SCENARIO_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/scenario.h"

/* Minimal cases, to prefix or append: an ln_modulate case a (the same
 * text by two names, as the tests had it) and a residual_gate_add case g. */
#define MIN_TEXT "[case a]\nsite = ln_modulate\nshape = 1x16x256\n"
#define CASE_A "[case a]\nsite = ln_modulate\nshape = 1x16x256\n"
#define GATE_CASE "[case g]\nsite = residual_gate_add\nshape = 1x16x256\n"

static inline struct scenario *parse_file_ok(const char *path)
{
	struct scenario *s = (struct scenario *)1;
	struct ab_diag d = { "" };
	enum ab_rc rc = scenario_parse_file(path, &s, &d);
	if (rc != AB_OK)
		fail_msg("%s: %s", path, d.msg);
	assert_non_null(s);
	return s;
}

static inline struct scenario *parse_text_ok(const char *text)
{
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	if (scenario_parse_text("t.ini", text, &s, &d) != AB_OK)
		fail_msg("%s", d.msg);
	return s;
}

static inline const struct scenario_case *find_case(const struct scenario *s, const char *name)
{
	for (int i = 0; i < s->n_cases; i++)
		if (strcmp(s->cases[i].name, name) == 0)
			return &s->cases[i];
	fail_msg("no case '%s'", name);
	return NULL;
}

static inline void assert_shape(const struct scenario_case *c, const char *want)
{
	char buf[96];
	site_format_shape(&c->shape, buf, sizeof buf);
	assert_string_equal(buf, want);
}

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 20);
	assert_non_null(buf);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Parses text as "t.ini" and expects AB_ERR_INPUT with exactly msg. */
static inline void expect_error(const char *text, const char *msg)
{
	struct scenario *s = (struct scenario *)1;
	struct ab_diag d = { "" };
	enum ab_rc rc = scenario_parse_text("t.ini", text, &s, &d);
	if (rc != AB_ERR_INPUT || strcmp(d.msg, msg) != 0)
		fail_msg("text:\n%s\ngot rc %d: %s\nwant: %s", text, (int)rc, d.msg, msg);
	assert_null(s);
}

/* The geometry callback's own reason, for messages built from it. */
static inline const char *geometry_reason(const char *site, const char *shape)
{
	static char err[256];
	struct site_shape sh;
	struct site_dims dims;
	assert_true(site_parse_shape(shape, &sh));
	err[0] = '\0';
	assert_false(site_find(site)->geometry(&sh, &dims, err, sizeof err));
	assert_true(err[0] != '\0');
	return err;
}

#endif
