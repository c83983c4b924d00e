/*
 * arm_spec.c - a user arm's text (arm_spec.h): record lookups, shortcut
 * splitting, paths against the scenario's folder, the messages.
 */
#include "config/arm_spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool arm_spec_is_shortcut(const struct arm_spec *spec)
{
	return spec->via[0] != '\0';
}

const struct arm_spec_key *arm_spec_find(const struct arm_spec *spec, const char *key)
{
	for (int i = 0; i < spec->n_keys; i++)
		if (strcmp(spec->keys[i].key, key) == 0)
			return &spec->keys[i];
	return NULL;
}

int arm_spec_line(const struct arm_spec *spec, const char *key)
{
	const struct arm_spec_key *k = arm_spec_find(spec, key);
	if (arm_spec_is_shortcut(spec))
		return spec->header;
	return k ? k->line : 0;
}

const char *arm_spec_label(const struct arm_spec *spec, const char *key)
{
	return arm_spec_is_shortcut(spec) ? spec->via : key;
}

bool arm_spec_looks_like_shortcut(const char *text)
{
	return strchr(text, ':') != NULL;
}

bool arm_spec_split_shortcut(const char *text, char *kind, size_t kind_cap, char *path, size_t path_cap, char *name,
			     size_t name_cap, char *err, size_t len)
{
	const char *first = strchr(text, ':');
	const char *body = first ? first + 1 : text;
	const char *last = strrchr(body, ':');
	size_t klen = first ? (size_t)(first - text) : 0;
	if (!first || !klen || !last || last == body || !last[1]) {
		if (klen && klen < kind_cap)
			return ab_fail_text(err, len, "'%s' is not of the form %.*s:PATH:ARM", text, (int)klen, text);
		return ab_fail_text(err, len, "'%s' is not of the form KIND:PATH:ARM, as in plugin:PATH:ARM", text);
	}
	size_t plen = (size_t)(last - body), alen = strlen(last + 1);
	if (klen >= kind_cap || plen >= path_cap || alen >= name_cap)
		return ab_fail_text(err, len, "'%s': the %s is too long", text,
				    klen >= kind_cap ? "kind" : plen >= path_cap ? "path" : "arm name");
	snprintf(kind, kind_cap, "%.*s", (int)klen, text);
	snprintf(path, path_cap, "%.*s", (int)plen, body);
	snprintf(name, name_cap, "%s", last + 1);
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

enum ab_rc arm_spec_fail(struct ab_diag *d, enum ab_rc rc, const char *scenario_path, const struct arm_spec *spec,
			 int line, const char *fmt, ...)
{
	char msg[AB_DIAG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ab_fail(d, rc, "%s:%d: arm '%s': %s", scenario_path, line ? line : spec->header, spec->name, msg);
}

enum ab_rc arm_spec_key_fail(struct ab_diag *d, const char *scenario_path, const struct arm_spec *spec, const char *key,
			     const char *fmt, ...)
{
	char msg[AB_DIAG_MAX];
	va_list ap;
	int line = arm_spec_line(spec, key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ab_fail(d, AB_ERR_INPUT, "%s:%d: %s: %s", scenario_path, line ? line : spec->header,
		       arm_spec_label(spec, key), msg);
}

enum ab_rc arm_spec_require(struct ab_diag *d, const char *scenario_path, const struct arm_spec *spec, const char *key,
			    const char *why)
{
	if (arm_spec_is_shortcut(spec) || arm_spec_find(spec, key))
		return AB_OK;
	return ab_fail(d, AB_ERR_INPUT, "%s:%d: [arm %s]: missing key '%s' (%s)", scenario_path, spec->header, spec->name,
		       key, why);
}
