/*
 * test_projection.c - a site run's projection against a block run's
 * measurement (analysis/projection.h), on summaries built by hand so that
 * every figure below is worked out in the comments.
 *
 * Sites (per call, ns): s1 count 60, A 100 = LayerNorm 30 + elementwise 60
 * + gaps 10, B 20 = fused 18 + gaps 2; s2 count 30, A 50 = LayerNorm 45 +
 * gaps 5, B 10 = fused 9 + gaps 1; s3 count 0 (not projected). Projected
 * per forward: A 60 x 100 + 30 x 50 = 7500, B 60 x 20 + 30 x 10 = 1500,
 * saving 6000.
 *
 * Measured: block count 30, A 1000 = GEMM 500 + LayerNorm 150 +
 * elementwise 200 + gaps 150, B 850 = GEMM 500 + fused 200 + gaps 150. Per
 * forward A 30000, B 25500, saving 4500; the projection is off by 6000 /
 * 4500 - 1 = +33.3%. Per image (30 steps x 2 forwards) the measured saving
 * is 270000.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/projection.h"

#define MAXK 4

struct arm_spec {
	double median;
	int n;
	const char *family[MAXK];
	double part[MAXK];
	double gaps;
};

struct built {
	struct results_case rc[4];
	struct summary_case sc[4];
	struct results_kernel k[4][2][MAXK];
	struct summary_kernel kf[4][2][MAXK];
	struct results_run run;
	struct summary_run sum;
};

static void arm_of(struct built *b, int i, int which, const struct arm_spec *a)
{
	struct summary_arm *ak = which ? &b->sc[i].b : &b->sc[i].a;
	ak->arm = which ? 'b' : 'a';
	ak->time.median_ns = a->median;
	ak->time.n = a->median > 0 ? 10 : 0;
	ak->n_kernels = a->n;
	ak->kernels = b->k[i][which];
	ak->kfig = b->kf[i][which];
	ak->wall_ns = a->median > 0 ? 10 * a->median : 0;
	ak->gaps_of_median_ns = a->n ? a->gaps : NAN;
	for (int k = 0; k < a->n; k++) {
		snprintf(b->k[i][which][k].family, sizeof b->k[i][which][k].family, "%s", a->family[k]);
		b->kf[i][which][k].of_median_ns = a->part[k];
	}
}

static void case_of(struct built *b, int i, const char *name, int count, const struct arm_spec *a,
		    const struct arm_spec *bb)
{
	snprintf(b->rc[i].name, sizeof b->rc[i].name, "%s", name);
	b->rc[i].count = count;
	b->sc[i].c = &b->rc[i];
	b->sc[i].b_byte_equal = true;
	arm_of(b, i, 0, a);
	arm_of(b, i, 1, bb);
	b->sc[i].per_forward.a_ns = count * a->median;
	b->sc[i].per_forward.b_ns = count * bb->median;
	b->sc[i].per_forward.saving_ns = b->sc[i].per_forward.a_ns - b->sc[i].per_forward.b_ns;
}

static void run_of(struct built *b, int64_t id, const char *scenario, int n)
{
	b->run.id = id;
	snprintf(b->run.scenario_name, sizeof b->run.scenario_name, "%s", scenario);
	b->run.steps = 30;
	b->run.forwards_per_step = 2;
	b->sum.run = &b->run;
	b->sum.n_cases = n;
	b->sum.cases = b->sc;
	b->sum.have_model = true;
}

static struct built *sites(void)
{
	struct built *b = calloc(1, sizeof *b);
	assert_non_null(b);
	const struct arm_spec s1a = { 100, 2, { "LayerNorm", "elementwise" }, { 30, 60 }, 10 };
	const struct arm_spec s1b = { 20, 1, { "fused" }, { 18 }, 2 };
	const struct arm_spec s2a = { 50, 1, { "LayerNorm" }, { 45 }, 5 };
	const struct arm_spec s2b = { 10, 1, { "fused" }, { 9 }, 1 };
	case_of(b, 0, "s1", 60, &s1a, &s1b);
	case_of(b, 1, "s2", 30, &s2a, &s2b);
	case_of(b, 2, "s3", 0, &s2a, &s2b);
	run_of(b, 1, "glm_1024", 3);
	return b;
}

static struct built *block(void)
{
	struct built *b = calloc(1, sizeof *b);
	assert_non_null(b);
	const struct arm_spec a = { 1000, 3, { "GEMM", "LayerNorm", "elementwise" }, { 500, 150, 200 }, 150 };
	const struct arm_spec bb = { 850, 2, { "GEMM", "fused" }, { 500, 200 }, 150 };
	case_of(b, 0, "glm_block", 30, &a, &bb);
	run_of(b, 2, "glm_block", 1);
	return b;
}

static const struct projection_family *row(const struct projection_measured *m, int i, const char *name)
{
	assert_true(i < m->n_families);
	assert_string_equal(m->families[i].name, name);
	return &m->families[i];
}

static void share_is(const struct summary_share *s, double a, double b)
{
	assert_true(fabs(s->a_ns - a) < 1e-9 && fabs(s->b_ns - b) < 1e-9);
	assert_true(fabs(s->saving_ns - (a - b)) < 1e-9);
}

static void test_projection_against_block(void **state)
{
	(void)state;
	struct built *S = sites(), *B = block();
	struct projection p;
	struct ab_diag d;
	assert_int_equal(projection_compute(&B->sum, &S->sum, &p, &d), AB_OK);
	assert_int_equal(p.n_site_cases, 2);
	assert_int_equal(p.n_site_unknown, 0);
	share_is(&p.per_forward, 7500, 1500);
	share_is(&p.per_image, 450000, 90000);
	assert_int_equal(p.n_measured, 1);
	const struct projection_measured *m = &p.m[0];
	share_is(&m->per_forward, 30000, 25500);
	assert_true(fabs(m->per_image.saving_ns - 270000) < 1e-9);
	assert_true(fabs(m->error - (6000.0 / 4500 - 1)) < 1e-12);
	assert_true(m->exact);
	/* by eager time in context and isolated together, the gaps last */
	assert_int_equal(m->n_families, 5);
	const struct projection_family *f = row(m, 0, "GEMM");
	share_is(&f->context, 15000, 15000);
	share_is(&f->isolated, 0, 0);
	f = row(m, 1, "elementwise");
	share_is(&f->context, 6000, 0);
	share_is(&f->isolated, 3600, 0);
	f = row(m, 2, "LayerNorm");
	share_is(&f->context, 4500, 0);
	share_is(&f->isolated, 3150, 0);
	f = row(m, 3, "fused");
	share_is(&f->context, 0, 6000);
	share_is(&f->isolated, 0, 1350);
	f = row(m, 4, PROJECTION_GAPS);
	share_is(&f->context, 4500, 4500);
	share_is(&f->isolated, 750, 150);
	/* each column sums to count x the median */
	double ca = 0, ib = 0;
	for (int i = 0; i < m->n_families; i++) {
		ca += m->families[i].context.a_ns;
		ib += m->families[i].isolated.b_ns;
	}
	assert_true(fabs(ca - 30000) < 1e-9 && fabs(ib - 1500) < 1e-9);
	projection_free(&p);
	free(S);
	free(B);
}

/* An arm without kernel records is counted whole under "no kernel
 * records"; a measured saving of 0 has no error; without a [model] there
 * is no per-image figure. */
static void test_unknowns(void **state)
{
	(void)state;
	struct built *S = sites(), *B = block();
	struct projection p;
	struct ab_diag d;
	B->sc[0].b = B->sc[0].a;
	B->sc[0].b.arm = 'b';
	B->sc[0].b.n_kernels = 0;
	B->sc[0].per_forward.b_ns = B->sc[0].per_forward.a_ns;
	B->sc[0].per_forward.saving_ns = 0;
	B->sum.have_model = false;
	assert_int_equal(projection_compute(&B->sum, &S->sum, &p, &d), AB_OK);
	const struct projection_measured *m = &p.m[0];
	assert_true(isnan(m->error));
	assert_true(isnan(m->per_image.saving_ns) && isnan(p.per_image.saving_ns));
	bool seen = false;
	for (int i = 0; i < m->n_families; i++)
		if (!strcmp(m->families[i].name, "no kernel records")) {
			share_is(&m->families[i].context, 0, 30000);
			seen = true;
		}
	assert_true(seen);
	projection_free(&p);
	free(S);
	free(B);
}

/* Nothing to project, or nothing to hold it against: AB_ERR_DATA naming
 * the run. */
static void test_errors(void **state)
{
	(void)state;
	struct built *S = sites(), *B = block();
	struct projection p;
	struct ab_diag d;
	for (int i = 0; i < 3; i++)
		S->rc[i].count = 0;
	assert_int_equal(projection_compute(&B->sum, &S->sum, &p, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "run 1 (glm_1024) has no case with a count"));
	projection_free(&p);
	S->rc[0].count = 60;
	B->sum.n_cases = 0;
	assert_int_equal(projection_compute(&B->sum, &S->sum, &p, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "run 2 (glm_block) has no case"));
	projection_free(&p);
	free(S);
	free(B);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_projection_against_block),
		cmocka_unit_test(test_unknowns),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
