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
	int (*of)[2];                 /* per case of scn: the planned arm of side a and of side b */
	int n_builtin;
	struct arm_spec **builtin;    /* the specs of the built-in variants the cases name, one per name and side */
};

/* The index of case c in its scenario (arms_plan_case is handed the
 * scenario's own cases). */
static int case_index(const struct arms *A, const struct scenario_case *c)
{
	const struct scenario *s = A->scn;
	if (c >= s->cases && c < s->cases + s->n_cases)
		return (int)(c - s->cases);
	for (int k = 0; k < s->n_cases; k++)
		if (strcmp(s->cases[k].name, c->name) == 0)
			return k;
	return -1;
}

/* The planned arm case c runs on side j (0: a, 1: b): the one place that
 * knows which arm a case runs. */
static int planned_of(const struct arms *A, const struct scenario_case *c, int j)
{
	int k = case_index(A, c);
	return k < 0 ? -1 : A->of[k][j];
}

static bool runs_case(const struct arms *A, int i, const struct scenario_case *c)
{
	return planned_of(A, c, 0) == i || planned_of(A, c, 1) == i;
}

/* The spec of the built-in variant name on side j, made once. */
static const struct arm_spec *builtin_spec(struct arms *A, const char *name, int j, struct ab_diag *d)
{
	const char *via = j ? "b" : "a";
	for (int i = 0; i < A->n_builtin; i++)
		if (strcmp(A->builtin[i]->name, name) == 0 && strcmp(A->builtin[i]->via, via) == 0)
			return A->builtin[i];
	struct arm_spec **nb = realloc(A->builtin, (size_t)(A->n_builtin + 1) * sizeof *nb);
	struct arm_spec *b = nb ? calloc(1, sizeof *b) : NULL;
	if (nb)
		A->builtin = nb;
	if (!b) {
		ab_fail(d, AB_ERR_NOMEM, "cannot allocate the arms");
		return NULL;
	}
	snprintf(b->kind, sizeof b->kind, "%s", arm_kind_builtin);
	snprintf(b->name, sizeof b->name, "%s", name);
	snprintf(b->via, sizeof b->via, "%s", via);
	return A->builtin[A->n_builtin++] = b;
}

/* What case c names on side j: an [arm] section or shortcut of the
 * scenario, or a built-in variant as a spec of the built-in kind. */
static const struct arm_spec *side_spec(struct arms *A, const struct scenario_case *c, int j, struct ab_diag *d)
{
	if (c->arm_ref[j] >= 0)
		return &A->scn->arms[c->arm_ref[j]];
	return builtin_spec(A, j ? c->arm_b : c->arm_a, j, d);
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

/* Every case's two arms loaded (each arm once), in case order; then each
 * new arm checked against the cases that run it. */
static enum ab_rc plan_all(struct arms *A, const char *backend, struct ab_diag *d)
{
	const struct scenario *s = A->scn;
	int planned = 0;
	for (int k = 0; k < s->n_cases; k++)
		for (int j = 0; j < 2; j++) {
			const struct arm_spec *spec = side_spec(A, &s->cases[k], j, d);
			enum ab_rc rc = spec ? plan_one(A, spec, &A->of[k][j], d) : AB_ERR_NOMEM;
			if (rc)
				return rc;
		}
	for (; planned < A->n; planned++) {
		enum ab_rc rc = plan_cases(A, planned, backend, d);
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
	A->of = calloc((size_t)(s->n_cases ? s->n_cases : 1), sizeof *A->of);
	enum ab_rc rc = A->of ? arms_check(s, d) : ab_fail(d, AB_ERR_NOMEM, "cannot allocate the arms");
	if (!rc)
		rc = plan_all(A, backend, d);
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
	for (int i = 0; i < A->n_builtin; i++)
		free(A->builtin[i]);
	free(A->builtin);
	free(A->of);
	free(A->arm);
	free(A);
}

void arms_begin_case(struct arms *A, const struct case_plan *p)
{
	for (int i = 0; A && i < A->n; i++)
		if (A->arm[i].kind->begin_case && runs_case(A, i, p->c))
			A->arm[i].kind->begin_case(A->arm[i].arm, p);
}

/* The planned arm case c runs on side j (0: a, 1: b); -1 without a plan. */
static int side_arm(const struct arms *A, const struct scenario_case *c, int j)
{
	return A ? planned_of(A, c, j) : -1;
}

/* The variant case c runs on side j: its kind's; NULL without a plan. */
static const struct site_variant *side_variant(const struct arms *A, const struct scenario_case *c, int j)
{
	int i = side_arm(A, c, j);
	return i < 0 ? NULL : A->arm[i].kind->variant(A->arm[i].arm, c);
}

/* The bytes credited to case c's side j: its [arm]'s bytes = expression
 * when it has one, the eager chain's for a built-in eager, else the
 * site's minimum (site_variant_bytes). */
static int64_t side_bytes(const struct arms *A, const struct scenario_case *c, int j)
{
	int i = side_arm(A, c, j);
	const struct arm_spec *spec = i < 0 ? NULL : A->arm[i].spec;
	const char *name = j ? c->arm_b : c->arm_a;
	int64_t v = 0;
	char err[128];
	if (spec && spec->bytes_expr && expr_eval(spec->bytes_expr, &c->dims, &v, err, sizeof err) && v > 0)
		return v;
	return site_variant_bytes(c->site, spec && spec->kind[0] && strcmp(spec->kind, arm_kind_builtin) ? "" : name,
				  &c->dims, c->affine);
}

/* The tensors case c's side j writes (SITE_IO bits): outputs, and the
 * stat and scratch tensors its [arm]'s writes = names (a built-in eager:
 * its chain's). */
static uint32_t side_writes(const struct arms *A, const struct scenario_case *c, int j)
{
	int i = side_arm(A, c, j);
	const struct arm_spec *spec = i < 0 ? NULL : A->arm[i].spec;
	if (!spec || !strcmp(spec->kind, arm_kind_builtin))
		return site_variant_writes(c->site, j ? c->arm_b : c->arm_a);
	return site_variant_writes(c->site, "") | spec->writes_mask;
}

void arms_plan_case(const struct arms *A, struct case_plan *p)
{
	const struct scenario_case *c = p->c;
	for (int j = 0; j < 2; j++) {
		struct case_plan_arm *pa = &p->arm[j];
		pa->variant = side_variant(A, c, j);
		if (!pa->variant)
			pa->variant = site_find_variant(c->site, pa->name);
		pa->bytes = side_bytes(A, c, j);
		pa->writes = side_writes(A, c, j);
	}
}

/* By side, then name: the order the store reads them back in. */
static int source_order(const void *x, const void *y)
{
	const struct results_arm_source *a = x, *b = y;
	return a->arm != b->arm ? a->arm - b->arm : strcmp(a->name, b->name);
}

/* Each user arm once per side it runs on. */
void arms_sources(const struct arms *A, struct results_run *r)
{
	r->n_arm_sources = 0;
	for (int k = 0; A && k < A->scn->n_cases; k++)
		for (int j = 0; j < 2; j++) {
			const struct planned *p = &A->arm[A->of[k][j]];
			bool seen = false;
			if (!p->kind->source)
				continue;
			for (int q = 0; q < r->n_arm_sources && !seen; q++)
				seen = r->arm_sources[q].arm == (j ? 'b' : 'a') && !strcmp(r->arm_sources[q].name, p->spec->name);
			if (seen || r->n_arm_sources == RESULTS_MAX_ARM_SOURCES)
				continue;
			struct results_arm_source *src = &r->arm_sources[r->n_arm_sources++];
			memset(src, 0, sizeof *src);
			src->arm = j ? 'b' : 'a';
			snprintf(src->name, sizeof src->name, "%s", p->spec->name);
			snprintf(src->kind, sizeof src->kind, "%s", p->kind->name);
			p->kind->source(p->arm, src);
		}
	qsort(r->arm_sources, (size_t)r->n_arm_sources, sizeof r->arm_sources[0], source_order);
}
