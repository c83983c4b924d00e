/*
 * arm_spec.c - the text of a user arm (arm_spec.h): launch dimensions,
 * parameter lists, paths and the keys each type needs.
 */
#include "config/arm_spec.h"
#include "common/diag.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
static int split_items(const char *text, char items[][ARM_SPEC_PARAMS_TEXT], int max)
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
		trimmed(start, (size_t)(p - start), items[n++], ARM_SPEC_PARAMS_TEXT);
		if (!*p)
			return n;
		start = p + 1;
	}
}

bool arm_spec_parse_dims(const char *text, struct expr out[3], int *n, char *err, size_t len)
{
	char items[3][ARM_SPEC_PARAMS_TEXT];
	int count = split_items(text, items, 3);
	if (count < 0)
		return ab_fail_text(err, len, "'%s' has more than 3 dimensions (x, y, z)", text);
	for (int i = 0; i < count; i++) {
		if (!items[i][0])
			return ab_fail_text(err, len, "'%s': dimension %d is empty", text, i + 1);
		if (!expr_parse(items[i], &out[i], err, len))
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

static bool unknown_name(const struct arm_spec *spec, const char *name, char *err, size_t len)
{
	char list[256];
	tensor_list(spec->site, list, sizeof list);
	return ab_fail_text(err, len,
			 "unknown name '%s': not a tensor of site '%s' (%s), eps, or a shape symbol (%s)", name,
			 spec->site->name, list, expr_symbol_list());
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

static bool parse_param(const struct arm_spec *spec, const char *item, struct arm_spec_param *p, char *err,
			size_t len)
{
	char name[ARM_SPEC_PARAMS_TEXT];
	const char *type;
	split_type(item, name, sizeof name, &type);
	snprintf(p->text, sizeof p->text, "%.*s", (int)sizeof p->text - 1, item);
	p->tensor = site_tensor_index(spec->site, name);
	if (p->tensor >= 0) {
		p->kind = ARM_SPEC_PARAM_TENSOR;
		if (*type && strcmp(type, "ptr") != 0)
			return ab_fail_text(err, len, "'%s': tensor '%s' is passed as a pointer (type ptr), not '%s'", item,
					 name, type);
		return true;
	}
	if (strcmp(name, "eps") == 0) {
		p->kind = ARM_SPEC_PARAM_EPS;
		if (*type && strcmp(type, "f32") != 0)
			return ab_fail_text(err, len, "'%s': eps is passed as f32, not '%s'", item, type);
		return true;
	}
	if (*type && strcmp(type, "i32") != 0 && strcmp(type, "i64") != 0)
		return ab_fail_text(err, len, "'%s': unknown type '%s' (an integer is i32 or i64)", item, type);
	p->kind = ARM_SPEC_PARAM_INT;
	p->i64 = strcmp(type, "i64") == 0;
	if (is_identifier(name)) {
		enum expr_sym s;
		if (!expr_symbol(name, &s))
			return unknown_name(spec, name, err, len);
	}
	return expr_parse(name, &p->value, err, len);
}

bool arm_spec_parse_params(struct arm_spec *spec, char *err, size_t len)
{
	char items[ARM_SPEC_MAX_PARAMS][ARM_SPEC_PARAMS_TEXT];
	int count = split_items(spec->params_text, items, ARM_SPEC_MAX_PARAMS);
	if (count < 0)
		return ab_fail_text(err, len, "more than %d parameters", ARM_SPEC_MAX_PARAMS);
	for (int i = 0; i < count; i++) {
		if (!items[i][0])
			return ab_fail_text(err, len, "parameter %d is empty", i + 1);
		if (!parse_param(spec, items[i], &spec->params[i], err, len))
			return false;
	}
	spec->n_params = count;
	return true;
}

bool arm_spec_resolve_path(const char *scenario_path, const char *value, char *out, size_t cap)
{
	const char *slash = strrchr(scenario_path, '/');
	int n;
	if (value[0] == '/' || !slash)
		n = snprintf(out, cap, "%s", value);
	else
		n = snprintf(out, cap, "%.*s/%s", (int)(slash - scenario_path), scenario_path, value);
	return n >= 0 && (size_t)n < cap;
}

bool arm_spec_split_shortcut(const char *text, char *path, size_t path_cap, char *arm, size_t arm_cap, char *err,
			     size_t len)
{
	static const char prefix[] = "plugin:";
	const char *body = text + sizeof prefix - 1;
	const char *colon = strrchr(body, ':');
	if (strncmp(text, prefix, sizeof prefix - 1) != 0 || !colon || colon == body || !colon[1])
		return ab_fail_text(err, len, "'%s' is not of the form plugin:PATH:ARM", text);
	size_t plen = (size_t)(colon - body), alen = strlen(colon + 1);
	if (plen >= path_cap || alen >= arm_cap)
		return ab_fail_text(err, len, "'%s': the %s is too long", text, plen >= path_cap ? "path" : "arm name");
	memcpy(path, body, plen);
	path[plen] = '\0';
	memcpy(arm, colon + 1, alen + 1);
	return true;
}

/* A key the type does not take, reported at its line. */
static bool forbid(int key_line, const char *key, const char *type, int *line, char *err, size_t len)
{
	if (!key_line)
		return true;
	*line = key_line;
	return ab_fail_text(err, len, "%s: not a key of %s arms", key, type);
}

static bool require(int key_line, const struct arm_spec *spec, const char *key, const char *why, int *line,
		    char *err, size_t len)
{
	if (key_line)
		return true;
	*line = spec->lines.header;
	return ab_fail_text(err, len, "[arm %s]: missing key '%s' (%s)", spec->name, key, why);
}

/* What Triton's metadata decides is not the scenario's to say. */
static bool forbid_triton(int key_line, const char *key, const char *meta, int *line, char *err, size_t len)
{
	if (!key_line)
		return true;
	*line = key_line;
	return ab_fail_text(err, len, "%s: comes from the Triton metadata (%s) with triton = ...; remove it", key, meta);
}

static bool finish_plugin(const struct arm_spec *spec, int *line, char *err, size_t len)
{
	const struct arm_spec_lines *l = &spec->lines;
	return forbid(l->triton, "triton", "plugin", line, err, len) &&
	       forbid(l->binary, "binary", "plugin", line, err, len) &&
	       forbid(l->kernel, "kernel", "plugin", line, err, len) &&
	       forbid(l->grid, "grid", "plugin", line, err, len) && forbid(l->block, "block", "plugin", line, err, len) &&
	       forbid(l->shared, "shared", "plugin", line, err, len) &&
	       forbid(l->params, "params", "plugin", line, err, len) &&
	       require(l->library, spec, "library", "the plugin's shared library", line, err, len) &&
	       require(l->name, spec, "name", "the arm's name in the plugin's table", line, err, len);
}

static bool finish_cubin(const struct arm_spec *spec, int *line, char *err, size_t len)
{
	const struct arm_spec_lines *l = &spec->lines;
	if (!forbid(l->library, "library", "cubin", line, err, len) || !forbid(l->name, "name", "cubin", line, err, len))
		return false;
	if (l->triton && l->binary) {
		*line = l->binary > l->triton ? l->binary : l->triton;
		return ab_fail_text(err, len, "[arm %s]: give triton (Triton's metadata .json) or binary, not both",
				 spec->name);
	}
	if (!l->triton && !l->binary)
		return require(0, spec, "binary", "a .cubin, .ptx or .fatbin; or triton = Triton's .json", line, err, len);
	if (l->triton && !forbid_triton(l->block, "block", "32 x num_warps", line, err, len))
		return false;
	if (l->triton && !forbid_triton(l->shared, "shared", "shared", line, err, len))
		return false;
	return require(l->site, spec, "site", "the site whose tensors the params name", line, err, len) &&
	       (l->triton || require(l->kernel, spec, "kernel", "the kernel's name in the binary", line, err, len)) &&
	       require(l->grid, spec, "grid", "1 to 3 shape expressions, as in grid = M", line, err, len) &&
	       (l->triton || require(l->block, spec, "block", "threads per block, as in block = 128", line, err, len)) &&
	       require(l->params, spec, "params", "the kernel's arguments, as in params = x, out, M, N, eps", line,
		       err, len);
}

bool arm_spec_finish(struct arm_spec *spec, int *line, char *err, size_t len)
{
	if (!spec->lines.type) {
		*line = spec->lines.header;
		return ab_fail_text(err, len, "[arm %s]: missing key 'type' (plugin or cubin)", spec->name);
	}
	return spec->type == ARM_SPEC_PLUGIN ? finish_plugin(spec, line, err, len) : finish_cubin(spec, line, err, len);
}

const char *arm_spec_type_str(enum arm_spec_type t)
{
	return t == ARM_SPEC_PLUGIN ? "plugin" : "cubin";
}

enum ab_rc arm_spec_fail(struct ab_diag *d, enum ab_rc rc, const char *scenario_path, const struct arm_spec *spec,
			 int line, const char *fmt, ...)
{
	char msg[AB_DIAG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ab_fail(d, rc, "%s:%d: arm '%s': %s", scenario_path, line ? line : spec->lines.header, spec->name, msg);
}
