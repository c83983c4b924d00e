/*
 * case_data.c - a case's host buffers (case_data.h): their allocation by
 * the case's plan, and the eager chain's order of the tensors a slot is
 * compared on.
 */
#include "run/case_data.h"

#include <stdlib.h>
#include <string.h>

/* What malloc is asked for: a present tensor of 0 bytes still gets 1. */
static size_t alloc_size(size_t bytes)
{
	return bytes ? bytes : 1;
}

uint64_t case_data_bytes(const struct case_plan *p)
{
	uint64_t total = 0;
	for (int i = 0; i < p->n_tensors; i++) {
		const struct case_plan_tensor *pt = &p->tensor[i];
		total += pt->bytes ? alloc_size(pt->bytes) : 0;
		if (pt->bytes && pt->aux)
			total += alloc_size(pt->bytes); /* the first A slot's copy, if arm a writes it */
	}
	for (int o = 0; o < p->n_out; o++) {
		const struct case_plan_tensor *pt = &p->tensor[p->out_index[o]];
		total += 2 * (uint64_t)pt->ref_bytes + alloc_size(pt->bytes);
	}
	return total;
}

void case_data_free(struct case_data *cd)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++) {
		free(cd->host.t[i]);
		free(cd->first_a_aux[i]);
	}
	for (int o = 0; o < RESULTS_MAX_OUTPUTS; o++) {
		free(cd->ref[o]);
		free(cd->tol[o]);
		free(cd->first_a[o]);
	}
}

/* The first launch of s's eager chain that writes tensor i; past the
 * chain when none does; within one launch, statistics and scratch before
 * the outputs (a LayerNorm's mean and rstd come before what it writes
 * with them). */
static int chain_key(const struct site_desc *s, int i)
{
	int l = 0;
	while (l < s->n_eager_launches && !(s->eager_io[l].writes & SITE_IO(i)))
		l++;
	return 2 * l + (s->tensors[i].role == SITE_OUT);
}

/* cd->chain: the outputs and the stat and scratch tensors arm a writes,
 * by chain_key, then by table order (an insertion sort: a few tensors). */
static void chain_order(struct case_data *cd)
{
	const struct site_desc *s = cd->site;
	cd->n_chain = 0;
	for (int i = 0; i < s->n_tensors; i++) {
		const struct case_plan_tensor *pt = &cd->plan->tensor[i];
		if (!cd->host.t[i] || !(pt->t->role == SITE_OUT || (pt->aux && (cd->writes_a & SITE_IO(i)))))
			continue;
		int k = cd->n_chain++;
		for (; k > 0 && chain_key(s, cd->chain[k - 1]) > chain_key(s, i); k--)
			cd->chain[k] = cd->chain[k - 1];
		cd->chain[k] = i;
	}
}

enum ab_rc case_data_alloc(const struct case_plan *p, struct case_data *cd, struct ab_diag *d)
{
	cd->plan = p;
	cd->site = p->site;
	cd->host = p->args;
	cd->writes_a = p->arm[0].writes;
	for (int i = 0; i < p->n_tensors; i++) {
		const struct case_plan_tensor *pt = &p->tensor[i];
		if (!pt->present)
			continue;
		cd->bytes[i] = pt->bytes;
		if (!(cd->host.t[i] = malloc(alloc_size(pt->bytes))))
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate '%s' (%zu bytes)", pt->t->name, pt->bytes);
		if (pt->aux && (cd->writes_a & SITE_IO(i)) && !(cd->first_a_aux[i] = malloc(alloc_size(pt->bytes))))
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the first A slot's '%s' (%zu bytes)", pt->t->name,
				       pt->bytes);
	}
	cd->n_out = p->n_out;
	memcpy(cd->out_index, p->out_index, sizeof p->out_index);
	for (int o = 0; o < p->n_out; o++) {
		const struct case_plan_tensor *pt = &p->tensor[p->out_index[o]];
		cd->ref[o] = malloc(alloc_size(pt->ref_bytes));
		cd->tol[o] = malloc(alloc_size(pt->ref_bytes));
		cd->first_a[o] = malloc(alloc_size(pt->bytes));
		if (!cd->ref[o] || !cd->tol[o] || !cd->first_a[o])
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the float64 reference and the A outputs");
	}
	chain_order(cd);
	return AB_OK;
}
