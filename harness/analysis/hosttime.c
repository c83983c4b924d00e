/*
 * hosttime.c - an arm's host time per call against its GPU time, and the
 * launch-bound mark (hosttime.h says which GPU figure and why).
 */
#include "analysis/hosttime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

/* The arm's known host times over its slots, pooled in slot order. */
static enum ab_rc pool_host(const struct results_case *c, char arm, double **out, int *n, struct ab_diag *d)
{
	int total = 0;
	*out = NULL;
	*n = 0;
	for (int i = 0; i < c->n_slots; i++)
		total += c->slots[i].arm == arm && c->slots[i].host_ns ? c->slots[i].n_samples : 0;
	if (!total)
		return AB_OK;
	double *x = malloc((size_t)total * sizeof *x);
	if (!x)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory pooling host times of '%s'", c->name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		for (int k = 0; s->arm == arm && s->host_ns && k < s->n_samples; k++)
			if (!isnan(s->host_ns[k]))
				x[(*n)++] = s->host_ns[k];
	}
	*out = x;
	return AB_OK;
}

/* The GPU time of one call: the arm's median where the run hid the launch
 * gaps, its kernel time where it included them; none for a graph run. */
static void gpu_time(const struct results_run *r, double time_median_ns, double kernel_median_ns,
		     struct hosttime_arm *h)
{
	h->gpu_from = HOSTTIME_GPU_NONE;
	h->gpu_ns = NAN;
	if (!strcmp(r->timing, "graph"))
		return;
	if (!strcmp(r->launch_gaps, "hide") && time_median_ns > 0) {
		h->gpu_from = HOSTTIME_GPU_MEDIAN;
		h->gpu_ns = time_median_ns;
	} else if (!strcmp(r->launch_gaps, "include") && kernel_median_ns > 0) {
		h->gpu_from = HOSTTIME_GPU_KERNELS;
		h->gpu_ns = kernel_median_ns;
	}
}

enum ab_rc hosttime_arm(const struct results_run *r, const struct results_case *c, char arm, double time_median_ns,
			double kernel_median_ns, struct hosttime_arm *out, struct ab_diag *d)
{
	double *x;
	*out = (struct hosttime_arm){ .median_ns = NAN, .p90_ns = NAN, .gpu_ns = NAN };
	enum ab_rc rc = pool_host(c, arm, &x, &out->n, d);
	if (rc || !out->n) {
		free(x);
		return rc;
	}
	out->median_ns = stats_median(x, out->n);
	out->p90_ns = stats_quantile(x, out->n, 0.90);
	free(x);
	gpu_time(r, time_median_ns, kernel_median_ns, out);
	out->launch_bound = out->gpu_from != HOSTTIME_GPU_NONE && out->median_ns > out->gpu_ns;
	return AB_OK;
}

const char *hosttime_gpu_str(enum hosttime_gpu g)
{
	switch (g) {
	case HOSTTIME_GPU_MEDIAN:
		return "median";
	case HOSTTIME_GPU_KERNELS:
		return "kernels";
	default:
		return "";
	}
}
