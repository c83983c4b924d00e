/*
 * test_expr.c - shape expressions: values for known dims, C's integer
 * semantics, cdiv, precedence, and every error (syntax, unknown symbol,
 * overflow, division by zero) with its message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "config/expr.h"

/* B=2 T=3 W=512 N=128 M=24 H=4: a qk_layernorm-like geometry. */
static const struct site_dims dims = { .batch = 2, .tokens = 3, .width = 512, .row_len = 128, .rows = 24, .heads = 4 };

static int64_t value(const char *text)
{
	struct expr e;
	char err[200] = "";
	int64_t v = -999;
	if (!expr_parse(text, &e, err, sizeof err))
		fail_msg("'%s' does not parse: %s", text, err);
	if (!expr_eval(&e, &dims, &v, err, sizeof err))
		fail_msg("'%s' does not evaluate: %s", text, err);
	return v;
}

static void parse_error(const char *text, const char *want)
{
	struct expr e;
	char err[200] = "";
	assert_false(expr_parse(text, &e, err, sizeof err));
	if (strcmp(err, want) != 0)
		fail_msg("'%s':\n got: %s\nwant: %s", text, err, want);
}

static void eval_error(const char *text, const char *want)
{
	struct expr e;
	char err[200] = "";
	int64_t v;
	assert_true(expr_parse(text, &e, err, sizeof err));
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
	parse_error("m", "'m': unknown symbol 'm' (shape symbols: B, T, W, N, M, H; function: cdiv(a, b))");
	parse_error("cdiv(M)", "'cdiv(M)': expected ',' at ')'");
	parse_error("cdiv M", "'cdiv M': expected '(' at 'M'");
	parse_error("3x", "'3x': '3x' is not a number");
	parse_error("M ^ 2", "'M ^ 2': unexpected text at '^ 2'");
	parse_error("99999999999999999999", "'99999999999999999999': the number '99999999999999999999' is too large");
	parse_error("((((((((((((((((((M))))))))))))))))))", "'((((((((((((((((((M))))))))))))))))))' nests too deeply");
	/* 49 operands and operators: one more than a program holds */
	parse_error("1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1",
		    "'1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1' is too long (at most 48 numbers, symbols and operators)");
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

static void test_symbols(void **state)
{
	(void)state;
	enum expr_sym s;
	assert_true(expr_symbol("H", &s));
	assert_int_equal(s, EXPR_H);
	assert_int_equal(expr_symbol_value(s, &dims), 4);
	assert_false(expr_symbol("x", &s));
	assert_string_equal(expr_symbol_list(), "B, T, W, N, M, H");
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
