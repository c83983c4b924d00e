/*
 * cert.c - a certificate in memory (cert.h): its arrays, environments,
 * and the rule of what may be certified. The JSON document and its seal
 * are cert_json.c's.
 */
#include "common/cert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void arm_free(struct cert_arm *a)
{
	free(a->section);
	a->section = NULL;
}

void cert_free(struct cert *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n_runs; i++)
		free(c->runs[i].ids);
	for (int i = 0; i < c->n_entries; i++) {
		struct cert_entry *e = &c->entries[i];
		free(e->site_text);
		free(e->input_ini);
		arm_free(&e->arm[0]);
		arm_free(&e->arm[1]);
	}
	free(c->runs);
	free(c->entries);
	free(c->excluded);
	memset(c, 0, sizeof *c);
}

/* One more zeroed element of *arr (n elements of size sz); NULL when out
 * of memory. Grows one at a time: certificates hold hundreds, not millions. */
static void *grow(void **arr, int *n, size_t sz)
{
	char *na = realloc(*arr, (size_t)(*n + 1) * sz);
	if (!na)
		return NULL;
	*arr = na;
	memset(na + (size_t)*n * sz, 0, sz);
	return na + (size_t)(*n)++ * sz;
}

struct cert_run *cert_add_run(struct cert *c)
{
	return grow((void **)&c->runs, &c->n_runs, sizeof *c->runs);
}

struct cert_entry *cert_add_entry(struct cert *c)
{
	return grow((void **)&c->entries, &c->n_entries, sizeof *c->entries);
}

struct cert_excluded *cert_add_excluded(struct cert *c)
{
	return grow((void **)&c->excluded, &c->n_excluded, sizeof *c->excluded);
}

char *cert_strdup(const char *text)
{
	return strdup(text ? text : "");
}

/* ---- environments ------------------------------------------------------------ */

bool cert_env_set(struct cert_env *e, const char *key, const char *value)
{
	if (strlen(key) >= sizeof e->kv[0].key || strlen(value) >= sizeof e->kv[0].value)
		return false;
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->kv[i].key, key)) {
			snprintf(e->kv[i].value, sizeof e->kv[i].value, "%s", value);
			return true;
		}
	if (e->n == CERT_MAX_ENV)
		return false;
	snprintf(e->kv[e->n].key, sizeof e->kv[e->n].key, "%s", key);
	snprintf(e->kv[e->n].value, sizeof e->kv[e->n].value, "%s", value);
	e->n++;
	return true;
}

const char *cert_env_get(const struct cert_env *e, const char *key)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].value;
	return NULL;
}

void cert_env_add_words(struct cert_env *e, const char *text)
{
	for (const char *w = text; w && *w;) {
		size_t n = strcspn(w, " "), k = strcspn(w, "=");
		char key[32], value[128];
		if (k < n && k < sizeof key && n - k - 1 < sizeof value) {
			snprintf(key, sizeof key, "%.*s", (int)k, w);
			snprintf(value, sizeof value, "%.*s", (int)(n - k - 1), w + k + 1);
			if (!cert_env_get(e, key))
				cert_env_set(e, key, value);
		}
		w += n;
		w += *w == ' ';
	}
}

static const char *const key_order[] = { "backend", "device", "compute_capability", "driver", "runtime",
					  "cupti",   "python", "numpy",             "torch",  "triton" };
#define N_KEY_ORDER ((int)(sizeof key_order / sizeof key_order[0]))

static int key_rank(const char *key)
{
	for (int i = 0; i < N_KEY_ORDER; i++)
		if (!strcmp(key, key_order[i]))
			return i;
	return N_KEY_ORDER;
}

static int kv_order(const void *x, const void *y)
{
	const struct cert_kv *a = x, *b = y;
	int ra = key_rank(a->key), rb = key_rank(b->key);
	return ra != rb ? ra - rb : strcmp(a->key, b->key);
}

void cert_env_sort(struct cert_env *e)
{
	qsort(e->kv, (size_t)e->n, sizeof e->kv[0], kv_order);
}

static bool listed(const char *const *only, const char *key)
{
	if (!only)
		return true;
	for (int i = 0; only[i]; i++)
		if (!strcmp(only[i], key))
			return true;
	return false;
}

/* "compute capability 9.0 -> 10.0" appended to buf. */
static void diff_one(const char *key, const char *was, const char *now, char *buf, size_t len, int n)
{
	size_t used = strlen(buf);
	char name[32];
	snprintf(name, sizeof name, "%s", key);
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (used < len)
		snprintf(buf + used, len - used, "%s%s %s -> %s", n ? ", " : "", name, was ? was : "(none)",
			 now ? now : "(none)");
}

int cert_env_diff(const struct cert_env *was, const struct cert_env *now, const char *const *only, char *buf,
		  size_t len)
{
	struct cert_env keys = *was;
	int n = 0;
	for (int i = 0; i < now->n; i++)
		if (!cert_env_get(&keys, now->kv[i].key))
			cert_env_set(&keys, now->kv[i].key, "");
	cert_env_sort(&keys);
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < keys.n; i++) {
		const char *k = keys.kv[i].key, *a = cert_env_get(was, k), *b = cert_env_get(now, k);
		if (!listed(only, k) || (a && b && !strcmp(a, b)))
			continue;
		diff_one(k, a, b, buf, len, n++);
	}
	return n;
}

/* The versions of the user arm called name on side arm, "" when none. */
static const char *arm_versions(const struct results_run *r, char arm, const char *name)
{
	for (int i = 0; i < r->n_arm_sources; i++)
		if (r->arm_sources[i].arm == arm && !strcmp(r->arm_sources[i].name, name))
			return r->arm_sources[i].versions;
	return "";
}

void cert_env_of_case(const struct results_run *r, const struct results_case *c, struct cert_env *out)
{
	const struct results_device *dv = &r->device;
	char cc[24];
	memset(out, 0, sizeof *out);
	cert_env_set(out, "backend", r->backend);
	cert_env_set(out, "device", dv->name);
	if (strcmp(r->backend, "cpu") != 0) {
		snprintf(cc, sizeof cc, "%d.%d", dv->cc_major, dv->cc_minor);
		cert_env_set(out, "compute_capability", cc);
	}
	cert_env_set(out, "driver", dv->driver_version);
	cert_env_set(out, "runtime", dv->runtime_version);
	cert_env_add_words(out, r->env);
	cert_env_add_words(out, arm_versions(r, 'a', c->arm_a[0] ? c->arm_a : r->arm_a));
	cert_env_add_words(out, arm_versions(r, 'b', c->arm_b[0] ? c->arm_b : r->arm_b));
	cert_env_sort(out);
}

/* ---- what may be certified ----------------------------------------------------- */

/* The first output of slot s that is not as the first slot's, NULL when
 * none: not bit_exact, or another md5. */
static const struct results_output *first_unequal(const struct results_slot *first, const struct results_slot *s)
{
	for (int o = 0; o < s->n_outputs; o++)
		if (!s->outputs[o].bit_exact || o >= first->n_outputs || strcmp(s->outputs[o].md5, first->outputs[o].md5))
			return &s->outputs[o];
	return NULL;
}

bool cert_case_exact(const struct results_case *c, char *why, size_t len)
{
	bool a = false, b = false;
	const char *arm_a = c->arm_a, *arm_b = c->arm_b;
	if (c->n_slots < 2 || c->slots[0].n_outputs < 1)
		return ab_fail_text(why, len, "the case has %s", c->n_slots < 2 ? "fewer than two slots" : "no output");
	for (int k = 0; k < c->n_slots; k++) {
		const struct results_slot *s = &c->slots[k];
		const struct results_output *o = first_unequal(&c->slots[0], s);
		a |= s->arm == 'a';
		b |= s->arm == 'b';
		if (s->n_outputs != c->slots[0].n_outputs)
			return ab_fail_text(why, len, "slot %s has %d outputs, slot %s %d", s->label, s->n_outputs,
					    c->slots[0].label, c->slots[0].n_outputs);
		if (o && o->mismatches > 0)
			return ab_fail_text(why, len, "slot %s: '%s' not byte-equal to %s (%lld elements differ)", s->label,
					    o->tensor, c->slots[0].label, (long long)o->mismatches);
		if (o)
			return ab_fail_text(why, len, "slot %s: '%s' not byte-equal to %s", s->label, o->tensor,
					    c->slots[0].label);
	}
	if (!a || !b)
		return ab_fail_text(why, len, "the case has no slot of arm %s", a ? "b" : "a");
	if (arm_a[0] && !strcmp(arm_a, arm_b))
		return ab_fail_text(why, len, "arm a and arm b are both '%s': an A/A case proves no fused arm", arm_a);
	return true;
}

void cert_eps_text(double eps, char *buf, size_t len)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, eps);
		if (strtod(buf, NULL) == eps || isnan(eps))
			return;
	}
}
