/*
 * arm_kind.c - the table of arm kinds (arm_kind.h), one line per kind,
 * and the checks of an arm's text that hold for every kind: which keys
 * exist, which kind the spec names.
 *
 * Each kind is defined in its file, arms/NAME_arm.c; the order here is
 * the order messages list the kinds and their keys in.
 */
#include "arms/arm_kind.h"

#include <stdio.h>
#include <string.h>

#include "config/suggest.h"

#define ARM_KINDS(X) \
	X(builtin)   \
	X(plugin)    \
	X(cubin)     \
	X(python)

#define ARM_KIND_DECLARE(name) extern const struct arm_kind name##_arm_kind;
#define ARM_KIND_ENTRY(name) &name##_arm_kind,

ARM_KINDS(ARM_KIND_DECLARE)

static const struct arm_kind *const kinds[] = { ARM_KINDS(ARM_KIND_ENTRY) NULL };

const char arm_kind_builtin[] = "builtin";

#define KEYS_MAX 64 /* every kind's keys together, type and site included */

const struct arm_kind *arm_kind_find(const char *name)
{
	for (const struct arm_kind *const *k = kinds; *k; k++)
		if (strcmp((*k)->name, name) == 0)
			return *k;
	return NULL;
}

const struct arm_kind *arm_kind_at(int i)
{
	return i >= 0 && i < (int)(sizeof kinds / sizeof kinds[0]) ? kinds[i] : NULL;
}

static bool has_key(const char *const *keys, const char *key)
{
	for (int i = 0; keys && keys[i]; i++)
		if (strcmp(keys[i], key) == 0)
			return true;
	return false;
}

/* type, site, then every kind's keys once, in the table's order. */
static int all_keys(const char **out)
{
	int n = 0;
	out[n++] = "type";
	out[n++] = "site";
	out[n++] = "bytes";
	out[n++] = "writes";
	for (const struct arm_kind *const *k = kinds; *k; k++)
		for (int i = 0; (*k)->keys && (*k)->keys[i]; i++)
			if (n < KEYS_MAX && !has_key(out, (*k)->keys[i]))
				out[n++] = (*k)->keys[i], out[n] = NULL;
	return n;
}

/* "plugin or cubin", "plugin, cubin or python": the kinds of sections
 * (with shortcut: those that take one, as NAME:PATH:ARM). */
static void kind_list(bool shortcut, const char *sep_last, char *buf, size_t len)
{
	const struct arm_kind *pick[16];
	int n = 0;
	size_t used = 0;
	for (const struct arm_kind *const *k = kinds; *k && n < 16; k++)
		if (shortcut ? (*k)->shortcut : (*k)->keys != NULL)
			pick[n++] = *k;
	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s", i == 0 ? "" : i == n - 1 ? sep_last : ", ",
					 pick[i]->name, shortcut ? ":PATH:ARM" : "");
}

/* Every key of the section is some kind's. */
static enum ab_rc known_keys(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d)
{
	const char *keys[KEYS_MAX + 1] = { NULL };
	int n = all_keys(keys);
	for (int i = 0; i < spec->n_keys; i++) {
		const char *key = spec->keys[i].key;
		char sec[64], msg[AB_DIAG_MAX / 2];
		if (has_key(keys, key))
			continue;
		snprintf(sec, sizeof sec, "[arm %s]", spec->name);
		suggest_unknown_key(key, keys, n, sec, msg, sizeof msg);
		return arm_spec_key_fail(d, s->path, spec, key, "%s", msg);
	}
	return AB_OK;
}

/* The kind the spec names: a section's type, a shortcut's prefix. */
static enum ab_rc named_kind(const struct arm_spec *spec, const struct scenario *s, const struct arm_kind **out,
			     struct ab_diag *d)
{
	const struct arm_kind *k = arm_kind_find(spec->kind);
	char list[128];
	*out = k;
	if (arm_spec_is_shortcut(spec)) {
		if (k && k->shortcut)
			return AB_OK;
		kind_list(true, ", ", list, sizeof list);
		return arm_spec_key_fail(d, s->path, spec, "type", "'%s:%s:%s': no kind of arm '%s' takes a shortcut (%s)",
					 spec->kind, spec->path, spec->name, spec->kind, list);
	}
	if (!spec->kind[0]) {
		kind_list(false, " or ", list, sizeof list);
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: [arm %s]: missing key 'type' (%s)", s->path, spec->header,
			       spec->name, list);
	}
	if (k && k->keys)
		return AB_OK;
	kind_list(false, ", ", list, sizeof list);
	return ab_fail(d, AB_ERR_INPUT, "%s:%d: type: '%s' is not one of: %s", s->path, spec->kind_line, spec->kind, list);
}

enum ab_rc arm_kind_check(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d)
{
	const struct arm_kind *k;
	enum ab_rc rc = known_keys(spec, s, d);
	if (!rc)
		rc = named_kind(spec, s, &k, d);
	for (int i = 0; !rc && i < spec->n_keys; i++)
		if (!has_key(k->keys, spec->keys[i].key))
			rc = arm_spec_key_fail(d, s->path, spec, spec->keys[i].key, "not a key of %s arms", k->name);
	return rc ? rc : k->check(spec, s, d);
}
