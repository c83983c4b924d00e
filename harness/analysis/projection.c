/*
 * projection.c - a site run's projected saving against a block run's
 * measured one, split by kernel family (projection.h).
 */
#include "analysis/projection.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_RECORDS "no kernel records"

static struct summary_share share_times(const struct summary_share *s, double k)
{
	struct summary_share o = { s->a_ns * k, s->b_ns * k, s->saving_ns * k };
	return o;
}

/* The row of family name in m, added when new; the last row takes what
 * does not fit (families_cut). */
static struct projection_family *row_of(struct projection_measured *m, const char *name)
{
	for (int i = 0; i < m->n_families; i++)
		if (!strcmp(m->families[i].name, name))
			return &m->families[i];
	if (m->n_families == PROJECTION_FAMILIES_MAX) {
		m->families_cut = true;
		struct projection_family *last = &m->families[PROJECTION_FAMILIES_MAX - 1];
		snprintf(last->name, sizeof last->name, "other");
		return last;
	}
	struct projection_family *f = &m->families[m->n_families++];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", name);
	return f;
}

static void add_arm(struct summary_share *s, char arm, double ns)
{
	if (arm == 'a')
		s->a_ns += ns;
	else
		s->b_ns += ns;
}

/* count x one arm's median, split: each kernel's part of the median under
 * its family, the rest under the gaps; all of it under NO_RECORDS when the
 * arm has no kernel records (or no wall time to share them by). */
static void add_split(struct projection_measured *m, const struct summary_arm *ak, int count, bool isolated)
{
	double median = ak->time.median_ns;
	if (!(median > 0))
		return;
	if (!ak->n_kernels || !(ak->wall_ns > 0) || !isfinite(ak->gaps_of_median_ns)) {
		struct projection_family *f = row_of(m, NO_RECORDS);
		add_arm(isolated ? &f->isolated : &f->context, ak->arm, count * median);
		return;
	}
	for (int i = 0; i < ak->n_kernels; i++) {
		double part = ak->kfig[i].of_median_ns;
		if (!isfinite(part))
			continue;
		struct projection_family *f = row_of(m, ak->kernels[i].family[0] ? ak->kernels[i].family : "other");
		add_arm(isolated ? &f->isolated : &f->context, ak->arm, count * part);
	}
	struct projection_family *g = row_of(m, PROJECTION_GAPS);
	add_arm(isolated ? &g->isolated : &g->context, ak->arm, count * ak->gaps_of_median_ns);
}

/* Rows by eager time, in context and isolated together, the largest
 * first; the gaps last (they are the remainder, not a family). */
static double weight(const struct projection_family *f)
{
	return strcmp(f->name, PROJECTION_GAPS) ? f->context.a_ns + f->isolated.a_ns : -INFINITY;
}

static int by_weight(const void *x, const void *y)
{
	double a = weight(x), b = weight(y);
	return a < b ? 1 : a > b ? -1 : strcmp(((const struct projection_family *)x)->name,
					       ((const struct projection_family *)y)->name);
}

/* Rows sorted, savings filled, the total row summed. */
static void finish_rows(struct projection_measured *m)
{
	qsort(m->families, (size_t)m->n_families, sizeof m->families[0], by_weight);
	memset(&m->total, 0, sizeof m->total);
	snprintf(m->total.name, sizeof m->total.name, "total");
	for (int i = 0; i < m->n_families; i++) {
		struct projection_family *f = &m->families[i];
		f->context.saving_ns = f->context.a_ns - f->context.b_ns;
		f->isolated.saving_ns = f->isolated.a_ns - f->isolated.b_ns;
		add_arm(&m->total.context, 'a', f->context.a_ns);
		add_arm(&m->total.context, 'b', f->context.b_ns);
		add_arm(&m->total.isolated, 'a', f->isolated.a_ns);
		add_arm(&m->total.isolated, 'b', f->isolated.b_ns);
	}
	m->total.context.saving_ns = m->total.context.a_ns - m->total.context.b_ns;
	m->total.isolated.saving_ns = m->total.isolated.a_ns - m->total.isolated.b_ns;
}

/* The site cases' families, the same for every measured case: computed
 * once, then each measured case starts from a copy. */
static void isolated_split(const struct summary_run *sites, struct projection_measured *iso)
{
	memset(iso, 0, sizeof *iso);
	for (int i = 0; i < sites->n_cases; i++) {
		const struct summary_case *s = &sites->cases[i];
		if (s->c->count > 0) {
			add_split(iso, &s->a, s->c->count, true);
			add_split(iso, &s->b, s->c->count, true);
		}
	}
}

static void measure(struct projection *p, const struct summary_case *c, const struct projection_measured *iso,
		    struct projection_measured *m)
{
	*m = *iso;
	const struct results_run *r = p->measured->run;
	double per_image = p->measured->have_model ? (double)r->forwards_per_step * r->steps : NAN;
	m->c = c;
	m->per_forward = c->per_forward;
	m->per_image = share_times(&c->per_forward, per_image);
	m->exact = c->b_byte_equal;
	m->error = isfinite(p->per_forward.saving_ns) && isfinite(m->per_forward.saving_ns) &&
				   m->per_forward.saving_ns != 0 ?
			   p->per_forward.saving_ns / m->per_forward.saving_ns - 1 :
			   NAN;
	add_split(m, &c->a, c->c->count, false);
	add_split(m, &c->b, c->c->count, false);
	finish_rows(m);
}

enum ab_rc projection_compute(const struct summary_run *measured, const struct summary_run *sites,
			      struct projection *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	out->sites = sites;
	out->measured = measured;
	for (int i = 0; i < sites->n_cases; i++) {
		const struct summary_case *s = &sites->cases[i];
		if (s->c->count <= 0)
			continue;
		out->n_site_cases++;
		if (!isfinite(s->per_forward.saving_ns))
			out->n_site_unknown++;
		out->per_forward.a_ns += s->per_forward.a_ns;
		out->per_forward.b_ns += s->per_forward.b_ns;
		out->per_forward.saving_ns += s->per_forward.saving_ns;
	}
	if (!out->n_site_cases)
		return ab_fail(d, AB_ERR_DATA, "run %lld (%s) has no case with a count per forward: nothing to project",
			       (long long)sites->run->id, sites->run->scenario_name);
	if (!measured->n_cases)
		return ab_fail(d, AB_ERR_DATA, "run %lld (%s) has no case to hold the projection against",
			       (long long)measured->run->id, measured->run->scenario_name);
	const struct results_run *r = measured->run;
	out->per_image = share_times(&out->per_forward,
				     measured->have_model ? (double)r->forwards_per_step * r->steps : NAN);
	out->m = calloc((size_t)measured->n_cases, sizeof *out->m);
	if (!out->m)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory");
	out->n_measured = measured->n_cases;
	struct projection_measured iso;
	isolated_split(sites, &iso);
	for (int i = 0; i < measured->n_cases; i++)
		measure(out, &measured->cases[i], &iso, &out->m[i]);
	return AB_OK;
}

void projection_free(struct projection *p)
{
	free(p->m);
	memset(p, 0, sizeof *p);
}
