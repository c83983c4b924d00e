/*
 * scenario_site.c - sites a scenario declares (scenario_int.h; the format
 * is docs/SITES.md):
 *
 *   [site scale_shift]
 *   summary = x * (1 + scale) + shift, each op rounded to bf16
 *   axes = B T W
 *   tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, out:bf16:B,T,W:output
 *   tensor.shift = bf16:B,W:input      ; one tensor a line, where a list is too long
 *   require = W % 8 == 0               ; expressions of the axes, comma-separated
 *   input.scale = normal(0, 0.5)       ; a default generator of an input
 *
 * A section's lines are kept as they come (keys may come in any order)
 * and the site is built once the whole file and what it includes is read:
 * axes, then tensors against them, then the require expressions against
 * the site's symbols. The result is a struct site_desc like a built-in
 * site's, without variants, eager chain or reference, whose rule is
 * site_rule below; the scenario owns it (scenario_free).
 */
#include "config/scenario_int.h"
#include "common/suggest.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/results.h"

#define SITE_KEYS_MAX (2 * SITE_MAX_TENSORS + 8) /* tensor.NAME and input.NAME lines, and the four keys */
#define SITE_NAME_MAX 32                         /* results_case.site */
#define TENSOR_NAME_MAX 32                       /* results_output.tensor */

static const char *const site_keys[] = { "summary", "axes", "tensors", "require", NULL };

/* ---- reading the section ------------------------------------------------------ */

static struct scenario_site *current(struct pctx *c)
{
	return c->scn->sites[c->cur_site];
}

const struct scenario_site *scenario_site_declared(const struct scenario *scn, const struct site_desc *s)
{
	for (int i = 0; scn && i < scn->n_sites; i++)
		if (&scn->sites[i]->desc == s)
			return scn->sites[i];
	return NULL;
}

static const struct scenario_site *find_declared(const struct scenario *scn, const char *name)
{
	for (int i = 0; scn && i < scn->n_sites; i++)
		if (strcmp(scn->sites[i]->name, name) == 0)
			return scn->sites[i];
	return NULL;
}

const struct site_desc *scenario_site_find(const struct scenario *s, const char *name)
{
	const struct scenario_site *ds = name ? find_declared(s, name) : NULL;
	return ds ? &ds->desc : site_find(name);
}

void scenario_site_names(const struct scenario *s, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct site_desc *const *p = site_registry; *p; p++)
		scenario_list_add(buf, len, (*p)->name);
	for (int i = 0; s && i < s->n_sites; i++)
		scenario_list_add(buf, len, s->sites[i]->name);
}

enum ab_rc scenario_site_resolve(struct pctx *c, const char *name, int line, const char *key,
				 const struct site_desc **out)
{
	*out = scenario_site_find(c->scn, name);
	if (*out)
		return AB_OK;
	char list[512], hint[SUGGEST_LIST_MAX + 96];
	scenario_site_names(c->scn, list, sizeof list);
	suggest_hint_in(name, list, "sites", "see 'abbench sites'", 1, hint, sizeof hint);
	return scenario_perr(c, line, key, "unknown site '%s'%s", name, hint);
}

static enum ab_rc grow_sites(struct pctx *c)
{
	struct scenario *s = c->scn;
	if (s->n_sites < c->site_cap)
		return AB_OK;
	int cap = c->site_cap ? 2 * c->site_cap : 4;
	struct scenario_site **ns = realloc(s->sites, (size_t)cap * sizeof *ns);
	if (!ns)
		return scenario_nomem(c);
	s->sites = ns;
	c->site_cap = cap;
	return AB_OK;
}

enum ab_rc scenario_site_open(struct pctx *c, const char *inner, const char *name)
{
	struct scenario *s = c->scn;
	size_t n = strlen(name);
	if (n == 0 || !scenario_name_ok(name))
		return scenario_perr(c, c->line, NULL,
				     "[%s]: a site needs a name of letters, digits, '_', '-' and '.', as in [site scale_shift]",
				     inner);
	if (n >= SITE_NAME_MAX)
		return scenario_perr(c, c->line, NULL, "[%s]: site name is %zu characters long, at most %d allowed", inner, n,
				     SITE_NAME_MAX - 1);
	if (site_find(name))
		return scenario_perr(c, c->line, NULL, "[%s]: '%s' is a built-in site (abbench sites): choose another name",
				     inner, name);
	const struct scenario_site *dup = find_declared(s, name);
	if (dup)
		return scenario_perr(c, c->line, NULL, "[%s]: site '%s' is declared twice (first at %s:%d)", inner, name,
				     dup->file, dup->line);
	if (grow_sites(c))
		return c->rc;
	struct scenario_site *ds = calloc(1, sizeof *ds);
	if (!ds)
		return scenario_nomem(c);
	s->sites[s->n_sites] = ds;
	snprintf(ds->file, sizeof ds->file, "%s", c->file);
	snprintf(ds->name, sizeof ds->name, "%s", name);
	ds->line = c->line;
	c->cur_site = s->n_sites++;
	c->sec = SEC_SITE;
	return AB_OK;
}

static const struct arm_spec_key *site_key(const struct scenario_site *ds, const char *key)
{
	for (int i = 0; i < ds->n_keys; i++)
		if (strcmp(ds->keys[i].key, key) == 0)
			return &ds->keys[i];
	return NULL;
}

static bool known_key(const char *key)
{
	for (int i = 0; site_keys[i]; i++)
		if (strcmp(site_keys[i], key) == 0)
			return true;
	return strncmp(key, "tensor.", 7) == 0 || strncmp(key, "input.", 6) == 0;
}

enum ab_rc scenario_site_key(struct pctx *c, const char *key, const char *val)
{
	struct scenario_site *ds = current(c);
	const struct arm_spec_key *first = site_key(ds, key);
	if (!known_key(key)) {
		char sec[64], msg[AB_DIAG_MAX / 2];
		snprintf(sec, sizeof sec, "[site %s]", ds->name);
		suggest_unknown_key(key, site_keys, 4, sec, msg, sizeof msg);
		return scenario_perr(c, c->line, key, "%s (or tensor.NAME, input.NAME)", msg);
	}
	if (first)
		return scenario_perr(c, c->line, key, "duplicate key (first set at line %d)", first->line);
	if (!*val && strcmp(key, "summary") != 0)
		return scenario_perr(c, c->line, key, "missing value");
	if (ds->n_keys == SITE_KEYS_MAX)
		return scenario_perr(c, c->line, key, "[site %s] has more than %d keys", ds->name, SITE_KEYS_MAX);
	if (!ds->keys && !(ds->keys = calloc(SITE_KEYS_MAX, sizeof *ds->keys)))
		return scenario_nomem(c);
	struct arm_spec_key *k = &ds->keys[ds->n_keys++];
	snprintf(k->key, sizeof k->key, "%s", key); /* both fit: a line is shorter */
	snprintf(k->value, sizeof k->value, "%s", val);
	k->line = c->line;
	return AB_OK;
}

/* ---- building a site ----------------------------------------------------------- */

/* A name of the site's own (an axis or a tensor): a letter, then letters,
 * digits and '_'; what expressions and cubin params can name. */
static bool identifier_ok(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Errors about a site's lines name its file (an included one, maybe). */
__attribute__((format(printf, 5, 6)))
static enum ab_rc site_err(struct pctx *c, const struct scenario_site *ds, int line, const char *key, const char *fmt,
			   ...)
{
	char reason[AB_DIAG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	const char *saved = c->file;
	c->file = ds->file;
	enum ab_rc rc = key ? scenario_perr(c, line, key, "%s", reason) : scenario_perr(c, line, NULL, "%s", reason);
	c->file = saved;
	return rc;
}

/* buf without leading and trailing blanks, in place. */
static void trim(char *buf)
{
	size_t n = strlen(buf), b = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	while (isspace((unsigned char)buf[b]))
		b++;
	memmove(buf, buf + b, n - b + 1);
}

/* The next item of a list separated by commas (and, for axes, blanks)
 * into buf; false at the end. */
static bool next_item(const char **p, const char *seps, char *buf, size_t cap)
{
	while (**p && (strchr(seps, **p) || isspace((unsigned char)**p)))
		(*p)++;
	if (!**p)
		return false;
	size_t n = strcspn(*p, seps);
	while (n && isspace((unsigned char)(*p)[n - 1]))
		n--;
	snprintf(buf, cap, "%.*s", (int)n, *p);
	*p += strcspn(*p, seps);
	return true;
}

static enum ab_rc build_axes(struct pctx *c, struct scenario_site *ds)
{
	const struct arm_spec_key *k = site_key(ds, "axes");
	char item[ARM_SPEC_TEXT_MAX];
	if (!k)
		return site_err(c, ds, ds->line, NULL, "[site %s]: missing key 'axes' (the letters of a case's shape, as in "
				"axes = B T W)", ds->name);
	for (const char *p = k->value; next_item(&p, ", \t", item, sizeof item);) {
		if (!identifier_ok(item) || strcmp(item, "cdiv") == 0 || strcmp(item, "eps") == 0)
			return site_err(c, ds, k->line, "axes", "'%s' is not an axis name (a letter, then letters, digits and "
					"'_'; not cdiv or eps)", item);
		if (strlen(item) >= SITE_AXIS_NAME_MAX)
			return site_err(c, ds, k->line, "axes", "axis '%s' is %zu characters long, at most %d allowed", item,
					strlen(item), SITE_AXIS_NAME_MAX - 1);
		for (int i = 0; i < ds->desc.n_axes; i++)
			if (strcmp(ds->axis[i], item) == 0)
				return site_err(c, ds, k->line, "axes", "axis '%s' is named twice", item);
		if (ds->desc.n_axes == SITE_MAX_RANK)
			return site_err(c, ds, k->line, "axes", "more than %d axes", SITE_MAX_RANK);
		memcpy(ds->axis[ds->desc.n_axes], item, strlen(item) + 1); /* fits: checked above */
		ds->desc.axes[ds->desc.n_axes] = ds->axis[ds->desc.n_axes];
		ds->desc.n_axes++;
	}
	return AB_OK;
}

static int axis_of(const struct scenario_site *ds, const char *name)
{
	for (int i = 0; i < ds->desc.n_axes; i++)
		if (strcmp(ds->axis[i], name) == 0)
			return i;
	return -1;
}

/* "B,T,W" (blank: a scalar) into the tensor's shape. */
static enum ab_rc tensor_shape(struct pctx *c, struct scenario_site *ds, const char *tname, const char *text,
			       const struct arm_spec_key *k, struct site_tshape *out)
{
	char item[ARM_SPEC_TEXT_MAX], axes[SITE_MAX_RANK * (SITE_AXIS_NAME_MAX + 1)] = "";
	out->rank = 0;
	for (const char *p = text; next_item(&p, ",", item, sizeof item);) {
		int a = axis_of(ds, item);
		if (a < 0) {
			for (int i = 0; i < ds->desc.n_axes; i++)
				snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", i ? " " : "", ds->axis[i]);
			return site_err(c, ds, k->line, k->key, "tensor '%s' uses axis '%s', which axes lacks (axes = %s)", tname,
					item, axes);
		}
		if (out->rank == SITE_MAX_RANK)
			return site_err(c, ds, k->line, k->key, "tensor '%s' has more than %d axes", tname, SITE_MAX_RANK);
		out->axis[out->rank++] = (uint8_t)a;
	}
	return AB_OK;
}

/* One tensor: NAME and "DTYPE:AXES:ROLE" (from a tensors list item, or a
 * tensor.NAME line). */
static enum ab_rc add_tensor(struct pctx *c, struct scenario_site *ds, const char *name, const char *spec,
			     const struct arm_spec_key *k)
{
	char dtype[32], shape[ARM_SPEC_TEXT_MAX], role[32];
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	struct site_desc *s = &ds->desc;
	if (!identifier_ok(name) || strlen(name) >= TENSOR_NAME_MAX)
		return site_err(c, ds, k->line, k->key, "'%s' is not a tensor name (a letter, then letters, digits and '_', "
				"at most %d)", name, TENSOR_NAME_MAX - 1);
	if (!c1 || !c2 || strchr(c2 + 1, ':'))
		return site_err(c, ds, k->line, k->key, "tensor '%s': '%s' is not DTYPE:AXES:ROLE, as in "
				"x:bf16:B,T,W:input", name, spec);
	snprintf(dtype, sizeof dtype, "%.*s", (int)(c1 - spec), spec);
	snprintf(shape, sizeof shape, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
	snprintf(role, sizeof role, "%s", c2 + 1);
	if (site_tensor_index(s, name) >= 0)
		return site_err(c, ds, k->line, k->key, "two tensors named '%s'", name);
	if (axis_of(ds, name) >= 0)
		return site_err(c, ds, k->line, k->key, "tensor '%s' has the name of an axis (params and expressions could "
				"not tell them apart)", name);
	if (s->n_tensors == SITE_MAX_TENSORS)
		return site_err(c, ds, k->line, k->key, "more than %d tensors", SITE_MAX_TENSORS);
	struct site_tensor *t = &s->tensors[s->n_tensors];
	char hint[SUGGEST_LIST_MAX + 96];
	if (!site_dtype_find(dtype, &t->dtype))
		return site_err(c, ds, k->line, k->key, "tensor '%s': unknown dtype '%s'%s", name, dtype,
				suggest_hint_in(dtype, site_dtype_list(), "dtypes", NULL, 1, hint, sizeof hint));
	if (!site_role_find(role, &t->role))
		return site_err(c, ds, k->line, k->key, "tensor '%s': unknown role '%s'%s", name, role,
				suggest_hint_in(role, site_role_list(), "roles", NULL, 1, hint, sizeof hint));
	if (tensor_shape(c, ds, name, shape, k, &t->shape))
		return c->rc;
	memcpy(ds->tensor[s->n_tensors], name, strlen(name) + 1); /* fits: checked above */
	t->name = ds->tensor[s->n_tensors++];
	return AB_OK;
}

/* "x:bf16:B,T,W:input, scale:bf16:B,W:input": items split at the commas
 * that end one (a comma followed by NAME:), so that AXES may hold commas. */
static enum ab_rc tensor_list(struct pctx *c, struct scenario_site *ds, const struct arm_spec_key *k)
{
	const char *p = k->value;
	while (*p) {
		while (isspace((unsigned char)*p) || *p == ',')
			p++;
		if (!*p)
			break;
		const char *colon = strchr(p, ':');
		if (!colon)
			return site_err(c, ds, k->line, "tensors", "'%s' is not NAME:DTYPE:AXES:ROLE, as in x:bf16:B,T,W:input",
					p);
		/* the item ends at the third ':' field's end: the role, up to the next comma */
		const char *q = strchr(colon + 1, ':');
		q = q ? strchr(q + 1, ':') : NULL;
		size_t end = q ? (size_t)(q - p) + strcspn(q, ",") : strlen(p);
		char name[64], spec[ARM_SPEC_TEXT_MAX];
		snprintf(name, sizeof name, "%.*s", (int)(colon - p), p);
		snprintf(spec, sizeof spec, "%.*s", (int)(end - (size_t)(colon + 1 - p)), colon + 1);
		trim(name);
		trim(spec);
		if (add_tensor(c, ds, name, spec, k))
			return c->rc;
		p += end;
	}
	return AB_OK;
}

static enum ab_rc build_tensors(struct pctx *c, struct scenario_site *ds)
{
	const struct arm_spec_key *list = site_key(ds, "tensors");
	if (list && tensor_list(c, ds, list))
		return c->rc;
	for (int i = 0; i < ds->n_keys; i++)
		if (strncmp(ds->keys[i].key, "tensor.", 7) == 0 &&
		    add_tensor(c, ds, ds->keys[i].key + 7, ds->keys[i].value, &ds->keys[i]))
			return c->rc;
	int outputs = 0;
	for (int i = 0; i < ds->desc.n_tensors; i++)
		outputs += ds->desc.tensors[i].role == SITE_OUT;
	if (!outputs)
		return site_err(c, ds, list ? list->line : ds->line, list ? "tensors" : NULL,
				"%ssite '%s' has no output tensor (arms are compared on their outputs: give one role output)",
				list ? "" : "[site] ", ds->name);
	if (outputs > RESULTS_MAX_OUTPUTS)
		return site_err(c, ds, list ? list->line : ds->line, list ? "tensors" : NULL,
				"site '%s' has %d outputs, at most %d allowed", ds->name, outputs, RESULTS_MAX_OUTPUTS);
	return AB_OK;
}

/* require = EXPR, EXPR: split at the commas outside parentheses. */
static enum ab_rc build_require(struct pctx *c, struct scenario_site *ds)
{
	const struct arm_spec_key *k = site_key(ds, "require");
	char err[AB_DIAG_MAX / 2];
	if (!k)
		return AB_OK;
	int depth = 0;
	const char *start = k->value;
	for (const char *p = k->value;; p++) {
		depth += *p == '(' ? 1 : *p == ')' && depth > 0 ? -1 : 0;
		if (*p && (*p != ',' || depth > 0))
			continue;
		char *text = ds->require_text[ds->n_require];
		snprintf(text, sizeof ds->require_text[0], "%.*s", (int)(p - start), start);
		trim(text);
		if (!expr_parse(text, &ds->desc, &ds->require[ds->n_require], err, sizeof err))
			return site_err(c, ds, k->line, "require", "%s", err);
		if (++ds->n_require == (int)(sizeof ds->require / sizeof ds->require[0]) && *p)
			return site_err(c, ds, k->line, "require", "more than %d rules", ds->n_require);
		if (!*p)
			return AB_OK;
		start = p + 1;
	}
}

/* "B=1, T=16, W=250" into buf, for a broken rule's message. */
static void axis_values(const struct site_desc *s, const struct site_dims *d, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < s->n_axes && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%lld", i ? ", " : "", s->axes[i],
					 (long long)d->axis[i]);
}

/* site_desc.rule of a declared site: every require expression holds. */
static bool site_rule(const void *ctx, const struct site_desc *s, const struct site_dims *d, char *err, size_t len)
{
	const struct scenario_site *ds = ctx;
	char why[AB_DIAG_MAX / 4], values[256];
	for (int i = 0; i < ds->n_require; i++) {
		int64_t v = 0;
		if (!expr_eval(&ds->require[i], d, &v, why, sizeof why))
			return ab_fail_text(err, len, "require '%s': %s", ds->require_text[i], why);
		if (!v) {
			axis_values(s, d, values, sizeof values);
			return ab_fail_text(err, len, "require '%s' does not hold (%s)", ds->require_text[i], values);
		}
	}
	return true;
}

/* The help line: the axes, then the rules. */
static void shape_help(struct scenario_site *ds)
{
	char axes[SITE_MAX_RANK * SITE_AXIS_NAME_MAX];
	site_format_axes(&ds->desc, axes, sizeof axes);
	snprintf(ds->shape_help, sizeof ds->shape_help, "%s", axes);
	for (int i = 0; i < ds->n_require; i++) {
		size_t used = strlen(ds->shape_help);
		snprintf(ds->shape_help + used, sizeof ds->shape_help - used, ", %s", ds->require_text[i]);
	}
}

/* A site's input.NAME lines name its inputs, and parse for them. */
static enum ab_rc check_defaults(struct pctx *c, struct scenario_site *ds)
{
	for (int i = 0; i < ds->n_keys; i++) {
		const struct arm_spec_key *k = &ds->keys[i];
		if (strncmp(k->key, "input.", 6) != 0)
			continue;
		int t = site_tensor_index(&ds->desc, k->key + 6);
		struct scenario_gen g;
		const char *saved = c->file;
		c->file = ds->file;
		if (t < 0 || !site_role_is_input(ds->desc.tensors[t].role))
			scenario_perr(c, k->line, k->key, "site '%s' has no input tensor '%s'", ds->name, k->key + 6);
		else
			scenario_gen_parse(c, &ds->desc, &ds->desc.tensors[t], k->value, k->line, k->key, &g);
		c->file = saved;
		if (c->rc)
			return c->rc;
	}
	return AB_OK;
}

static enum ab_rc build(struct pctx *c, struct scenario_site *ds)
{
	struct site_desc *s = &ds->desc;
	const struct arm_spec_key *sum = site_key(ds, "summary");
	s->name = ds->name;
	snprintf(ds->summary, sizeof ds->summary, "%s", sum ? sum->value : "");
	s->summary = ds->summary;
	snprintf(ds->declared_at, sizeof ds->declared_at, "%s:%d", ds->file, ds->line);
	s->declared_at = ds->declared_at;
	if (build_axes(c, ds) || build_tensors(c, ds) || build_require(c, ds) || check_defaults(c, ds))
		return c->rc;
	shape_help(ds);
	s->shape_help = ds->shape_help;
	s->rule = site_rule;
	s->rule_ctx = ds;
	return AB_OK;
}

enum ab_rc scenario_site_finish(struct pctx *c)
{
	for (int i = 0; i < c->scn->n_sites; i++)
		if (build(c, c->scn->sites[i]))
			return c->rc;
	return AB_OK;
}
