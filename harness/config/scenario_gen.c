/*
 * scenario_gen.c - how each input tensor is drawn (scenario_int.h):
 * input.NAME = GENERATOR lines of [case], [scenario] and [site NAME], the
 * first of these that names a tensor winning, else the case's own input
 * distribution (a built-in parameter keeps its fixed one).
 *
 *   normal(MEAN, STD)    special(MEAN, STD)    uniform(LOW, HIGH)
 *   constant(VALUE)      randint(LOW, HIGH)    (LOW <= v < HIGH)
 *
 * The real generators take numbers; randint's bounds are integer
 * expressions of the site's axes (randint(0, S)), evaluated for each case
 * once sweeps are expanded. An integer tensor takes randint or an integral
 * constant; the others are for floating-point tensors (randint too).
 * [scenario] and [case] lines are kept as text until the case's site is
 * known; every one must name an input of its case's site (of some case's,
 * for [scenario]).
 */
#include "config/scenario_int.h"
#include "common/suggest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum scenario_gen_kind kind;
	const char *args;
	bool for_int; /* an integer tensor may take it */
} gens[] = {
	{ "normal", SCENARIO_GEN_NORMAL, "MEAN, STD", false },   { "uniform", SCENARIO_GEN_UNIFORM, "LOW, HIGH", false },
	{ "constant", SCENARIO_GEN_CONSTANT, "VALUE", true },    { "special", SCENARIO_GEN_SPECIAL, "MEAN, STD", false },
	{ "randint", SCENARIO_GEN_RANDINT, "LOW, HIGH", true },
};
#define N_GENS ((int)(sizeof gens / sizeof gens[0]))

static const char gen_forms[] = "normal(MEAN, STD), uniform(LOW, HIGH), constant(VALUE), special(MEAN, STD) or "
				"randint(LOW, HIGH)";

/* The input.TENSOR key of owner (a case's index, -1: the scenario's). */
static const struct gen_key *gkey_of(const struct pctx *c, int owner, const char *tensor)
{
	for (int i = 0; i < c->n_gkeys; i++)
		if (c->gkeys[i].owner == owner && strcmp(c->gkeys[i].tensor, tensor) == 0)
			return &c->gkeys[i];
	return NULL;
}

/* ---- the lines ------------------------------------------------------------------ */

enum ab_rc scenario_gen_key(struct pctx *c, const char *tensor, const char *val)
{
	int owner = c->sec == SEC_CASE ? c->cur : -1;
	char key[80];
	snprintf(key, sizeof key, "input.%.60s", tensor);
	if (!*tensor || strlen(tensor) >= sizeof c->gkeys[0].tensor)
		return scenario_perr(c, c->line, key, "'input.' needs a tensor's name, as in input.scale = normal(0, 0.5)");
	const struct gen_key *first = gkey_of(c, owner, tensor);
	if (first)
		return scenario_perr(c, c->line, key, "duplicate key (first set at line %d)", first->line);
	if (!*val)
		return scenario_perr(c, c->line, key, "missing value");
	if (c->n_gkeys == c->gkey_cap) {
		int cap = c->gkey_cap ? 2 * c->gkey_cap : 8;
		struct gen_key *ng = realloc(c->gkeys, (size_t)cap * sizeof *ng);
		if (!ng)
			return scenario_nomem(c);
		c->gkeys = ng;
		c->gkey_cap = cap;
	}
	struct gen_key *g = &c->gkeys[c->n_gkeys++];
	g->owner = owner;
	snprintf(g->tensor, sizeof g->tensor, "%s", tensor);
	snprintf(g->text, sizeof g->text, "%s", val);
	g->line = c->line;
	return AB_OK;
}

/* ---- one generator's text ------------------------------------------------------- */

/* Splits "a, b" (the text inside the parentheses) at the commas outside
 * parentheses into at most 2 trimmed items; the count, -1 past 2. */
static int split_args(const char *in, char out[2][ARM_SPEC_TEXT_MAX])
{
	int n = 0, depth = 0;
	const char *start = in;
	for (const char *p = in;; p++) {
		depth += *p == '(' ? 1 : *p == ')' && depth > 0 ? -1 : 0;
		if (*p && (*p != ',' || depth > 0))
			continue;
		if (n == 2)
			return -1;
		size_t len = (size_t)(p - start);
		while (len && isspace((unsigned char)*start))
			start++, len--;
		while (len && isspace((unsigned char)start[len - 1]))
			len--;
		snprintf(out[n++], ARM_SPEC_TEXT_MAX, "%.*s", (int)len, start);
		if (!*p)
			return n;
		start = p + 1;
	}
}

static bool real_of(const char *text, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(text, &end);
	return end != text && !*end && isfinite(*out);
}

/* The integers a dtype holds, exactly (never through a double, which
 * cannot hold INT64_MAX), for randint and constant. */
static void int_range(enum site_dtype dt, int64_t *lo, int64_t *hi)
{
	*lo = dt == SITE_U8 ? 0 : dt == SITE_I32 ? INT32_MIN : INT64_MIN;
	*hi = dt == SITE_U8 ? UINT8_MAX : dt == SITE_I32 ? INT32_MAX : INT64_MAX;
}

/* An integer tensor's constant, exactly: a decimal integer, or a real
 * number that is one (7.0, 1e3) and that a double holds exactly
 * (|v| < 2^53); false for anything else (the caller says why). */
static bool int_constant(const char *text, double real, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end != text && !*end) {
		*out = v;
		return errno != ERANGE;
	}
	if (real != floor(real) || fabs(real) >= 0x1p53)
		return false;
	*out = (int64_t)real;
	return true;
}

/* The real arguments of normal, uniform, constant and special, checked.
 * An integer tensor's constant is kept exactly in g->lo. */
static enum ab_rc real_args(struct pctx *c, int line, const char *key, const char *text, int which, char args[2][ARM_SPEC_TEXT_MAX],
			    const struct site_tensor *t, struct scenario_gen *g)
{
	double v[2] = { 0, 0 };
	int want = gens[which].kind == SCENARIO_GEN_CONSTANT ? 1 : 2;
	for (int i = 0; i < want; i++)
		if (!real_of(args[i], &v[i]))
			return scenario_perr(c, line, key, "'%s': '%s' is not a finite number", text, args[i]);
	g->a = v[0];
	g->b = v[1];
	if ((g->kind == SCENARIO_GEN_NORMAL || g->kind == SCENARIO_GEN_SPECIAL) && g->b < 0)
		return scenario_perr(c, line, key, "'%s': the standard deviation %g is negative", text, g->b);
	if (g->kind == SCENARIO_GEN_UNIFORM && !(g->a < g->b))
		return scenario_perr(c, line, key, "'%s': LOW (%g) must be less than HIGH (%g)", text, g->a, g->b);
	if (g->kind == SCENARIO_GEN_CONSTANT && site_dtype_is_int(t->dtype)) {
		int64_t lo, hi;
		int_range(t->dtype, &lo, &hi);
		if (!int_constant(args[0], g->a, &g->lo) || g->lo < lo || g->lo > hi)
			return scenario_perr(c, line, key, "'%s': tensor '%s' is %s, which holds the integers %lld to %lld", text,
					     t->name, site_dtype_name(t->dtype), (long long)lo, (long long)hi);
	}
	return AB_OK;
}

/* randint's bounds: expressions of the site's axes, kept with the scenario. */
static enum ab_rc int_args(struct pctx *c, const struct site_desc *s, int line, const char *key, char args[2][ARM_SPEC_TEXT_MAX],
			   struct scenario_gen *g)
{
	struct expr e[2];
	char err[AB_DIAG_MAX / 2];
	for (int i = 0; i < 2; i++)
		if (!expr_parse(args[i], s, &e[i], err, sizeof err))
			return scenario_perr(c, line, key, "randint: %s", err);
	if (!(g->lo_e = scenario_keep_expr(c, &e[0])) || !(g->hi_e = scenario_keep_expr(c, &e[1])))
		return c->rc;
	return AB_OK;
}

enum ab_rc scenario_gen_parse(struct pctx *c, const struct site_desc *s, const struct site_tensor *t,
			      const char *text, int line, const char *key, struct scenario_gen *g)
{
	char word[16] = "", args[2][ARM_SPEC_TEXT_MAX];
	size_t n = strcspn(text, "(");
	int which = -1;
	*g = (struct scenario_gen){ .line = line, .file = c->file };
	if (n < sizeof word)
		snprintf(word, sizeof word, "%.*s", (int)n, text);
	for (int i = 0; i < N_GENS && text[n] == '('; i++)
		if (strcmp(word, gens[i].name) == 0)
			which = i;
	size_t len = strlen(text);
	if (which < 0 || text[len - 1] != ')')
		return scenario_perr(c, line, key, "'%s' is not a generator (%s)", text, gen_forms);
	char inner[ARM_SPEC_TEXT_MAX];
	snprintf(inner, sizeof inner, "%.*s", (int)(len - n - 2), text + n + 1);
	int want = gens[which].kind == SCENARIO_GEN_CONSTANT ? 1 : 2, got = split_args(inner, args);
	if (got != want || !args[0][0] || (want == 2 && !args[1][0]))
		return scenario_perr(c, line, key, "'%s': %s takes %s", text, gens[which].name, gens[which].args);
	g->kind = gens[which].kind;
	if (site_dtype_is_int(t->dtype) && !gens[which].for_int)
		return scenario_perr(c, line, key, "'%s': tensor '%s' is %s: it takes randint(LOW, HIGH) or constant(VALUE)",
				     text, t->name, site_dtype_name(t->dtype));
	if (g->kind == SCENARIO_GEN_RANDINT)
		return int_args(c, s, line, key, args, g);
	return real_args(c, line, key, text, which, args, t, g);
}

/* ---- per case ----------------------------------------------------------------- */

/* "x, scale, shift": the site's inputs, for messages. */
static void input_names(const struct site_desc *s, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < s->n_tensors; i++)
		if (site_role_is_input(s->tensors[i].role))
			scenario_list_add(buf, len, s->tensors[i].name);
}

static bool is_input_of(const struct site_desc *s, const char *tensor)
{
	int t = site_tensor_index(s, tensor);
	return t >= 0 && site_role_is_input(s->tensors[t].role);
}

/* The site's own default for tensor t (an input.NAME line of [site]). */
static const struct arm_spec_key *site_default(const struct pctx *c, const struct site_desc *s, const char *tensor)
{
	const struct scenario_site *ds = scenario_site_declared(c->scn, s);
	char key[80];
	snprintf(key, sizeof key, "input.%s", tensor);
	for (int i = 0; ds && i < ds->n_keys; i++)
		if (strcmp(ds->keys[i].key, key) == 0)
			return &ds->keys[i];
	return NULL;
}

/* Tensor ti of case i: its generator, the first of [case], [scenario],
 * [site] that names it. */
static enum ab_rc tensor_gen(struct pctx *c, int i, int ti)
{
	struct scenario_case *cs = &c->scn->cases[i];
	const struct site_tensor *t = &cs->site->tensors[ti];
	const struct gen_key *g = gkey_of(c, i, t->name);
	char key[80];
	snprintf(key, sizeof key, "input.%s", t->name);
	if (!g)
		g = gkey_of(c, -1, t->name);
	if (g)
		return scenario_gen_parse(c, cs->site, t, g->text, g->line, key, &cs->gen[ti]);
	const struct arm_spec_key *k = site_default(c, cs->site, t->name);
	if (k) {
		const char *saved = c->file;
		c->file = scenario_site_declared(c->scn, cs->site)->file;
		scenario_gen_parse(c, cs->site, t, k->value, k->line, key, &cs->gen[ti]);
		c->file = saved;
		return c->rc;
	}
	if (site_dtype_is_int(t->dtype))
		return scenario_perr(c, cs->line, NULL, "[case %s]: tensor '%s' of site '%s' is %s and has no generator: "
				     "give it one, as in input.%s = randint(0, 16)", cs->name, t->name, cs->site->name,
				     site_dtype_name(t->dtype), t->name);
	return AB_OK;
}

enum ab_rc scenario_gen_finish_case(struct pctx *c, int i)
{
	struct scenario_case *cs = &c->scn->cases[i];
	for (int k = 0; k < c->n_gkeys; k++) {
		const struct gen_key *g = &c->gkeys[k];
		char list[256], key[80];
		if (g->owner != i || is_input_of(cs->site, g->tensor))
			continue;
		input_names(cs->site, list, sizeof list);
		snprintf(key, sizeof key, "input.%s", g->tensor);
		char hint[SUGGEST_LIST_MAX + 96];
		suggest_hint_in(g->tensor, list, "its inputs", NULL, 1, hint, sizeof hint);
		return scenario_perr(c, g->line, key, "site '%s' of case '%s' has no input tensor '%s'%s",
				     cs->site->name, cs->name, g->tensor, list[0] ? hint : " (its inputs: none)");
	}
	for (int t = 0; t < cs->site->n_tensors; t++)
		if (site_role_is_input(cs->site->tensors[t].role) && tensor_gen(c, i, t))
			return c->rc;
	return AB_OK;
}

enum ab_rc scenario_gen_check_scenario(struct pctx *c)
{
	for (int k = 0; k < c->n_gkeys; k++) {
		const struct gen_key *g = &c->gkeys[k];
		bool used = false;
		for (int i = 0; g->owner < 0 && !used && i < c->scn->n_cases; i++)
			used = is_input_of(c->scn->cases[i].site, g->tensor);
		if (g->owner < 0 && !used) {
			char key[80];
			snprintf(key, sizeof key, "input.%s", g->tensor);
			char list[512] = "", one[256], hint[SUGGEST_LIST_MAX + 96];
			for (int i = 0; i < c->scn->n_cases; i++) {
				input_names(c->scn->cases[i].site, one, sizeof one);
				if (!strstr(list, one))
					scenario_list_add(list, sizeof list, one);
			}
			suggest_hint_in(g->tensor, list, "their inputs", NULL, 1, hint, sizeof hint);
			return scenario_perr(c, g->line, key, "no case's site has an input tensor '%s'%s", g->tensor, hint);
		}
	}
	return AB_OK;
}

/* randint's bounds for case cs: lo < hi, within its tensor's dtype. */
static enum ab_rc case_bounds(struct pctx *c, struct scenario_case *cs)
{
	char err[AB_DIAG_MAX / 2];
	for (int t = 0; t < cs->site->n_tensors; t++) {
		struct scenario_gen *g = &cs->gen[t];
		const struct site_tensor *st = &cs->site->tensors[t];
		char key[80];
		int64_t lo, hi;
		if (g->kind != SCENARIO_GEN_RANDINT)
			continue;
		snprintf(key, sizeof key, "input.%s", st->name);
		const char *saved = c->file;
		c->file = g->file;
		if (!expr_eval(g->lo_e, &cs->dims, &g->lo, err, sizeof err) || !expr_eval(g->hi_e, &cs->dims, &g->hi, err, sizeof err))
			scenario_perr(c, g->line, key, "randint for case '%s': %s", cs->name, err);
		else if (g->lo >= g->hi)
			scenario_perr(c, g->line, key, "randint for case '%s': LOW (%lld) must be less than HIGH (%lld)", cs->name,
				      (long long)g->lo, (long long)g->hi);
		int_range(site_dtype_is_int(st->dtype) ? st->dtype : SITE_I64, &lo, &hi);
		if (!c->rc && (g->lo < lo || g->hi - 1 > hi))
			scenario_perr(c, g->line, key, "randint(%lld, %lld) for case '%s': tensor '%s' is %s, which holds %lld to "
				      "%lld", (long long)g->lo, (long long)g->hi, cs->name, st->name, site_dtype_name(st->dtype),
				      (long long)lo, (long long)hi);
		c->file = saved;
		if (c->rc)
			return c->rc;
	}
	return AB_OK;
}

enum ab_rc scenario_gen_bounds(struct pctx *c)
{
	for (int i = 0; i < c->scn->n_cases; i++)
		if (case_bounds(c, &c->scn->cases[i]))
			return c->rc;
	return AB_OK;
}

/* ---- description -------------------------------------------------------------- */

static void gen_describe(const struct scenario_gen *g, enum site_dtype dt, char *buf, size_t len)
{
	switch (g->kind) {
	case SCENARIO_GEN_NORMAL:
	case SCENARIO_GEN_SPECIAL:
		snprintf(buf, len, "%s(%g,%g)", g->kind == SCENARIO_GEN_NORMAL ? "normal" : "special", g->a, g->b);
		return;
	case SCENARIO_GEN_UNIFORM:
		snprintf(buf, len, "uniform(%g,%g)", g->a, g->b);
		return;
	case SCENARIO_GEN_CONSTANT:
		if (site_dtype_is_int(dt)) /* exact in lo */
			snprintf(buf, len, "constant(%lld)", (long long)g->lo);
		else
			snprintf(buf, len, "constant(%g)", g->a);
		return;
	case SCENARIO_GEN_RANDINT:
		snprintf(buf, len, "randint(%lld,%lld)", (long long)g->lo, (long long)g->hi);
		return;
	case SCENARIO_GEN_NONE:
		break;
	}
	buf[0] = '\0';
}

void scenario_case_describe_input(const struct scenario_case *c, char *buf, size_t len)
{
	scenario_input_describe(&c->input, buf, len);
	for (int t = 0; t < c->site->n_tensors; t++) {
		char one[96];
		size_t used = strlen(buf);
		if (c->gen[t].kind == SCENARIO_GEN_NONE)
			continue;
		gen_describe(&c->gen[t], c->site->tensors[t].dtype, one, sizeof one);
		int n = snprintf(buf + used, len - used, " %s=%s", c->site->tensors[t].name, one);
		if (n < 0 || (size_t)n >= len - used) {
			snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
			return;
		}
	}
}
