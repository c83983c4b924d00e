/*
 * expr.h - integer expressions of a case's shape symbols, for the launch
 * geometry and parameters of cubin arms (grid = cdiv(M, 4), block = 128).
 *
 * Syntax: decimal integers, the shape symbols B (batch), T (tokens), W
 * (width), N (the LayerNorm row length), M (rows) and H (heads), the
 * operators + - * / % (C's integer semantics, / truncating) and unary -,
 * parentheses, and cdiv(a, b) (a / b rounded up). Parsing checks the
 * syntax and the symbols once; evaluation against a case's dims checks
 * overflow and division by zero. An expression is compiled to a short
 * postfix program, so evaluating it allocates nothing.
 */
#ifndef AB_EXPR_H
#define AB_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/site.h"

#define EXPR_MAX_OPS 48

enum expr_sym { EXPR_B, EXPR_T, EXPR_W, EXPR_N, EXPR_M, EXPR_H, EXPR_N_SYMS };

struct expr_op {
	uint8_t kind; /* private: constant, symbol, operator */
	uint8_t sym;
	int64_t value;
};

struct expr {
	int n;
	struct expr_op op[EXPR_MAX_OPS];
};

/* Compiles text; on failure writes one line (what is wrong and where) into
 * err and returns false. */
bool expr_parse(const char *text, struct expr *out, char *err, size_t len);

/* The value for these dims; false with a reason (overflow, division by
 * zero) in err. */
bool expr_eval(const struct expr *e, const struct site_dims *d, int64_t *out, char *err, size_t len);

/* The symbol called name ("M"), false when there is none. */
bool expr_symbol(const char *name, enum expr_sym *out);
int64_t expr_symbol_value(enum expr_sym s, const struct site_dims *d);

/* "B, T, W, N, M, H", for messages. */
const char *expr_symbol_list(void);

#endif
