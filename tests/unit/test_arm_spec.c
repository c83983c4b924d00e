/*
 * test_arm_spec.c - a user arm's text as config/ keeps it: records and
 * their lines, KIND:PATH:NAME shortcuts, paths against the scenario's
 * folder, and the messages every kind's errors share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config/arm_spec.h"

static void test_paths(void **state)
{
	(void)state;
	char out[64];
	assert_true(arm_spec_resolve_path("scenarios/a.ini", "lib/x.so", out, sizeof out));
	assert_string_equal(out, "scenarios/lib/x.so");
	assert_true(arm_spec_resolve_path("/abs/dir/a.ini", "../x.so", out, sizeof out));
	assert_string_equal(out, "/abs/dir/../x.so");
	assert_true(arm_spec_resolve_path("a.ini", "x.so", out, sizeof out));
	assert_string_equal(out, "x.so");
	assert_true(arm_spec_resolve_path("scenarios/a.ini", "/opt/x.so", out, sizeof out));
	assert_string_equal(out, "/opt/x.so");
	assert_false(arm_spec_resolve_path("scenarios/a.ini", "a-name-far-too-long-for-the-buffer-of-sixty-four-bytes.so", out,
					   sizeof out));
}

static bool split(const char *text, char *kind, char *path, char *name, char *err)
{
	return arm_spec_split_shortcut(text, kind, 16, path, 64, name, 32, err, 128);
}

static void test_shortcut(void **state)
{
	(void)state;
	char kind[16], path[64], arm[32], err[128];
	assert_true(split("plugin:../build/libx.so:my_ln", kind, path, arm, err));
	assert_string_equal(kind, "plugin");
	assert_string_equal(path, "../build/libx.so");
	assert_string_equal(arm, "my_ln");
	assert_true(split("plugin:c:/x.so:a", kind, path, arm, err));
	assert_string_equal(path, "c:/x.so");
	assert_true(split("python:glm.py:eager", kind, path, arm, err));
	assert_string_equal(kind, "python");
	assert_false(split("plugin:x.so", kind, path, arm, err));
	assert_string_equal(err, "'plugin:x.so' is not of the form plugin:PATH:ARM");
	assert_false(split("plugin::a", kind, path, arm, err));
	assert_false(split("plugin:x.so:", kind, path, arm, err));
	assert_false(split(":x.so:a", kind, path, arm, err));
	assert_string_equal(err, "':x.so:a' is not of the form KIND:PATH:ARM, as in plugin:PATH:ARM");
	assert_false(split("plugin:x.so:abcdefghijabcdefghijabcdefghijabcdefghij", kind, path, arm, err));
	assert_string_equal(err, "'plugin:x.so:abcdefghijabcdefghijabcdefghijabcdefghij': the arm name is too long");
	assert_false(split("averyveryverylongkind:x.so:a", kind, path, arm, err));
	assert_string_equal(err, "'averyveryverylongkind:x.so:a': the kind is too long");
	assert_true(arm_spec_looks_like_shortcut("plugin:x:y"));
	assert_false(arm_spec_looks_like_shortcut("fused.r1h"));
}

/* A section's records by key, and where a message points for each. */
static void test_records(void **state)
{
	(void)state;
	struct arm_spec s = { .name = "my", .kind = "plugin", .header = 4, .kind_line = 5, .n_keys = 2,
			      .keys = { { "library", "l.so", 7 }, { "name", "x", 8 } } };
	assert_false(arm_spec_is_shortcut(&s));
	assert_string_equal(arm_spec_find(&s, "library")->value, "l.so");
	assert_null(arm_spec_find(&s, "kernel"));
	assert_int_equal(arm_spec_line(&s, "name"), 8);
	assert_int_equal(arm_spec_line(&s, "kernel"), 0);
	assert_string_equal(arm_spec_label(&s, "name"), "name");
	struct arm_spec sc = { .name = "x", .kind = "plugin", .header = 3, .kind_line = 3, .via = "b", .path = "l.so" };
	assert_true(arm_spec_is_shortcut(&sc));
	assert_null(arm_spec_find(&sc, "library"));
	assert_int_equal(arm_spec_line(&sc, "library"), 3);
	assert_string_equal(arm_spec_label(&sc, "library"), "b");
}

static void test_messages(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct arm_spec s = { .name = "my", .kind = "plugin", .header = 4, .n_keys = 1, .keys = { { "library", "l.so", 7 } } };
	assert_int_equal(arm_spec_fail(&d, AB_ERR_INPUT, "x.ini", &s, 7, "cannot open '%s'", "l.so"), AB_ERR_INPUT);
	assert_string_equal(d.msg, "x.ini:7: arm 'my': cannot open 'l.so'");
	arm_spec_fail(&d, AB_ERR_INPUT, "x.ini", &s, 0, "no line");
	assert_string_equal(d.msg, "x.ini:4: arm 'my': no line");
	assert_int_equal(arm_spec_key_fail(&d, "x.ini", &s, "library", "'%s' is too long a path", "l.so"), AB_ERR_INPUT);
	assert_string_equal(d.msg, "x.ini:7: library: 'l.so' is too long a path");
	assert_int_equal(arm_spec_require(&d, "x.ini", &s, "library", "the library"), AB_OK);
	assert_int_equal(arm_spec_require(&d, "x.ini", &s, "name", "the arm's name in the plugin's table"), AB_ERR_INPUT);
	assert_string_equal(d.msg, "x.ini:4: [arm my]: missing key 'name' (the arm's name in the plugin's table)");
	struct arm_spec sc = { .name = "x", .kind = "plugin", .header = 3, .via = "a" };
	assert_int_equal(arm_spec_require(&d, "x.ini", &sc, "name", "never asked of a shortcut"), AB_OK);
	arm_spec_key_fail(&d, "x.ini", &sc, "library", "bad");
	assert_string_equal(d.msg, "x.ini:3: a: bad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_shortcut),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
