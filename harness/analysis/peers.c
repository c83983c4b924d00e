/*
 * peers.c - a report's peer runs: which, and per case their summaries and
 * md5 agreement (peers.h).
 */
#include "analysis/peers.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

/* A run that may stand for its device beside run: finished, of run's
 * scenario, and a measurement (not quick, not the fake timer). */
static bool eligible(const struct results_run_summary *s, const struct results_run *run)
{
	return !strcmp(s->status, "ok") && !strcmp(s->scenario_name, run->scenario_name) && !s->quick &&
	       !s->fake_timer;
}

int peers_pick(const struct results_run_summary *runs, int n, const struct results_run *run, int64_t *ids, int max)
{
	int k = 0;
	for (int i = 0; i < n && k < max && !run->fake_timer; i++) {
		const struct results_run_summary *s = &runs[i];
		bool seen = !strcmp(s->device, run->device.name);
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(runs[j].device, s->device) && eligible(&runs[j], run);
		if (!seen && eligible(s, run))
			ids[k++] = s->id;
	}
	return k;
}

static void md5_of(const struct peers_table *t, int i)
{
	const struct summary_case *own = peers_cell(t, i, 0);
	struct peers_md5 *m = &t->md5[i];
	for (int s = 1; s < t->n_series; s++) {
		const struct summary_case *o = peers_cell(t, i, s);
		int compared = 0, differ = 0;
		if (!o)
			continue;
		compare_md5_agreement(own->c, o->c, &compared, &differ);
		m->compared += compared;
		m->differ += differ;
		m->runs++;
	}
}

/* Whether case i ran other arms in some peer than in the reported run. */
static bool arms_differ(const struct peers_table *t, int i)
{
	const struct summary_case *own = peers_cell(t, i, 0);
	for (int s = 1; s < t->n_series; s++) {
		const struct summary_case *o = peers_cell(t, i, s);
		if (o && (strcmp(own->arm_a, o->arm_a) || strcmp(own->arm_b, o->arm_b)))
			return true;
	}
	return false;
}

/* Arms first (runs of other arms are no per-GPU picture, whatever their
 * devices), then devices. */
static enum peers_axis axis_of(const struct peers_table *t)
{
	if (t->n_series < 2)
		return PEERS_ALONE;
	if (t->n_arms_differ)
		return PEERS_ARMS;
	for (int s = 0; s < t->n_series; s++)
		for (int k = 0; k < s; k++)
			if (!strcmp(t->series[s]->run->device.name, t->series[k]->run->device.name))
				return PEERS_RUNS;
	return PEERS_GPUS;
}

enum ab_rc peers_table_build(const struct summary_run *const *series, int n_series, struct peers_table *out,
			     struct ab_diag *d)
{
	const struct summary_run *own = series[0];
	memset(out, 0, sizeof *out);
	out->n_cases = own->n_cases;
	out->n_series = n_series;
	out->series = series;
	out->cell = calloc((size_t)own->n_cases * (size_t)n_series + 1, sizeof *out->cell);
	out->md5 = calloc((size_t)own->n_cases + 1, sizeof *out->md5);
	out->arms_differ = calloc((size_t)own->n_cases + 1, sizeof *out->arms_differ);
	if (!out->cell || !out->md5 || !out->arms_differ) {
		peers_table_free(out);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the report's peers");
	}
	for (int i = 0; i < own->n_cases; i++) {
		out->cell[(size_t)i * (size_t)n_series] = &own->cases[i];
		for (int s = 1; s < n_series; s++)
			out->cell[(size_t)i * (size_t)n_series + (size_t)s] = summary_find(series[s], own->cases[i].c->name);
		md5_of(out, i);
		out->arms_differ[i] = arms_differ(out, i);
		out->n_arms_differ += out->arms_differ[i];
	}
	out->axis = axis_of(out);
	return AB_OK;
}

void peers_table_free(struct peers_table *t)
{
	free(t->cell);
	free(t->md5);
	free(t->arms_differ);
	t->cell = NULL;
	t->md5 = NULL;
	t->arms_differ = NULL;
	t->n_cases = t->n_series = t->n_arms_differ = 0;
}

const struct summary_case *peers_cell(const struct peers_table *t, int i, int s)
{
	return t->cell[(size_t)i * (size_t)t->n_series + (size_t)s];
}
