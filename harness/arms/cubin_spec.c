/*
 * cubin_spec.c - a compiled-binary arm's [arm NAME] section
 * (cubin_spec.h): launch dimensions, parameter lists, paths and the keys
 * the section needs.
 */
#include "arms/cubin_spec.h"
#include "common/suggest.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const cubin_spec_keys[] = { "triton", "binary", "kernel", "grid", "block", "shared", "params", NULL };

/* ---- the texts of launch dimensions and parameters ----------------------------- */

/* Copies s[0..n) into buf without leading and trailing blanks. */
static void trimmed(const char *s, size_t n, char *buf, size_t cap)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* Splits text at the commas outside parentheses into at most max items of
 * cap bytes each; returns the count, or -1 when there are more than max. */
static int split_items(const char *text, char items[][ARM_SPEC_TEXT_MAX], int max)
{
	int n = 0, depth = 0;
	const char *start = text;
	for (const char *p = text;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		if (*p && (*p != ',' || depth > 0))
			continue;
		if (n == max)
			return -1;
		trimmed(start, (size_t)(p - start), items[n++], ARM_SPEC_TEXT_MAX);
		if (!*p)
			return n;
		start = p + 1;
	}
}

bool cubin_spec_parse_dims(const struct site_desc *site, const char *text, struct expr out[3], int *n, char *err,
			   size_t len)
{
	char items[3][ARM_SPEC_TEXT_MAX];
	int count = split_items(text, items, 3);
	if (count < 0)
		return ab_fail_text(err, len, "'%s' has more than 3 dimensions (x, y, z)", text);
	for (int i = 0; i < count; i++) {
		if (!items[i][0])
			return ab_fail_text(err, len, "'%s': dimension %d is empty", text, i + 1);
		if (!expr_parse(items[i], site, &out[i], err, len))
			return false;
	}
	*n = count;
	return true;
}

static bool is_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static void tensor_list(const struct site_desc *site, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < site->n_tensors && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", site->tensors[i].name);
}

static bool unknown_name(const struct site_desc *site, const char *name, char *err, size_t len)
{
	char list[256], syms[SITE_MAX_RANK * (SITE_AXIS_NAME_MAX + 2) + 32];
	char all[sizeof list + sizeof syms + 8], near[64], dym[96] = "";
	tensor_list(site, list, sizeof list);
	site_symbol_list(site, syms, sizeof syms);
	snprintf(all, sizeof all, "%s, eps, %s", list, syms);
	if (suggest_nearest_in(name, all, near, sizeof near))
		snprintf(dym, sizeof dym, " (did you mean '%s'?)", near);
	return ab_fail_text(err, len,
			 "unknown name '%s'%s: not a tensor of site '%s' (%s), eps, or a shape symbol (%s)", name, dym,
			 site->name, list, syms);
}

/* "M:i64" -> name "M", type "i64"; no ':' -> type "". */
static void split_type(const char *item, char *name, size_t cap, const char **type)
{
	const char *colon = strrchr(item, ':');
	*type = "";
	if (!colon) {
		trimmed(item, strlen(item), name, cap);
		return;
	}
	trimmed(item, (size_t)(colon - item), name, cap);
	*type = colon + 1;
	while (isspace((unsigned char)**type))
		(*type)++;
}

static bool parse_param(const struct site_desc *site, const char *item, struct cubin_spec_param *p, char *err,
			size_t len)
{
	char name[ARM_SPEC_TEXT_MAX];
	const char *type;
	split_type(item, name, sizeof name, &type);
	snprintf(p->text, sizeof p->text, "%.*s", (int)sizeof p->text - 1, item);
	p->tensor = site_tensor_index(site, name);
	if (p->tensor >= 0) {
		p->kind = CUBIN_SPEC_PARAM_TENSOR;
		if (*type && strcmp(type, "ptr") != 0)
			return ab_fail_text(err, len, "'%s': tensor '%s' is passed as a pointer (type ptr), not '%s'", item,
					 name, type);
		return true;
	}
	if (strcmp(name, "eps") == 0) {
		p->kind = CUBIN_SPEC_PARAM_EPS;
		if (*type && strcmp(type, "f32") != 0)
			return ab_fail_text(err, len, "'%s': eps is passed as f32, not '%s'", item, type);
		return true;
	}
	if (*type && strcmp(type, "i32") != 0 && strcmp(type, "i64") != 0)
		return ab_fail_text(err, len, "'%s': unknown type '%s' (an integer is i32 or i64)", item, type);
	p->kind = CUBIN_SPEC_PARAM_INT;
	p->i64 = strcmp(type, "i64") == 0;
	if (is_identifier(name) && !expr_is_symbol(site, name))
		return unknown_name(site, name, err, len);
	return expr_parse(name, site, &p->value, err, len);
}

bool cubin_spec_parse_params(const struct site_desc *site, const char *text, struct cubin_spec_param *out, int *n,
			     char *err, size_t len)
{
	char items[CUBIN_SPEC_MAX_PARAMS][ARM_SPEC_TEXT_MAX];
	int count = split_items(text, items, CUBIN_SPEC_MAX_PARAMS);
	if (count < 0)
		return ab_fail_text(err, len, "more than %d parameters", CUBIN_SPEC_MAX_PARAMS);
	for (int i = 0; i < count; i++) {
		if (!items[i][0])
			return ab_fail_text(err, len, "parameter %d is empty", i + 1);
		if (!parse_param(site, items[i], &out[i], err, len))
			return false;
	}
	*n = count;
	return true;
}

/* ---- the section -------------------------------------------------------------- */

/* Where each key of the section is (0: absent). */
static void key_lines(const struct arm_spec *spec, struct cubin_spec_lines *l)
{
	*l = (struct cubin_spec_lines){ .header = spec->header, .site = spec->site_line,
					.triton = arm_spec_line(spec, "triton"), .binary = arm_spec_line(spec, "binary"),
					.kernel = arm_spec_line(spec, "kernel"), .grid = arm_spec_line(spec, "grid"),
					.block = arm_spec_line(spec, "block"), .shared = arm_spec_line(spec, "shared"),
					.params = arm_spec_line(spec, "params") };
}

/* One record's value into out; params wait for the site (read_params). */
static enum ab_rc read_value(const struct arm_spec *spec, const struct scenario *s, const struct arm_spec_key *k,
			     struct cubin_spec *out, struct ab_diag *d)
{
	char err[AB_DIAG_MAX / 2];
	const char *key = k->key, *v = k->value;
	bool triton = strcmp(key, "triton") == 0;
	if (triton || strcmp(key, "binary") == 0) {
		if (!arm_spec_resolve_path(s->path, v, triton ? out->triton : out->binary, ARM_SPEC_PATH_MAX))
			return arm_spec_key_fail(d, s->path, spec, key, "'%s' is too long a path", v);
	} else if (strcmp(key, "kernel") == 0) {
		if (v[strcspn(v, " \t")])
			return arm_spec_key_fail(d, s->path, spec, key, "'%s': a kernel's name has no blanks", v);
		if (strlen(v) >= sizeof out->kernel)
			return arm_spec_key_fail(d, s->path, spec, key, "'%s' is %zu characters long, at most %zu allowed", v,
						 strlen(v), sizeof out->kernel - 1);
		snprintf(out->kernel, sizeof out->kernel, "%s", v);
	} else if (strcmp(key, "grid") == 0 || strcmp(key, "block") == 0) {
		bool grid = key[0] == 'g';
		if (!cubin_spec_parse_dims(out->site, v, grid ? out->grid : out->block, grid ? &out->n_grid : &out->n_block,
					   err, sizeof err))
			return arm_spec_key_fail(d, s->path, spec, key, "%s", err);
	} else if (strcmp(key, "shared") == 0) {
		if (!expr_parse(v, out->site, &out->shared, err, sizeof err))
			return arm_spec_key_fail(d, s->path, spec, key, "%s", err);
		out->have_shared = true;
	}
	return AB_OK;
}

/* A key the section may not have: reported at its own line. */
static enum ab_rc forbid(const struct arm_spec *spec, const struct scenario *s, const char *key, const char *fmt,
			 const char *arg, struct ab_diag *d)
{
	if (!arm_spec_find(spec, key))
		return AB_OK;
	return arm_spec_key_fail(d, s->path, spec, key, fmt, arg);
}

/* The keys a section needs, and those it may not have together. */
static enum ab_rc check_keys(const struct arm_spec *spec, const struct scenario *s, const struct cubin_spec *out,
			     struct ab_diag *d)
{
	const struct cubin_spec_lines *l = &out->lines;
	const char *path = s->path, *meta = "comes from the Triton metadata (%s) with triton = ...; remove it";
	enum ab_rc rc;
	if (l->triton && l->binary)
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: [arm %s]: give triton (Triton's metadata .json) or binary, not both",
			       path, l->binary > l->triton ? l->binary : l->triton, spec->name);
	if (!l->triton && (rc = arm_spec_require(d, path, spec, "binary",
						 "a .cubin, .ptx or .fatbin; or triton = Triton's .json")))
		return rc;
	if (l->triton && ((rc = forbid(spec, s, "block", meta, "32 x num_warps", d)) ||
			  (rc = forbid(spec, s, "shared", meta, "shared", d))))
		return rc;
	if ((!l->triton && (rc = arm_spec_require(d, path, spec, "kernel", "the kernel's name in the binary"))) ||
	    (rc = arm_spec_require(d, path, spec, "grid", "1 to 3 shape expressions, as in grid = M")) ||
	    (!l->triton && (rc = arm_spec_require(d, path, spec, "block", "threads per block, as in block = 128"))))
		return rc;
	return arm_spec_require(d, path, spec, "params", "the kernel's arguments, as in params = x, out, M, N, eps");
}

enum ab_rc cubin_spec_read(const struct arm_spec *spec, const struct scenario *s, struct cubin_spec *out,
			   struct ab_diag *d)
{
	char err[AB_DIAG_MAX / 2];
	enum ab_rc rc = AB_OK;
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", spec->name);
	out->site = spec->site;
	key_lines(spec, &out->lines);
	/* The site first: every expression names its symbols. */
	if (!out->site)
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: [arm %s]: missing key 'site' (the site whose tensors the params name)",
			       s->path, out->lines.header, spec->name);
	for (int i = 0; !rc && i < spec->n_keys; i++)
		rc = read_value(spec, s, &spec->keys[i], out, d);
	if (rc || (rc = check_keys(spec, s, out, d)))
		return rc;
	const struct arm_spec_key *params = arm_spec_find(spec, "params");
	if (!cubin_spec_parse_params(out->site, params->value, out->params, &out->n_params, err, sizeof err))
		return arm_spec_key_fail(d, s->path, spec, "params", "%s", err);
	return AB_OK;
}
