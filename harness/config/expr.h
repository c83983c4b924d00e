/*
 * expr.h - integer expressions of a case's shape symbols: the launch
 * geometry and parameters of cubin arms (grid = cdiv(M, 4), block = 128),
 * a declared site's rules (require = W % 8 == 0), an arm's traffic
 * (bytes = 3 * B * T * W * 2) and integer input bounds (randint(0, N)).
 *
 * Syntax: decimal integers, the shape symbols of a site (its axes, and for
 * a built-in site the legacy B T W N M H: site.h, "shape symbols"), the
 * operators + - * / % (C's integer semantics, / truncating) and unary -,
 * the comparisons == != < <= > >= (1 or 0, one per operand pair, lower than
 * + -), && and || (lowest; both sides are evaluated), parentheses, and
 * cdiv(a, b) (a / b rounded up). Parsing checks the syntax and the
 * symbols against the site once; evaluation against a case's dims checks
 * overflow and division by zero. An expression is compiled to a short
 * postfix program, so evaluating it allocates nothing.
 */
#ifndef AB_EXPR_H
#define AB_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/site.h"

#define EXPR_MAX_OPS 64

struct expr_op {
	uint8_t kind; /* private: constant, symbol, operator */
	uint8_t sym;  /* a symbol's index in its site (site_symbol_name) */
	int64_t value;
};

struct expr {
	const struct site_desc *site; /* whose symbols it names */
	int n;
	struct expr_op op[EXPR_MAX_OPS];
};

/* Compiles text against the symbols of site; on failure writes one line
 * (what is wrong and where) into err and returns false. */
bool expr_parse(const char *text, const struct site_desc *site, struct expr *out, char *err, size_t len);

/* The value for these dims (of the expression's site); false with a
 * reason (overflow, division by zero) in err. */
bool expr_eval(const struct expr *e, const struct site_dims *d, int64_t *out, char *err, size_t len);

/* Whether text is one symbol of site ("M"). */
bool expr_is_symbol(const struct site_desc *site, const char *text);

#endif
