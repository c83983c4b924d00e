/*
 * coverage.c - a signature log held against a certificate (coverage.h).
 */
#include "analysis/coverage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* a + b for counts (both >= 0), held at INT64_MAX: a log's counts are
 * any positive integers JSON holds, and two of 2^62 must not wrap. */
static int64_t count_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The log's environment cut to the judged keys, so that lines differing
 * only in a key nobody judges fall in one group. */
static void judged_env(const struct cert_env *from, struct cert_env *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; cert_judged_keys[i]; i++) {
		const char *v = cert_env_get(from, cert_judged_keys[i]);
		if (v)
			cert_env_set(out, cert_judged_keys[i], v);
	}
	cert_env_sort(out);
}

static bool env_equal(const struct cert_env *a, const struct cert_env *b)
{
	char diff[8];
	return a->n == b->n && cert_env_diff(a, b, NULL, diff, sizeof diff) == 0;
}

enum ab_rc coverage_add(struct coverage *cv, const struct cert_logged *l, struct ab_diag *d)
{
	struct cert_env env;
	judged_env(&l->env, &env);
	for (int i = 0; i < cv->n; i++)
		if (cert_sig_equal(&cv->rows[i].sig, &l->sig) && env_equal(&cv->rows[i].env, &env)) {
			cv->rows[i].count = count_add(cv->rows[i].count, l->count);
			cv->rows[i].lines++;
			return AB_OK;
		}
	if (cv->n == cv->cap) {
		int cap = cv->cap ? 2 * cv->cap : 16;
		struct coverage_row *nr = realloc(cv->rows, (size_t)cap * sizeof *nr);
		if (!nr)
			return ab_fail(d, AB_ERR_NOMEM, "out of memory reading the signature log");
		cv->rows = nr;
		cv->cap = cap;
	}
	struct coverage_row *r = &cv->rows[cv->n++];
	memset(r, 0, sizeof *r);
	r->sig = l->sig;
	r->env = env;
	r->count = l->count;
	r->lines = 1;
	r->entry = r->proof = -1;
	return AB_OK;
}

/* Whether entry e proves row r: its signature, and no judged key both
 * name that differs; the differences in why otherwise. */
static bool proves(const struct cert_entry *e, const struct coverage_row *r, char *why, size_t len)
{
	struct cert_env mine, theirs;
	judged_env(&e->env, &mine);
	theirs = r->env;
	/* a key only one side names is no constraint */
	for (int i = 0; i < mine.n; i++)
		if (!cert_env_get(&theirs, mine.kv[i].key))
			cert_env_set(&theirs, mine.kv[i].key, mine.kv[i].value);
	for (int i = 0; i < r->env.n; i++)
		if (!cert_env_get(&mine, r->env.kv[i].key))
			cert_env_set(&mine, r->env.kv[i].key, r->env.kv[i].value);
	return cert_env_diff(&mine, &theirs, cert_judged_keys, why, len) == 0;
}

static void judge_row(struct coverage_row *r, const struct cert *c)
{
	char why[300];
	r->status = COVERAGE_MISSING;
	for (int i = 0; i < c->n_entries && r->status != COVERAGE_CERTIFIED; i++) {
		const struct cert_entry *e = &c->entries[i];
		if (!cert_sig_equal(&e->sig, &r->sig))
			continue;
		if (proves(e, r, why, sizeof why)) {
			r->status = COVERAGE_CERTIFIED;
			r->entry = i;
		} else if (r->status == COVERAGE_MISSING) {
			r->status = COVERAGE_OTHER_ENV;
			r->entry = i;
			snprintf(r->why, sizeof r->why, "%s", why);
		}
	}
	for (int i = 0; r->status != COVERAGE_CERTIFIED && i < c->n_entries && r->proof < 0; i++)
		if (!strcmp(c->entries[i].sig.site, r->sig.site))
			r->proof = i;
}

static int by_calls(const void *x, const void *y)
{
	const struct coverage_row *a = x, *b = y;
	return a->count != b->count ? (a->count < b->count ? 1 : -1) : 0;
}

void coverage_judge(struct coverage *cv, const struct cert *c)
{
	cv->calls = cv->calls_certified = 0;
	cv->n_certified = cv->n_other_env = cv->n_missing = 0;
	for (int i = 0; i < cv->n; i++) {
		struct coverage_row *r = &cv->rows[i];
		judge_row(r, c);
		cv->calls = count_add(cv->calls, r->count);
		cv->calls_certified = count_add(cv->calls_certified, r->status == COVERAGE_CERTIFIED ? r->count : 0);
		cv->n_certified += r->status == COVERAGE_CERTIFIED;
		cv->n_other_env += r->status == COVERAGE_OTHER_ENV;
		cv->n_missing += r->status == COVERAGE_MISSING;
	}
	/* an insertion sort: stable, so that ties keep the log's order */
	for (int i = 1; i < cv->n; i++)
		for (int k = i; k > 0 && by_calls(&cv->rows[k - 1], &cv->rows[k]) > 0; k--) {
			struct coverage_row t = cv->rows[k];
			cv->rows[k] = cv->rows[k - 1];
			cv->rows[k - 1] = t;
		}
}

void coverage_free(struct coverage *cv)
{
	free(cv->rows);
	memset(cv, 0, sizeof *cv);
}

const char *coverage_status_str(enum coverage_status s)
{
	return s == COVERAGE_CERTIFIED ? "certified" : s == COVERAGE_OTHER_ENV ? "other environment" : "missing";
}
