/*
 * slot_check.c - a slot's outputs and intermediates against the first A
 * slot's (slot_check.h): read back, hashed, compared in the eager chain's
 * order, measured where they differ, held to the float64 reference.
 */
#include "run/slot_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"
#include "run/divergence.h"
#include "run/refcheck.h"

/* Whether output o of this slot has the first A slot's bytes: then its
 * md5 and reference check are that slot's (the same bytes give the same
 * digest and the same comparison), copied instead of computed again, and
 * no element differs. */
static bool output_as_first_a(const struct case_data *cd, int o, const void *buf, struct results_output *ro)
{
	if (!cd->have_first_a || memcmp(cd->first_a[o], buf, cd->bytes[cd->out_index[o]]))
		return false;
	*ro = cd->first_a_out[o]; /* the same tensor and bytes, 0 mismatches, bit-exact */
	return true;
}

/* "1,17,4096": a tensor's extents in this case. */
static void dims_text(const int64_t *shape, int rank, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < rank && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%lld", k ? "," : "", (long long)shape[k]);
}

/* Tensor ti as this slot left it (now) against the first A slot's
 * (first): when they differ, its divergence appended to sl->div at stage
 * stage, and *n_diff its elements that differ (0 when equal). */
static enum ab_rc add_divergence(const struct case_data *cd, int ti, const void *first, const void *now,
				 const double *ref, int stage, struct results_slot *sl, int64_t *n_diff, struct ab_diag *d)
{
	const struct case_plan_tensor *pt = &cd->plan->tensor[ti];
	struct divergence_input in = { pt->t->dtype, first, now, pt->elems, pt->rank, { 0 }, ref };
	struct results_divergence v;
	bool differs;
	memset(&v, 0, sizeof v);
	memcpy(in.shape, pt->shape, sizeof pt->shape);
	enum ab_rc rc = divergence_compare(&in, 0, &differs, &v, d);
	*n_diff = differs ? v.n_diff : 0;
	if (rc || !differs)
		return rc;
	struct results_divergence *grown = realloc(sl->div, (size_t)(sl->n_div + 1) * sizeof *grown);
	if (!grown) {
		free(v.map);
		return ab_fail(d, AB_ERR_NOMEM, "cannot keep the divergence of '%s'", pt->t->name);
	}
	snprintf(v.tensor, sizeof v.tensor, "%s", pt->t->name);
	snprintf(v.role, sizeof v.role, "%s", pt->role);
	snprintf(v.dtype, sizeof v.dtype, "%s", pt->dtype);
	v.stage = stage;
	snprintf(v.axes, sizeof v.axes, "%.*s", (int)sizeof v.axes - 1, pt->axes);
	dims_text(in.shape, in.rank, v.dims, sizeof v.dims);
	sl->div = grown;
	sl->div[sl->n_div++] = v;
	return AB_OK;
}

/* The index of tensor ti among the outputs, -1 when it is none. */
static int output_of(const struct case_data *cd, int ti)
{
	for (int o = 0; o < cd->n_out; o++)
		if (cd->out_index[o] == ti)
			return o;
	return -1;
}

/* Output o: its md5, bytes against the first A slot's, reference. */
static enum ab_rc check_output(struct case_data *cd, int o, bool is_first_a, int stage, struct results_slot *sl,
			       struct ab_diag *d)
{
	int ti = cd->out_index[o];
	struct results_output *ro = &sl->outputs[o];
	void *buf = cd->host.t[ti];
	int64_t n = cd->plan->tensor[ti].elems;
	enum ab_rc rc;
	snprintf(ro->tensor, sizeof ro->tensor, "%s", cd->site->tensors[ti].name);
	ro->bytes = (int64_t)cd->bytes[ti];
	if (output_as_first_a(cd, o, buf, ro))
		return AB_OK;
	if ((rc = digest_md5_hex(buf, cd->bytes[ti], ro->md5, d)))
		return rc;
	ro->mismatches = 0;
	if (is_first_a)
		memcpy(cd->first_a[o], buf, cd->bytes[ti]);
	else if ((rc = add_divergence(cd, ti, cd->first_a[o], buf, cd->site->reference ? cd->ref[o] : NULL, stage, sl,
				      &ro->mismatches, d)))
		return rc;
	ro->bit_exact = ro->mismatches == 0;
	if (cd->site->reference)
		refcheck_compare(buf, cd->ref[o], cd->tol[o], n, ro);
	else
		refcheck_none(ro);
	if (is_first_a)
		cd->first_a_out[o] = *ro;
	return AB_OK;
}

/* "name" appended to the comma-separated list when it fits. */
static void list_add(char *list, size_t len, const char *name)
{
	size_t used = strlen(list);
	if (used + strlen(name) + 2 <= len)
		snprintf(list + used, len - used, "%s%s", used ? "," : "", name);
}

enum ab_rc slot_check_tensors(const struct backend_ops *ops, struct backend *bk, struct case_data *cd,
			      uint32_t writes, struct results_slot *sl, struct ab_diag *d)
{
	bool is_first_a = sl->arm == 'a' && !cd->have_first_a;
	enum ab_rc rc = AB_OK;
	int stage = 0;
	sl->n_outputs = cd->n_out;
	sl->check.compared[0] = '\0';
	for (int k = 0; !rc && k < cd->n_chain; k++) {
		int ti = cd->chain[k], o = output_of(cd, ti);
		bool aux = cd->plan->tensor[ti].aux;
		if (aux && !is_first_a && !(writes & SITE_IO(ti)))
			continue; /* this slot's arm does not write it: nothing to compare */
		if ((rc = ops->read_tensor(bk, ti, cd->host.t[ti], cd->bytes[ti], d)))
			break;
		if (!is_first_a)
			list_add(sl->check.compared, sizeof sl->check.compared, cd->site->tensors[ti].name);
		if (!aux)
			rc = check_output(cd, o, is_first_a, stage, sl, d);
		else if (is_first_a)
			memcpy(cd->first_a_aux[ti], cd->host.t[ti], cd->bytes[ti]);
		else {
			int64_t n_diff;
			rc = add_divergence(cd, ti, cd->first_a_aux[ti], cd->host.t[ti], NULL, stage, sl, &n_diff, d);
		}
		stage += !is_first_a;
	}
	if (!rc && is_first_a)
		cd->have_first_a = true;
	return rc;
}
