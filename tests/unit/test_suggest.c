/*
 * test_suggest.c - "did you mean" (common/suggest.h): which words are near
 * (a swap of two neighbours counts one: 'rnu' is 'run'), which are not
 * ('ss' is no stat tensor), case, unique prefixes, the nearest of several,
 * and the hints' three forms (a near word, the list, the fallback).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/suggest.h"

static const char *const commands[] = { "run", "list", "show", "export", "sites", "report", "compare",
					"baseline", "gate", "merge", "backends", "history", "publish" };
#define N_COMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void test_near(void **state)
{
	(void)state;
	assert_string_equal(suggest_nearest("rnu", commands, N_COMMANDS), "run");     /* a swap */
	assert_string_equal(suggest_nearest("reprot", commands, N_COMMANDS), "report");
	assert_string_equal(suggest_nearest("gaet", commands, N_COMMANDS), "gate");
	assert_string_equal(suggest_nearest("histroy", commands, N_COMMANDS), "history");
	assert_string_equal(suggest_nearest("RUN", commands, N_COMMANDS), "run");     /* case ignored */
	assert_string_equal(suggest_nearest("pub", commands, N_COMMANDS), "publish"); /* a unique prefix */
	const char *const sites[] = { "ln_modulate", "ln_continuous", "silu_mul" };
	assert_string_equal(suggest_nearest("silu_mull", sites, 3), "silu_mul");
	const char *const labels[] = { "nightly", "main" };
	assert_string_equal(suggest_nearest("nighty", labels, 2), "nightly");
}

static void test_not_near(void **state)
{
	(void)state;
	const char *const stats[] = { "mean", "rstd", "ln_out", "scale1", "mod_mul" };
	assert_null(suggest_nearest("ss", stats, 5));
	assert_null(suggest_nearest("frobnicate", commands, N_COMMANDS));
	assert_null(suggest_nearest("", commands, N_COMMANDS));
	/* 'ba' starts backends and baseline: not unique, and too short anyway */
	assert_null(suggest_nearest("ba", commands, N_COMMANDS));
	/* two edits on a four-letter word are half of it: too far */
	assert_null(suggest_nearest("xxte", commands, N_COMMANDS));
	const char *const with_null[] = { NULL, "fused", "" };
	assert_string_equal(suggest_nearest("fuse", with_null, 3), "fused");
}

/* The nearest wins over the first near one. */
static void test_nearest_of_several(void **state)
{
	(void)state;
	const char *const v[] = { "fused.r1", "fused", "fused.pf8" };
	assert_string_equal(suggest_nearest("fusd", v, 3), "fused");
	assert_string_equal(suggest_nearest("fused.r2", v, 3), "fused.r1");
	char out[32];
	assert_string_equal(suggest_nearest_in("eagr", "eager, fused,twopass", out, sizeof out), "eager");
	assert_null(suggest_nearest_in("zzz", "eager, fused", out, sizeof out));
}

static void test_hints(void **state)
{
	(void)state;
	char buf[256];
	const char *const roles[] = { "input", "output", "stat", "scratch" };
	assert_string_equal(suggest_hint("ouput", roles, 4, "roles", NULL, 0, buf, sizeof buf), " (did you mean 'output'?)");
	assert_string_equal(suggest_hint("ouput", roles, 4, "roles", NULL, 1, buf, sizeof buf),
			    " (did you mean 'output'? roles: input, output, stat, scratch)");
	assert_string_equal(suggest_hint("weights", roles, 4, "roles", NULL, 1, buf, sizeof buf),
			    " (roles: input, output, stat, scratch)");
	/* up to SUGGEST_LIST_MAX characters the list, past it the fallback,
	 * else nothing */
	assert_string_equal(suggest_hint("zzz", commands, 4, "commands", "see 'abbench --help'", 1, buf, sizeof buf),
			    " (commands: run, list, show, export)");
	const char *const many[] = { "ln_modulate", "ln_continuous", "qk_layernorm", "residual_gate_add", "silu_mul",
				     "img_ln_modulate", "txt_ln_modulate", "img_gate_add", "txt_gate_add" };
	assert_string_equal(suggest_hint("zzz", many, 9, "cases", "see 'abbench sites'", 1, buf, sizeof buf),
			    " (see 'abbench sites')");
	assert_string_equal(suggest_hint("zzz", many, 9, "cases", NULL, 1, buf, sizeof buf), "");
	assert_string_equal(suggest_hint("zzz", NULL, 0, "baselines", NULL, 1, buf, sizeof buf), " (there are no baselines)");
	assert_string_equal(suggest_hint_in("bf61", "bf16, f16, f32", "dtypes", NULL, 1, buf, sizeof buf),
			    " (did you mean 'bf16'? dtypes: bf16, f16, f32)");
	const char *const keys[] = { "steps", "forwards_per_step" };
	suggest_unknown_key("step", keys, 2, "[model]", buf, sizeof buf);
	assert_string_equal(buf, "unknown key in [model] (did you mean 'steps'?)");
	suggest_unknown_key("rounds", keys, 2, "[model]", buf, sizeof buf);
	assert_string_equal(buf, "unknown key in [model] (keys: steps, forwards_per_step)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near),
		cmocka_unit_test(test_not_near),
		cmocka_unit_test(test_nearest_of_several),
		cmocka_unit_test(test_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
