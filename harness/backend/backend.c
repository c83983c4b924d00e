/*
 * backend.c - the table of backends, the lookups by name, the choice of
 * the one a run uses (explicit, or auto: a GPU backend when a device
 * answers, else the CPU, said loudly by the caller), and what each runs
 * (its variants, its capabilities).
 *
 * A new backend is one row here (under its build condition, with the
 * reason it is absent otherwise) and its declaration in backend.h.
 */
#include "backend/backend.h"
#include "common/suggest.h"

#include <stdio.h>
#include <string.h>

#define BACKEND_MAX 8 /* rows of the table, for backend_choice_names */

const struct backend_entry backend_table[] = {
	{ "cpu", &backend_cpu, NULL, true },
#if AB_HAVE_CUDA
	{ "cuda", &backend_cuda, NULL, false },
#else
	{ "cuda", NULL, "this abbench was built without the CUDA backend (no nvcc at build time)", false },
#endif
	{ NULL, NULL, NULL, false },
};
_Static_assert(sizeof backend_table / sizeof backend_table[0] <= BACKEND_MAX + 1, "raise BACKEND_MAX");

const struct backend_entry *backend_entry_find(const char *name)
{
	for (const struct backend_entry *e = backend_table; name && e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

const struct backend_ops *backend_find(const char *name)
{
	const struct backend_entry *e = backend_entry_find(name);
	return e ? e->ops : NULL;
}

bool backend_usable(const struct backend_entry *e, char *why, size_t len)
{
	if (e->ops)
		return e->ops->available(why, len);
	snprintf(why, len, "%s", e->absent);
	return false;
}

/* Appends sep and name (name alone when buf is empty), cut to fit. */
static void join_sep(char *buf, size_t len, const char *sep, const char *name)
{
	size_t used = strlen(buf);
	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? sep : "", name);
}

static void join(char *buf, size_t len, const char *name)
{
	join_sep(buf, len, ", ", name);
}

void backend_names(char *buf, size_t len, const char *last_sep)
{
	buf[0] = '\0';
	for (const struct backend_entry *e = backend_table; e->name; e++)
		join_sep(buf, len, e[1].name ? ", " : last_sep, e->name);
}

bool backend_choice_parse(const char *text, const char **out)
{
	const struct backend_entry *e = backend_entry_find(text);
	if (e)
		*out = e->name;
	else if (text && !strcmp(text, BACKEND_AUTO))
		*out = BACKEND_AUTO;
	return e || (text && !strcmp(text, BACKEND_AUTO));
}

const char *const *backend_choice_names(void)
{
	static const char *names[BACKEND_MAX + 2];
	if (!names[0]) {
		int n = 0;
		names[n++] = BACKEND_AUTO;
		for (const struct backend_entry *e = backend_table; e->name && n <= BACKEND_MAX; e++)
			names[n++] = e->name;
	}
	return names;
}

/* auto: the first usable entry of the kind asked for (fallback or not);
 * the reasons of those passed over are appended to why. */
static const struct backend_ops *first_usable(bool fallback, char *why, size_t why_len)
{
	char reason[256];
	for (const struct backend_entry *e = backend_table; e->name; e++) {
		if (e->fallback != fallback)
			continue;
		if (backend_usable(e, reason, sizeof reason))
			return e->ops;
		size_t used = strlen(why);
		if (used < why_len)
			snprintf(why + used, why_len - used, "%s%s is not available (%s)", used ? "; " : "", e->name,
				 reason);
	}
	return NULL;
}

enum ab_rc backend_choose(const char *want, const struct backend_ops **out, bool *fell_back, char *why,
			  size_t why_len, struct ab_diag *d)
{
	*fell_back = false;
	why[0] = '\0';
	if (want && !strcmp(want, BACKEND_AUTO)) {
		if ((*out = first_usable(false, why, why_len)))
			return AB_OK;
		*fell_back = true;
		if ((*out = first_usable(true, why, why_len)))
			return AB_OK;
		return ab_fail(d, AB_ERR_USAGE, "backend auto: no backend can run here: %s", why);
	}
	const struct backend_entry *e = backend_entry_find(want);
	if (!e) {
		char names[128], hint[160];
		backend_names(names, sizeof names, ", ");
		suggest_hint_in(want ? want : "", names, "backends", NULL, 1, hint, sizeof hint);
		return ab_fail(d, AB_ERR_USAGE, "unknown backend '%s'%s", want ? want : "", hint);
	}
	if (!backend_usable(e, why, why_len))
		return ab_fail(d, AB_ERR_USAGE, "backend '%s' is not available: %s", e->name, why);
	*out = e->ops;
	return AB_OK;
}

const char *backend_timing_str(enum backend_timing t)
{
	return t == BACKEND_TIMING_GRAPH ? "graph" : t == BACKEND_TIMING_CPU ? "cpu" : "events";
}

bool backend_supports_variant(const struct backend_ops *ops, const struct site_variant *v)
{
	return ops && v && ops->supports(v);
}

unsigned backend_caps(const char *backend)
{
	const struct backend_ops *ops = backend_find(backend);
	return ops ? ops->caps : 0;
}

bool backend_has_caps(const char *backend, unsigned caps)
{
	return backend_find(backend) && (backend_caps(backend) & caps) == caps;
}

void backend_names_for_variant(const struct site_variant *v, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct backend_entry *e = backend_table; e->name; e++)
		if (backend_supports_variant(e->ops, v))
			join(buf, len, e->name);
}

void backend_names_with_caps(unsigned caps, bool any, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct backend_entry *e = backend_table; e->name; e++)
		if (any ? (backend_caps(e->name) & caps) != 0 : backend_has_caps(e->name, caps))
			join(buf, len, e->name);
}
