/*
 * test_arms.c - a run's arms through the table of kinds: each user arm's
 * text checked by its kind (every key's error at its FILE:LINE, before any
 * file is opened), the kinds found by name, the built-in variants planned
 * like any arm (refused by name on a backend that lacks them), and the
 * variant each case runs.
 *
 * No plugin or binary is opened here (t130-t133, t221 and test_cubin_arm
 * load real ones): every scenario below fails or plans before that.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arms/arm_kind.h"
#include "arms/arms.h"
#include "common/results_check.h"

#define GATE_CASE "[case g]\nsite = residual_gate_add\nshape = 1x16x256\n"

static struct scenario *parse(const char *text)
{
	struct scenario *s = NULL;
	struct ab_diag d = { "" };
	if (scenario_parse_text("t.ini", text, &s, &d) != AB_OK)
		fail_msg("%s", d.msg);
	return s;
}

/* text (with a case after it when it has none) parses, and arms_check
 * refuses it with exactly msg. */
static void check_fails(const char *text, const char *msg)
{
	char full[2048];
	snprintf(full, sizeof full, "%s%s", text, strstr(text, "[case ") ? "" : GATE_CASE);
	struct scenario *s = parse(full);
	struct ab_diag d = { "" };
	enum ab_rc rc = arms_check(s, &d);
	if (rc != AB_ERR_INPUT || strcmp(d.msg, msg) != 0)
		fail_msg("text:\n%s\ngot rc %d: %s\nwant: %s", text, (int)rc, d.msg, msg);
	scenario_free(s);
}

static void test_kinds_by_name(void **state)
{
	(void)state;
	const char *names[] = { "builtin", "plugin", "cubin", "python" };
	for (int i = 0; i < 4; i++) {
		const struct arm_kind *k = arm_kind_find(names[i]);
		assert_non_null(k);
		assert_string_equal(k->name, names[i]);
		assert_non_null(k->load);
		assert_non_null(k->runs_on);
		assert_non_null(k->variant);
		assert_non_null(k->free);
		assert_true(!k->keys == !k->check); /* a kind of sections checks them */
	}
	assert_null(arm_kind_find("shared"));
	assert_null(arm_kind_find(""));
	assert_true(arm_kind_find("plugin")->shortcut);
	assert_false(arm_kind_find("cubin")->shortcut);
	assert_true(arm_kind_find("python")->shortcut);
	assert_null(arm_kind_find("builtin")->keys);
}

/* The table is the one list of kinds: walked in order, each row's name
 * one the store keeps (results_check_kind_name) and found by it. */
static void test_kinds_table(void **state)
{
	(void)state;
	int n = 0;
	char why[160];
	for (const struct arm_kind *k; (k = arm_kind_at(n)); n++) {
		if (!results_check_kind_name(k->name, why, sizeof why))
			fail_msg("kind '%s': %s", k->name, why);
		assert_ptr_equal(arm_kind_find(k->name), k);
	}
	assert_int_equal(n, 4);
	assert_null(arm_kind_at(-1));
	assert_null(arm_kind_at(n));
	assert_string_equal(arm_kind_at(0)->name, "builtin");
}

/* What holds for every kind: the keys exist, the kind is named and real,
 * a key of another kind is named as such. */
static void test_generic_errors(void **state)
{
	(void)state;
	check_fails("[arm m]\ntype = plugin\nlibary = x\n", "t.ini:3: libary: unknown key in [arm m] (did you mean 'library'?)");
	check_fails("[arm m]\ntype = plugin\nzzzzzz = x\n",
		    "t.ini:3: zzzzzz: unknown key in [arm m] (docs/SCENARIO_FORMAT.md lists the keys)");
	/* every kind's keys together (111 characters) are past suggest.c's
	 * 100, so the docs are named instead; a near miss still gets its key */
	check_fails("[arm m]\ntype = python\nfuntion = f\n", "t.ini:3: funtion: unknown key in [arm m] (did you mean 'function'?)");
	check_fails("[arm m]\ntype = plugin\nwrite = x\n", "t.ini:3: write: unknown key in [arm m] (did you mean 'writes'?)");
	check_fails("[arm m]\nsite = residual_gate_add\nlibrary = l.so\nname = x\n",
		    "t.ini:1: [arm m]: missing key 'type' (plugin, cubin or python)");
	check_fails("[arm m]\ntype = shared\nlibrary = l.so\n", "t.ini:2: type: 'shared' is not one of: plugin, cubin, python");
	check_fails("[arm m]\ntype = builtin\n", "t.ini:2: type: 'builtin' is not one of: plugin, cubin, python");
	check_fails("[arm m]\ntype = plugin\nlibrary = l.so\nname = x\nkernel = k\n", "t.ini:5: kernel: not a key of plugin arms");
	check_fails("[arm m]\ntype = cubin\nname = x\n", "t.ini:3: name: not a key of cubin arms");
	check_fails("[arms]\nb = cubin:k.ptx:k\n" GATE_CASE,
		    "t.ini:2: b: 'cubin:k.ptx:k': no kind of arm 'cubin' takes a shortcut (plugin:PATH:ARM, python:PATH:ARM)");
	check_fails("[arms]\nb = nokind:k.so:k\n" GATE_CASE,
		    "t.ini:2: b: 'nokind:k.so:k': no kind of arm 'nokind' takes a shortcut (plugin:PATH:ARM, python:PATH:ARM)");
}

/* Each kind's own keys, at their lines: unused sections are checked too. */
static void test_kind_errors(void **state)
{
	(void)state;
	check_fails("[arms]\nb = m\n[arm m]\ntype = plugin\n" GATE_CASE,
		    "t.ini:3: [arm m]: missing key 'library' (the plugin's shared library)");
	check_fails("[arm unused]\ntype = plugin\nlibrary = l.so\n",
		    "t.ini:1: [arm unused]: missing key 'name' (the arm's name in the plugin's table)");
	check_fails("[arm m]\ntype = plugin\nlibrary = l.so\nname = a/b\n",
		    "t.ini:4: name: 'a/b' may use only letters, digits, '_', '-' and '.'");
	check_fails("[arm m]\ntype = cubin\nkernel = a b\n", "t.ini:1: [arm m]: missing key 'site' (the site whose tensors the params name)");
	check_fails("[arm m]\ntype = cubin\nsite = residual_gate_add\nkernel = a b\n", "t.ini:4: kernel: 'a b': a kernel's name has no blanks");
	check_fails("[arm m]\ntype = cubin\nsite = residual_gate_add\nshared = 4 *\n", "t.ini:4: shared: '4 *': expected a number, a symbol or '(' at the end");
	check_fails("[arms]\nb = m\n[arm m]\ntype = cubin\nsite = residual_gate_add\nbinary = k.cubin\nkernel = k\n"
		    "grid = M\nblock = 64\nparams = x, outt\n" GATE_CASE,
		    "t.ini:10: params: unknown name 'outt' (did you mean 'out'?): not a tensor of site 'residual_gate_add' (x, ff, gate, out, "
		    "ff_gated), eps, or a shape symbol (B, T, W, N, M, H)");
	struct scenario *s = parse("[arms]\nb = m\n[arm m]\ntype = plugin\nlibrary = l.so\nname = x\n"
				   "[arm k]\ntype = cubin\nsite = residual_gate_add\nbinary = k.cubin\nkernel = k\n"
				   "grid = M\nblock = 64\nparams = x, out\n" GATE_CASE);
	struct ab_diag d = { "" };
	assert_int_equal(arms_check(s, &d), AB_OK);
	scenario_free(s);
}

/* Built-in variants are arms of the built-in kind: planned, refused by
 * name on a backend without them, and the variant of each case's site. */
static void test_builtin_plan(void **state)
{
	(void)state;
	struct scenario *s = parse("[arms]\nb = fused.pf8\n[case img]\nsite = ln_modulate\nshape = 1x8x3072\n");
	struct arms *a = (struct arms *)1;
	struct ab_diag d = { "" };
	assert_int_equal(arms_plan(s, "cpu", &a, &d), AB_ERR_INPUT);
	assert_null(a);
	assert_string_equal(d.msg, "t.ini:3: case 'img': arm b 'fused.pf8' of site 'ln_modulate' has no cpu implementation "
				   "(it runs on: cuda)");
	scenario_free(s);

	s = parse("[case g]\nsite = residual_gate_add\nshape = 1x16x256\n[case ln]\nsite = ln_modulate\nshape = 1x16x256\n");
	assert_int_equal(arms_plan(s, "cpu", &a, &d), AB_OK);
	struct results_run r;
	memset(&r, 0, sizeof r);
	r.n_arm_sources = 7;
	arms_sources(a, &r);
	assert_int_equal(r.n_arm_sources, 0); /* built-in variants have no provenance row */
	/* each case's plan: the variants, the eager chain's bytes for a, the
	 * minimum for b, what each writes */
	struct case_plan p;
	const struct scenario_case *ln = &s->cases[1];
	assert_int_equal(case_plan_build(ln, &p, &d), AB_OK);
	arms_plan_case(a, &p);
	assert_ptr_equal(p.arm[0].variant, site_find_variant(ln->site, "eager"));
	assert_ptr_equal(p.arm[1].variant, site_find_variant(ln->site, "fused"));
	assert_int_equal(p.arm[0].bytes, site_variant_bytes(ln->site, "eager", &ln->dims, ln->affine));
	assert_int_equal(p.arm[1].bytes, site_min_bytes(ln->site, &ln->dims, ln->affine));
	assert_true(p.arm[0].bytes > p.arm[1].bytes);
	assert_int_equal(p.arm[0].writes, site_variant_writes(ln->site, "eager"));
	assert_int_equal(p.arm[1].writes, site_variant_writes(ln->site, "fused"));
	assert_int_equal(case_plan_build(&s->cases[0], &p, &d), AB_OK); /* the other site's */
	arms_plan_case(a, &p);
	assert_ptr_equal(p.arm[0].variant, site_find_variant(s->cases[0].site, "eager"));
	assert_ptr_equal(p.arm[1].variant, site_find_variant(s->cases[0].site, "fused"));
	arms_begin_case(a, &p);
	assert_int_equal(arms_bind(a, NULL, &d), AB_OK);
	arms_free(a);
	/* no plan: every call a no-op, no variant; a case's plan takes the
	 * site's own variants by name */
	assert_int_equal(case_plan_build(&s->cases[0], &p, &d), AB_OK);
	arms_plan_case(NULL, &p);
	assert_ptr_equal(p.arm[1].variant, site_find_variant(s->cases[0].site, "fused"));
	arms_begin_case(NULL, &p);
	scenario_free(s);
}

/* A bad [arm] section fails the plan before any file is opened, even
 * when a and b do not name it. */
static void test_plan_checks_every_section(void **state)
{
	(void)state;
	struct scenario *s = parse("[arm unused]\ntype = plugin\nlibrary = /nonexistent/l.so\n" GATE_CASE);
	struct arms *a = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(arms_plan(s, "cpu", &a, &d), AB_ERR_INPUT);
	assert_string_equal(d.msg, "t.ini:1: [arm unused]: missing key 'name' (the arm's name in the plugin's table)");
	scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_by_name),
		cmocka_unit_test(test_kinds_table),
		cmocka_unit_test(test_generic_errors),
		cmocka_unit_test(test_kind_errors),
		cmocka_unit_test(test_builtin_plan),
		cmocka_unit_test(test_plan_checks_every_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
