/*
 * arms.c - a run's arms (arms.h), whatever their kind: every arm the
 * cases run is planned once through its kind's row (arm_kind.h). The only
 * kind named here is the built-in one, whose specs this file makes for
 * the variants a and b name (a user arm's spec is the scenario's).
 */
#include "arms/arms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms/arm_kind.h"

struct planned {
	const struct arm_kind *kind;
	const struct arm_spec *spec;
	void *arm; /* the kind's */
};

struct arms {
	const struct scenario *scn;
	int n, cap;
	struct planned *arm;
	int of[2];                    /* the planned arm of side a and of side b */
	struct arm_spec builtin[2];   /* the specs of the built-in variants a and b name */
};

/* The planned arm case c runs on side j (0: a, 1: b). The one place that
 * knows a side's arm is the scenario's for every case. */
static int planned_of(const struct arms *A, const struct scenario_case *c, int j)
{
	(void)c;
	return A->of[j];
}

static bool runs_case(const struct arms *A, int i, const struct scenario_case *c)
{
	return planned_of(A, c, 0) == i || planned_of(A, c, 1) == i;
}

/* What side j names: an [arm] section or shortcut of the scenario, or a
 * built-in variant as a spec of the built-in kind. */
static const struct arm_spec *side_spec(struct arms *A, int j)
{
	const struct scenario *s = A->scn;
	if (s->arm_ref[j] >= 0)
		return &s->arms[s->arm_ref[j]];
	struct arm_spec *b = &A->builtin[j];
	snprintf(b->kind, sizeof b->kind, "%s", arm_kind_builtin);
	snprintf(b->name, sizeof b->name, "%s", j ? s->arm_b : s->arm_a);
	snprintf(b->via, sizeof b->via, "%s", j ? "b" : "a");
	return b;
}

/* Every case that runs arm i: may it, and on this backend. */
static enum ab_rc plan_cases(struct arms *A, int i, const char *backend, struct ab_diag *d)
{
	const struct scenario *s = A->scn;
	const struct planned *p = &A->arm[i];
	enum ab_rc rc = AB_OK;
	for (int k = 0; !rc && p->kind->check_case && k < s->n_cases; k++)
		if (runs_case(A, i, &s->cases[k]))
			rc = p->kind->check_case(p->arm, &s->cases[k], d);
	for (int k = 0; !rc && k < s->n_cases; k++)
		if (runs_case(A, i, &s->cases[k]))
			rc = p->kind->runs_on(p->arm, &s->cases[k], backend, d);
	return rc;
}

/* The arm spec names, loaded once: its index in A->arm. */
static enum ab_rc plan_one(struct arms *A, const struct arm_spec *spec, int *index, struct ab_diag *d)
{
	for (int i = 0; i < A->n; i++)
		if (A->arm[i].spec == spec) {
			*index = i;
			return AB_OK;
		}
	if (A->n == A->cap) {
		int cap = A->cap ? 2 * A->cap : 2;
		struct planned *na = realloc(A->arm, (size_t)cap * sizeof *na);
		if (!na)
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the arms");
		A->arm = na;
		A->cap = cap;
	}
	struct planned *p = &A->arm[A->n];
	*p = (struct planned){ .kind = arm_kind_find(spec->kind), .spec = spec };
	enum ab_rc rc = p->kind->load(spec, A->scn, &p->arm, d); /* arms_check found the kind */
	if (rc)
		return rc;
	*index = A->n++;
	return AB_OK;
}

enum ab_rc arms_check(const struct scenario *s, struct ab_diag *d)
{
	for (int i = 0; i < s->n_arms; i++) {
		enum ab_rc rc = arm_kind_check(&s->arms[i], s, d);
		if (rc)
			return rc;
	}
	return AB_OK;
}

enum ab_rc arms_plan(const struct scenario *s, const char *backend, struct arms **out, struct ab_diag *d)
{
	struct arms *A = calloc(1, sizeof *A);
	*out = NULL;
	if (!A)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the arms");
	A->scn = s;
	A->of[0] = A->of[1] = -1;
	enum ab_rc rc = arms_check(s, d);
	for (int j = 0; !rc && j < 2; j++) {
		int n = A->n;
		rc = plan_one(A, side_spec(A, j), &A->of[j], d);
		if (!rc && A->n > n)
			rc = plan_cases(A, A->of[j], backend, d);
	}
	if (rc) {
		arms_free(A);
		return rc;
	}
	*out = A;
	return AB_OK;
}

enum ab_rc arms_bind(struct arms *A, const struct results_device *dev, struct ab_diag *d)
{
	for (int i = 0; A && i < A->n; i++) {
		const struct planned *p = &A->arm[i];
		enum ab_rc rc = p->kind->bind ? p->kind->bind(p->arm, dev, A->scn, d) : AB_OK;
		if (rc)
			return rc;
	}
	return AB_OK;
}

void arms_free(struct arms *A)
{
	if (!A)
		return;
	for (int i = 0; i < A->n; i++)
		A->arm[i].kind->free(A->arm[i].arm);
	free(A->arm);
	free(A);
}

void arms_begin_case(struct arms *A, const struct scenario_case *c)
{
	for (int i = 0; A && i < A->n; i++)
		if (A->arm[i].kind->begin_case && runs_case(A, i, c))
			A->arm[i].kind->begin_case(A->arm[i].arm, c);
}

const struct site_variant *arms_variant(const struct arms *A, const struct scenario_case *c, char arm)
{
	int i = A ? planned_of(A, c, arm == 'b') : -1;
	return i < 0 ? NULL : A->arm[i].kind->variant(A->arm[i].arm, c);
}

void arms_sources(const struct arms *A, struct results_run *r)
{
	r->n_arm_sources = 0;
	for (int j = 0; A && j < 2; j++) {
		const struct planned *p = A->of[j] >= 0 ? &A->arm[A->of[j]] : NULL;
		if (!p || !p->kind->source)
			continue;
		struct results_arm_source *src = &r->arm_sources[r->n_arm_sources++];
		memset(src, 0, sizeof *src);
		src->arm = j ? 'b' : 'a';
		snprintf(src->name, sizeof src->name, "%s", p->spec->name);
		p->kind->source(p->arm, src);
	}
}
