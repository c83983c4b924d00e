/*
 * case_plan.c - a case resolved once (case_plan.h): the one place between
 * a scenario case and kernels/common/site.c's lookups for it.
 */
#include "config/case_plan.h"

#include <stdio.h>
#include <string.h>

/* The generator input t (tensor i of c's site) is drawn by: its own
 * input.NAME, else a built-in parameter's fixed distribution (NONE), else
 * the case's. */
static struct scenario_gen input_gen(const struct scenario_case *c, const struct site_tensor *t, int i)
{
	if (c->gen[i].kind != SCENARIO_GEN_NONE)
		return c->gen[i];
	if (t->role == SITE_IN_PARAM)
		return (struct scenario_gen){ .kind = SCENARIO_GEN_NONE };
	return scenario_input_gen(&c->input);
}

static void plan_tensor(const struct scenario_case *c, int i, struct case_plan_tensor *pt)
{
	const struct site_tensor *t = &c->site->tensors[i];
	pt->t = t;
	pt->present = site_tensor_present(t, c->affine);
	pt->input = site_role_is_input(t->role);
	pt->aux = t->role == SITE_AUX || t->role == SITE_SCRATCH;
	pt->rank = site_tensor_shape(t, &c->dims, pt->shape);
	pt->elems = site_tensor_elems(t, &c->dims);
	pt->row_len = pt->rank ? pt->shape[pt->rank - 1] : 1;
	pt->bytes = pt->present ? (size_t)site_tensor_bytes(t, &c->dims) : 0;
	pt->dtype = site_dtype_name(t->dtype);
	pt->role = site_role_name(t->role);
	site_tensor_axes(c->site, t, pt->axes, sizeof pt->axes);
	if (pt->input)
		pt->gen = input_gen(c, t, i);
	if (t->role == SITE_OUT && pt->present && c->site->reference)
		pt->ref_bytes = (size_t)pt->elems * sizeof(double);
}

/* The index of c's swept axis among its site's axes, -1 when none. */
static int swept_dim(const struct scenario_case *c)
{
	char name[SITE_AXIS_NAME_MAX + 8];
	for (int k = 0; c->axis[0] && k < c->site->n_axes; k++) {
		site_axis_name(c->site, k, name, sizeof name);
		if (!strcmp(name, c->axis))
			return k;
	}
	return -1;
}

enum ab_rc case_plan_build(const struct scenario_case *c, struct case_plan *p, struct ab_diag *d)
{
	const struct site_desc *site = c->site;
	memset(p, 0, sizeof *p);
	p->c = c;
	p->site = site;
	p->args = (struct site_args){ .dims = c->dims, .eps = (float)c->eps, .affine = c->affine };
	p->n_tensors = site->n_tensors;
	for (int i = 0; i < site->n_tensors; i++) {
		struct case_plan_tensor *pt = &p->tensor[i];
		plan_tensor(c, i, pt);
		p->n_in += pt->present && pt->input;
		if (pt->t->role != SITE_OUT)
			continue;
		if (!p->dtype)
			p->dtype = pt->dtype; /* the first output's, present or not */
		if (!pt->present)
			continue;
		if (p->n_out == RESULTS_MAX_OUTPUTS)
			return ab_fail(d, AB_ERR_INTERNAL, "site '%s' has too many outputs", site->name);
		p->out_index[p->n_out++] = i;
	}
	site_format_shape(&c->shape, p->shape, sizeof p->shape);
	scenario_case_describe_input(c, p->input, sizeof p->input);
	p->bytes_min = site_min_bytes(site, &c->dims, c->affine);
	p->swept_dim = swept_dim(c);
	p->stream = c->invariance == SCENARIO_INVARIANCE_ROWS && c->sweep[0] ? c->sweep : c->name;
	p->arm[0].name = c->arm_a;
	p->arm[1].name = c->arm_b;
	return AB_OK;
}
