/*
 * case_data.h - one case's host buffers, shared by the files that measure
 * and check it (run_case.c, slot_check.c; nothing outside run/ includes
 * it): a copy of every present tensor (inputs as the case made them,
 * outputs and the statistics and scratch tensors as read back), the
 * float64 reference and tolerance of each output, and the first A slot's
 * bytes of every output and of every statistic or scratch tensor arm a
 * writes, which every later slot is compared with.
 *
 * Its sizes are the case's plan's (config/case_plan.h): case_data_alloc
 * allocates at most what case_data_bytes (memory admission) counts.
 */
#ifndef AB_CASE_DATA_H
#define AB_CASE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/case_plan.h"
#include "kernels/common/site.h"
#include "run/inputcheck.h"

struct case_data {
	const struct case_plan *plan; /* the case's, which outlives it */
	const struct site_desc *site;
	struct site_args host;
	size_t bytes[SITE_MAX_TENSORS];     /* the plan's: 0 for a tensor the case lacks */
	int n_out;
	int out_index[RESULTS_MAX_OUTPUTS]; /* the plan's: the SITE_OUT tensors, in table order */
	double *ref[RESULTS_MAX_OUTPUTS], *tol[RESULTS_MAX_OUTPUTS];
	void *first_a[RESULTS_MAX_OUTPUTS];
	struct results_output first_a_out[RESULTS_MAX_OUTPUTS]; /* its md5 and reference check */
	bool have_first_a;
	struct inputcheck_digest made[SITE_MAX_TENSORS]; /* each input as the case made it */
	uint32_t writes_a;                  /* SITE_IO bits of what arm a writes (the plan's) */
	void *first_a_aux[SITE_MAX_TENSORS]; /* the first A slot's bytes of each stat and scratch tensor it writes */
	/* The outputs and the statistics and scratch tensors arm a writes, in
	 * the eager chain's order: by the first launch of the site's eager
	 * chain that writes each (site_desc.eager_io; a tensor no launch
	 * writes, as every tensor of a declared site, after them), within it
	 * statistics and scratch before the outputs, then by the tensor
	 * table. */
	int n_chain;
	int chain[SITE_MAX_TENSORS];
};

/* Allocates cd's buffers for the case planned p (nothing filled).
 * AB_ERR_NOMEM. */
enum ab_rc case_data_alloc(const struct case_plan *p, struct case_data *cd, struct ab_diag *d);
void case_data_free(struct case_data *cd);

/* What case_data_alloc may allocate for the case planned p, whatever arm
 * a writes. */
uint64_t case_data_bytes(const struct case_plan *p);

#endif
