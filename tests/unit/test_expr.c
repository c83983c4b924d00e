/*
 * test_expr.c - shape expressions: values for known dims, C's integer
 * semantics, cdiv, comparisons and && ||, precedence, the symbols of a
 * built-in and of a declared site, and every error (syntax, unknown
 * symbol, overflow, division by zero) with its message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "config/expr.h"

/* B=2 T=3 W=512 N=128 M=24 H=4: a qk_layernorm-like geometry, read
 * through ln_modulate's symbols (B T W its axes, N M H the legacy ones). */
static const struct site_dims dims = { .batch = 2, .tokens = 3, .width = 512, .row_len = 128, .rows = 24, .heads = 4,
				       .n_axes = 3, .axis = { 2, 3, 512 } };
#define SITE site_find("ln_modulate")

static int64_t value(const char *text)
{
	struct expr e;
	char err[200] = "";
	int64_t v = -999;
	if (!expr_parse(text, SITE, &e, err, sizeof err))
		fail_msg("'%s' does not parse: %s", text, err);
	if (!expr_eval(&e, &dims, &v, err, sizeof err))
		fail_msg("'%s' does not evaluate: %s", text, err);
	return v;
}

static void parse_error(const char *text, const char *want)
{
	struct expr e;
	char err[200] = "";
	assert_false(expr_parse(text, SITE, &e, err, sizeof err));
	if (strcmp(err, want) != 0)
		fail_msg("'%s':\n got: %s\nwant: %s", text, err, want);
}

static void eval_error(const char *text, const char *want)
{
	struct expr e;
	char err[200] = "";
	int64_t v;
	assert_true(expr_parse(text, SITE, &e, err, sizeof err));
	assert_false(expr_eval(&e, &dims, &v, err, sizeof err));
	assert_string_equal(err, want);
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(value("B"), 2);
	assert_int_equal(value("T"), 3);
	assert_int_equal(value("W"), 512);
	assert_int_equal(value("N"), 128);
	assert_int_equal(value("M"), 24);
	assert_int_equal(value("H"), 4);
	assert_int_equal(value("128"), 128);
	assert_int_equal(value(" M * N "), 3072);
	assert_int_equal(value("B*T*W / N"), 24);
	assert_int_equal(value("1 + 2 * 3"), 7);
	assert_int_equal(value("(1 + 2) * 3"), 9);
	assert_int_equal(value("10 - 4 - 3"), 3);
	assert_int_equal(value("100 / 10 / 5"), 2);
	assert_int_equal(value("7 % 4"), 3);
	assert_int_equal(value("-7 / 2"), -3);
	assert_int_equal(value("-7 % 2"), -1);
	assert_int_equal(value("--5"), 5);
	assert_int_equal(value("cdiv(M, 5)"), 5);
	assert_int_equal(value("cdiv(M, 4)"), 6);
	assert_int_equal(value("cdiv(0, 4)"), 0);
	assert_int_equal(value("cdiv(-7, 2)"), -3);
	assert_int_equal(value("cdiv(W * M, 256)"), 48);
	assert_int_equal(value("cdiv(cdiv(M, 2), (1 + 1))"), 6);
	assert_int_equal(value("9223372036854775807"), INT64_MAX);
	/* comparisons (below + -), && and || (lowest) */
	assert_int_equal(value("W % 8 == 0"), 1);
	assert_int_equal(value("W % (4 * H) == 0"), 1);
	assert_int_equal(value("W % 3 == 0"), 0);
	assert_int_equal(value("T != 3"), 0);
	assert_int_equal(value("T < 4"), 1);
	assert_int_equal(value("T <= 3"), 1);
	assert_int_equal(value("T > 3"), 0);
	assert_int_equal(value("T >= 3"), 1);
	assert_int_equal(value("1 + 1 == 2"), 1);
	assert_int_equal(value("B == 2 && T == 4"), 0);
	assert_int_equal(value("B == 2 && T == 3 && W == 512"), 1);
	assert_int_equal(value("B == 9 || T == 3"), 1);
	assert_int_equal(value("B == 9 || T == 9 && W == 512"), 0); /* && binds tighter */
	assert_int_equal(value("(T == 3) * 5"), 5);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_error("", "'': expected a number, a symbol or '(' at the end");
	parse_error("M +", "'M +': expected a number, a symbol or '(' at the end");
	parse_error("M N", "'M N': unexpected text at 'N'");
	parse_error("(M", "'(M': expected ')' at the end");
	parse_error("M)", "'M)': unexpected text at ')'");
	parse_error("Q", "'Q': unknown symbol 'Q' (shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
	parse_error("eps", "'eps': unknown symbol 'eps' (shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
	parse_error("m", "'m': unknown symbol 'm' (did you mean 'M'? shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
	parse_error("Q", "'Q': unknown symbol 'Q' (shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
	parse_error("cdiv(M)", "'cdiv(M)': expected ',' at ')'");
	parse_error("cdiv M", "'cdiv M': expected '(' at 'M'");
	parse_error("3x", "'3x': '3x' is not a number");
	parse_error("M ^ 2", "'M ^ 2': unexpected text at '^ 2'");
	parse_error("99999999999999999999", "'99999999999999999999': the number '99999999999999999999' is too large");
	parse_error("((((((((((((((((((M))))))))))))))))))", "'((((((((((((((((((M))))))))))))))))))' nests too deeply");
	/* 65 operands and operators: one more than a program holds */
	parse_error("1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1",
		    "'1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1' is too long (at most 64 numbers, "
		    "symbols and operators)");
	parse_error("1 < T < 5", "'1 < T < 5': one comparison at a time (join them with &&) at '< 5'");
	parse_error("W = 0", "'W = 0': unexpected text at '= 0'");
	parse_error("W == ", "'W == ': expected a number, a symbol or '(' at the end");
	parse_error("B &&", "'B &&': expected a number, a symbol or '(' at the end");
}

static void test_eval_errors(void **state)
{
	(void)state;
	eval_error("M / 0", "division by zero");
	eval_error("M % (T - 3)", "division by zero");
	eval_error("cdiv(M, B - 2)", "division by zero");
	eval_error("9223372036854775807 + 1", "integer overflow");
	eval_error("3037000500 * 3037000500", "integer overflow");
	eval_error("-9223372036854775807 - 2", "integer overflow");
}

/* A declared site's symbols are its axes only (its names, any length). */
static void test_symbols(void **state)
{
	(void)state;
	static const struct site_desc decl = { .name = "blk", .n_axes = 3, .axes = { "B", "Seq", "E2" },
					       .declared_at = "t.ini:1" };
	const struct site_dims d = { .n_axes = 3, .axis = { 2, 5, 7 } };
	struct expr e;
	char err[200] = "";
	int64_t v = 0;
	assert_true(expr_parse("Seq * E2 + B", &decl, &e, err, sizeof err));
	assert_true(expr_eval(&e, &d, &v, err, sizeof err));
	assert_int_equal(v, 37);
	assert_true(expr_is_symbol(&decl, "Seq"));
	assert_false(expr_is_symbol(&decl, "M"));
	assert_false(expr_parse("M", &decl, &e, err, sizeof err));
	assert_string_equal(err, "'M': unknown symbol 'M' (shape symbols: B, Seq, E2; function: cdiv(a, b))");
	assert_false(expr_parse("B", NULL, &e, err, sizeof err));
	assert_string_equal(err, "'B': unknown symbol 'B' (shape symbols: none; function: cdiv(a, b))");
	assert_true(expr_parse("4 * 4", NULL, &e, err, sizeof err)); /* no symbol, no site needed */
	assert_true(expr_eval(&e, &d, &v, err, sizeof err) && v == 16);
	/* qk_layernorm: its axes B T H D, then W N M */
	assert_false(expr_parse("Z", site_find("qk_layernorm"), &e, err, sizeof err));
	assert_string_equal(err, "'Z': unknown symbol 'Z' (shape symbols: B, T, H, D, W, N, M; function: cdiv(a, b))");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_eval_errors),
		cmocka_unit_test(test_symbols),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
