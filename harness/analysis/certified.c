/*
 * certified.c - a run's certifiable cases and their environments
 * (certified.h).
 */
#include "analysis/certified.h"

#include <stdlib.h>
#include <string.h>

static bool same_env(const struct cert_env *a, const struct cert_env *b)
{
	char diff[8];
	return cert_env_diff(a, b, NULL, diff, sizeof diff) == 0;
}

/* The keys every exact case has with one value into common, the rest
 * into some. */
static void split_envs(struct certified_scope *s)
{
	const struct cert_env *first = NULL;
	for (int i = 0; i < s->n; i++)
		if (s->cases[i].exact && !first)
			first = &s->cases[i].env;
	for (int k = 0; first && k < first->n; k++) {
		bool everywhere = true;
		for (int i = 0; i < s->n && everywhere; i++) {
			const char *v = cert_env_get(&s->cases[i].env, first->kv[k].key);
			everywhere = !s->cases[i].exact || (v && !strcmp(v, first->kv[k].value));
		}
		if (everywhere)
			cert_env_set(&s->common, first->kv[k].key, first->kv[k].value);
	}
	for (int i = 0; i < s->n; i++)
		for (int k = 0; s->cases[i].exact && k < s->cases[i].env.n; k++) {
			const struct cert_kv *kv = &s->cases[i].env.kv[k];
			const char *had = cert_env_get(&s->some, kv->key);
			if (cert_env_get(&s->common, kv->key))
				continue;
			if (!had)
				cert_env_set(&s->some, kv->key, kv->value);
			else if (strcmp(had, kv->value))
				s->some_differ = true;
		}
	cert_env_sort(&s->common);
	cert_env_sort(&s->some);
}

/* Whether two exact cases of run r share a row: all but the shape. */
static bool same_row(const struct results_run *r, const struct certified_case *x, const struct certified_case *y)
{
	const struct results_case *a = x->c, *b = y->c;
	const char *aa = a->arm_a[0] ? a->arm_a : r->arm_a, *ab = a->arm_b[0] ? a->arm_b : r->arm_b;
	const char *ba = b->arm_a[0] ? b->arm_a : r->arm_a, *bb = b->arm_b[0] ? b->arm_b : r->arm_b;
	return !strcmp(a->site, b->site) && !strcmp(a->dtype, b->dtype) && a->eps == b->eps && a->affine == b->affine &&
	       !strcmp(a->input, b->input) && !strcmp(aa, ba) && !strcmp(ab, bb) && same_env(&x->env, &y->env);
}

/* Adds shape to the group's list unless it is there; "..." once full. */
static void add_shape(struct certified_group *g, const char *shape)
{
	size_t used = strlen(g->shapes), n = strlen(shape);
	for (const char *p = g->shapes; (p = strstr(p, shape)); p += n)
		if ((p == g->shapes || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
			return;
	if (used + n + 6 < sizeof g->shapes)
		snprintf(g->shapes + used, sizeof g->shapes - used, "%s%s", used ? ", " : "", shape);
	else if (!strstr(g->shapes, "..."))
		snprintf(g->shapes + used, sizeof g->shapes - used, "%s...", used ? ", " : "");
}

static void group(const struct results_run *r, struct certified_scope *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct certified_case *k = &s->cases[i];
		int g = 0;
		if (!k->exact)
			continue;
		while (g < s->n_groups && !same_row(r, s->groups[g].k, k))
			g++;
		if (g == s->n_groups)
			s->groups[s->n_groups++] = (struct certified_group){ .k = k };
		s->groups[g].n++;
		add_shape(&s->groups[g], k->c->shape);
	}
}

enum ab_rc certified_scope(const struct results_run *r, struct certified_scope *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	out->cases = calloc((size_t)(r->n_cases ? r->n_cases : 1), sizeof *out->cases);
	out->groups = calloc((size_t)(r->n_cases ? r->n_cases : 1), sizeof *out->groups);
	if (!out->cases || !out->groups) {
		certified_scope_free(out);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory judging what the run certifies");
	}
	out->n = r->n_cases;
	for (int i = 0; i < r->n_cases; i++) {
		struct certified_case *k = &out->cases[i];
		k->c = &r->cases[i];
		k->exact = cert_case_exact(k->c, k->why, sizeof k->why);
		cert_env_of_case(r, k->c, &k->env);
		cert_eps_text(k->c->eps, k->eps, sizeof k->eps);
		out->n_exact += k->exact;
	}
	split_envs(out);
	group(r, out);
	return AB_OK;
}

void certified_scope_free(struct certified_scope *s)
{
	free(s->cases);
	free(s->groups);
	memset(s, 0, sizeof *s);
}
