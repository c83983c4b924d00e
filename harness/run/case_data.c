/*
 * case_data.c - a case's host buffers (case_data.h): their sizes, their
 * allocation, and the eager chain's order of the tensors a slot is
 * compared on.
 */
#include "run/case_data.h"

#include <stdlib.h>
#include <string.h>

/* The host buffers of one case, in bytes. */
struct case_sizes {
	size_t tensor[SITE_MAX_TENSORS]; /* bytes of tensor i; 0 when absent */
	int n_out;
	int out_index[RESULTS_MAX_OUTPUTS]; /* the SITE_OUT tensors, in table order */
	size_t ref[RESULTS_MAX_OUTPUTS];    /* bytes of output o's reference (and of its tolerance) */
};

static bool is_aux(enum site_role r)
{
	return r == SITE_AUX || r == SITE_SCRATCH;
}

/* Sizes c's host buffers; AB_ERR_INTERNAL for a site with more outputs
 * than a slot records. */
static enum ab_rc case_sizes(const struct scenario_case *c, struct case_sizes *z, struct ab_diag *d)
{
	const struct site_desc *s = c->site;
	memset(z, 0, sizeof *z);
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		if (!site_tensor_present(t, c->affine))
			continue;
		z->tensor[i] = (size_t)site_tensor_bytes(t, &c->dims);
		if (t->role != SITE_OUT)
			continue;
		if (z->n_out == RESULTS_MAX_OUTPUTS)
			return ab_fail(d, AB_ERR_INTERNAL, "site '%s' has too many outputs", s->name);
		/* no reference, no room for one */
		z->ref[z->n_out] = s->reference ? (size_t)site_tensor_elems(t, &c->dims) * sizeof(double) : 0;
		z->out_index[z->n_out++] = i;
	}
	return AB_OK;
}

/* What malloc is asked for: a present tensor of 0 bytes still gets 1. */
static size_t alloc_size(size_t bytes)
{
	return bytes ? bytes : 1;
}

uint64_t case_data_bytes(const struct scenario_case *c)
{
	struct case_sizes z;
	uint64_t total = 0;
	if (case_sizes(c, &z, NULL))
		return UINT64_MAX;
	for (int i = 0; i < SITE_MAX_TENSORS; i++) {
		total += z.tensor[i] ? alloc_size(z.tensor[i]) : 0;
		if (i < c->site->n_tensors && z.tensor[i] && is_aux(c->site->tensors[i].role))
			total += alloc_size(z.tensor[i]); /* the first A slot's copy, if arm a writes it */
	}
	for (int o = 0; o < z.n_out; o++)
		total += 2 * (uint64_t)z.ref[o] + alloc_size(z.tensor[z.out_index[o]]);
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
		enum site_role r = s->tensors[i].role;
		if (!cd->host.t[i] || !(r == SITE_OUT || (is_aux(r) && (cd->writes_a & SITE_IO(i)))))
			continue;
		int k = cd->n_chain++;
		for (; k > 0 && chain_key(s, cd->chain[k - 1]) > chain_key(s, i); k--)
			cd->chain[k] = cd->chain[k - 1];
		cd->chain[k] = i;
	}
}

enum ab_rc case_data_alloc(const struct scenario_case *c, uint32_t writes_a, struct case_data *cd, struct ab_diag *d)
{
	const struct site_desc *s = c->site;
	struct case_sizes z;
	enum ab_rc rc = case_sizes(c, &z, d);
	if (rc)
		return rc;
	cd->site = s;
	cd->host.dims = c->dims;
	cd->host.eps = (float)c->eps;
	cd->host.affine = c->affine;
	cd->writes_a = writes_a;
	for (int i = 0; i < s->n_tensors; i++) {
		if (!site_tensor_present(&s->tensors[i], c->affine))
			continue;
		cd->bytes[i] = z.tensor[i];
		if (!(cd->host.t[i] = malloc(alloc_size(z.tensor[i]))))
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate '%s' (%zu bytes)", s->tensors[i].name, z.tensor[i]);
		if (is_aux(s->tensors[i].role) && (writes_a & SITE_IO(i)) &&
		    !(cd->first_a_aux[i] = malloc(alloc_size(z.tensor[i]))))
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the first A slot's '%s' (%zu bytes)",
				       s->tensors[i].name, z.tensor[i]);
	}
	cd->n_out = z.n_out;
	memcpy(cd->out_index, z.out_index, sizeof z.out_index);
	for (int o = 0; o < z.n_out; o++) {
		cd->ref[o] = malloc(alloc_size(z.ref[o]));
		cd->tol[o] = malloc(alloc_size(z.ref[o]));
		cd->first_a[o] = malloc(alloc_size(z.tensor[z.out_index[o]]));
		if (!cd->ref[o] || !cd->tol[o] || !cd->first_a[o])
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the float64 reference and the A outputs");
	}
	chain_order(cd);
	return AB_OK;
}
