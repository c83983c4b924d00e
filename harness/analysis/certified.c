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

static void note_env(struct certified_scope *s, const struct cert_env *e)
{
	for (int i = 0; i < s->n_envs; i++)
		if (same_env(&s->envs[i], e))
			return;
	if (s->n_envs == (int)(sizeof s->envs / sizeof s->envs[0]))
		s->more_envs = true;
	else
		s->envs[s->n_envs++] = *e;
}

enum ab_rc certified_scope(const struct results_run *r, struct certified_scope *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	out->cases = calloc((size_t)(r->n_cases ? r->n_cases : 1), sizeof *out->cases);
	if (!out->cases)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory judging what the run certifies");
	out->n = r->n_cases;
	for (int i = 0; i < r->n_cases; i++) {
		struct certified_case *k = &out->cases[i];
		k->c = &r->cases[i];
		k->exact = cert_case_exact(k->c, k->why, sizeof k->why);
		cert_env_of_case(r, k->c, &k->env);
		cert_eps_text(k->c->eps, k->eps, sizeof k->eps);
		if (k->exact) {
			out->n_exact++;
			note_env(out, &k->env);
		}
	}
	return AB_OK;
}

void certified_scope_free(struct certified_scope *s)
{
	free(s->cases);
	memset(s, 0, sizeof *s);
}
