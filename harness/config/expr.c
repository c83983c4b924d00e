/*
 * expr.c - shape expressions (expr.h): a recursive-descent parser that
 * emits postfix operations, and a stack machine that runs them.
 *
 *   expr    := and ('||' and)*
 *   and     := cmp ('&&' cmp)*
 *   cmp     := sum [('==' | '!=' | '<' | '<=' | '>' | '>=') sum]
 *   sum     := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | primary
 *   primary := INTEGER | SYMBOL | 'cdiv' '(' expr ',' expr ')' | '(' expr ')'
 */
#include "config/expr.h"
#include "common/diag.h"
#include "common/suggest.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
	OP_CONST, OP_SYM, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_CDIV, OP_NEG,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR,
};

#define EXPR_MAX_DEPTH 16

struct parser {
	const char *text, *p;
	struct expr *e;
	int depth;
	char *err;
	size_t len;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static bool fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	if (ps->failed)
		return false;
	ps->failed = true;
	if (ps->err && ps->len) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->len, fmt, ap);
		va_end(ap);
	}
	return false;
}

static void skip_blanks(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool emit(struct parser *ps, int kind, int sym, int64_t value)
{
	if (ps->e->n == EXPR_MAX_OPS)
		return fail(ps, "'%s' is too long (at most %d numbers, symbols and operators)", ps->text, EXPR_MAX_OPS);
	ps->e->op[ps->e->n++] = (struct expr_op){ .kind = (uint8_t)kind, .sym = (uint8_t)sym, .value = value };
	return true;
}

/* "at 'rest'" or "at the end", for messages. */
static const char *where(const struct parser *ps, char *buf, size_t len)
{
	if (!*ps->p)
		snprintf(buf, len, "at the end");
	else
		snprintf(buf, len, "at '%.20s'", ps->p);
	return buf;
}

static bool expect(struct parser *ps, char c)
{
	char at[40];
	skip_blanks(ps);
	if (*ps->p != c)
		return fail(ps, "'%s': expected '%c' %s", ps->text, c, where(ps, at, sizeof at));
	ps->p++;
	return true;
}

static bool parse_expr(struct parser *ps);

static bool parse_number(struct parser *ps)
{
	int64_t v = 0;
	const char *start = ps->p;
	bool over = false;
	for (; isdigit((unsigned char)*ps->p); ps->p++)
		over = over || __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v);
	if (over)
		return fail(ps, "'%s': the number '%.*s' is too large", ps->text, (int)(ps->p - start), start);
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
		return fail(ps, "'%s': '%.20s' is not a number", ps->text, start);
	return emit(ps, OP_CONST, 0, v);
}

static bool parse_name(struct parser *ps)
{
	char name[32];
	size_t n = 0;
	while ((isalnum((unsigned char)*ps->p) || *ps->p == '_') && n + 1 < sizeof name)
		name[n++] = *ps->p++;
	name[n] = '\0';
	if (strcmp(name, "cdiv") == 0) {
		if (!expect(ps, '(') || !parse_expr(ps) || !expect(ps, ',') || !parse_expr(ps) || !expect(ps, ')'))
			return false;
		return emit(ps, OP_CDIV, 0, 0);
	}
	int s = ps->e->site ? site_symbol_find(ps->e->site, name) : -1;
	if (s < 0) {
		char list[SITE_MAX_RANK * (SITE_AXIS_NAME_MAX + 2) + 32] = "";
		if (ps->e->site)
			site_symbol_list(ps->e->site, list, sizeof list);
		char near[SITE_AXIS_NAME_MAX + 8], dym[SITE_AXIS_NAME_MAX + 32] = "";
		if (list[0] && suggest_nearest_in(name, list, near, sizeof near))
			snprintf(dym, sizeof dym, "did you mean '%s'? ", near);
		return fail(ps, "'%s': unknown symbol '%s' (%sshape symbols: %s; function: cdiv(a, b))", ps->text, name, dym,
			    list[0] ? list : "none");
	}
	return emit(ps, OP_SYM, s, 0);
}

static bool parse_primary(struct parser *ps)
{
	char at[40];
	skip_blanks(ps);
	if (isdigit((unsigned char)*ps->p))
		return parse_number(ps);
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
		return parse_name(ps);
	if (*ps->p == '(') {
		ps->p++;
		return parse_expr(ps) && expect(ps, ')');
	}
	return fail(ps, "'%s': expected a number, a symbol or '(' %s", ps->text, where(ps, at, sizeof at));
}

static bool parse_unary(struct parser *ps)
{
	skip_blanks(ps);
	if (*ps->p != '-')
		return parse_primary(ps);
	ps->p++;
	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, "'%s' nests too deeply", ps->text);
	bool ok = parse_unary(ps) && emit(ps, OP_NEG, 0, 0);
	ps->depth--;
	return ok;
}

static bool parse_term(struct parser *ps)
{
	if (!parse_unary(ps))
		return false;
	for (;;) {
		skip_blanks(ps);
		char c = *ps->p;
		int op = c == '*' ? OP_MUL : c == '/' ? OP_DIV : c == '%' ? OP_MOD : -1;
		if (op < 0)
			return true;
		ps->p++;
		if (!parse_unary(ps) || !emit(ps, op, 0, 0))
			return false;
	}
}

static bool parse_sum(struct parser *ps)
{
	bool ok = parse_term(ps);
	while (ok) {
		skip_blanks(ps);
		char c = *ps->p;
		if (c != '+' && c != '-')
			break;
		ps->p++;
		ok = parse_term(ps) && emit(ps, c == '+' ? OP_ADD : OP_SUB, 0, 0);
	}
	return ok;
}

/* The comparison at ps->p, longest first ("<=" before "<"); -1 for none. */
static int comparison(struct parser *ps)
{
	static const struct {
		const char *text;
		int op;
	} ops[] = { { "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT } };
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strncmp(ps->p, ops[i].text, strlen(ops[i].text)) == 0) {
			ps->p += strlen(ops[i].text);
			return ops[i].op;
		}
	return -1;
}

/* One comparison at most: "a < b < c" is refused, as it does not mean
 * what it reads as. */
static bool parse_cmp(struct parser *ps)
{
	char at[40];
	if (!parse_sum(ps))
		return false;
	skip_blanks(ps);
	int op = comparison(ps);
	if (op < 0)
		return true;
	if (!parse_sum(ps) || !emit(ps, op, 0, 0))
		return false;
	skip_blanks(ps);
	const char *p = ps->p;
	if (comparison(ps) >= 0) {
		ps->p = p;
		return fail(ps, "'%s': one comparison at a time (join them with &&) %s", ps->text, where(ps, at, sizeof at));
	}
	return true;
}

/* Operands joined by op ("&&" or "||") at the level below. */
static bool parse_joined(struct parser *ps, const char *op, int kind, bool (*below)(struct parser *))
{
	bool ok = below(ps);
	while (ok) {
		skip_blanks(ps);
		if (strncmp(ps->p, op, 2) != 0)
			break;
		ps->p += 2;
		ok = below(ps) && emit(ps, kind, 0, 0);
	}
	return ok;
}

static bool parse_and(struct parser *ps)
{
	return parse_joined(ps, "&&", OP_AND, parse_cmp);
}

static bool parse_expr(struct parser *ps)
{
	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, "'%s' nests too deeply", ps->text);
	bool ok = parse_joined(ps, "||", OP_OR, parse_and);
	ps->depth--;
	return ok;
}

bool expr_is_symbol(const struct site_desc *site, const char *text)
{
	return site && site_symbol_find(site, text) >= 0;
}

bool expr_parse(const char *text, const struct site_desc *site, struct expr *out, char *err, size_t len)
{
	struct parser ps = { .text = text, .p = text, .e = out, .err = err, .len = len };
	char at[40];
	out->site = site;
	out->n = 0;
	if (!parse_expr(&ps))
		return false;
	skip_blanks(&ps);
	if (*ps.p)
		return fail(&ps, "'%s': unexpected text %s", text, where(&ps, at, sizeof at));
	return true;
}

/* ---- evaluation ---------------------------------------------------------- */

/* One binary operation on a and b into *r; false on overflow or a zero
 * divisor. */
static bool apply(int kind, int64_t a, int64_t b, int64_t *r, char *err, size_t len)
{
	if ((kind == OP_DIV || kind == OP_MOD || kind == OP_CDIV) && b == 0)
		return ab_fail_text(err, len, "division by zero");
	if ((kind == OP_DIV || kind == OP_MOD || kind == OP_CDIV) && a == INT64_MIN && b == -1)
		return ab_fail_text(err, len, "integer overflow");
	bool over = false;
	switch (kind) {
	case OP_ADD: over = __builtin_add_overflow(a, b, r); break;
	case OP_SUB: over = __builtin_sub_overflow(a, b, r); break;
	case OP_MUL: over = __builtin_mul_overflow(a, b, r); break;
	case OP_DIV: *r = a / b; break;
	case OP_MOD: *r = a % b; break;
	case OP_CDIV: *r = a / b + ((a % b != 0) && ((a < 0) == (b < 0))); break;
	case OP_EQ: *r = a == b; break;
	case OP_NE: *r = a != b; break;
	case OP_LT: *r = a < b; break;
	case OP_LE: *r = a <= b; break;
	case OP_GT: *r = a > b; break;
	case OP_GE: *r = a >= b; break;
	case OP_AND: *r = a && b; break;
	case OP_OR: *r = a || b; break;
	}
	return over ? ab_fail_text(err, len, "integer overflow") : true;
}

bool expr_eval(const struct expr *e, const struct site_dims *d, int64_t *out, char *err, size_t len)
{
	int64_t st[EXPR_MAX_OPS];
	int top = 0;
	for (int i = 0; i < e->n; i++) {
		const struct expr_op *o = &e->op[i];
		if (o->kind == OP_CONST) {
			st[top++] = o->value;
		} else if (o->kind == OP_SYM) {
			st[top++] = site_symbol_value(e->site, o->sym, d);
		} else if (o->kind == OP_NEG) {
			if (st[top - 1] == INT64_MIN)
				return ab_fail_text(err, len, "integer overflow");
			st[top - 1] = -st[top - 1];
		} else {
			if (!apply(o->kind, st[top - 2], st[top - 1], &st[top - 2], err, len))
				return false;
			top--;
		}
	}
	if (top != 1)
		return ab_fail_text(err, len, "empty expression");
	*out = st[0];
	return true;
}

