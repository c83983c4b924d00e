/*
 * projection.h - the model-level projection checked against a measurement
 * (issue 22.3): a run of site cases (glm_1024: each site in isolation,
 * count x (A - B) per forward) projects a saving; a run of block-level
 * cases (glm_block.ini: one block x 30, one whole forward) measures it.
 * This puts the two side by side, says by how much the projection is off,
 * and splits both per kernel family (GEMM, attention, LayerNorm,
 * elementwise, fused, ... and the launch gaps) so that the table shows
 * where the difference goes: the same families, eager vs fused, in context
 * vs isolated.
 *
 * Every figure is per forward, from the medians: a family's part of an
 * arm is the kernels' share of the arm's window times its median
 * (summary_kernel.of_median_ns), and the launch gaps are the rest, so a
 * column sums to count x the arm's median exactly. Computed here once;
 * print/ only formats.
 */
#ifndef AB_PROJECTION_H
#define AB_PROJECTION_H

#include "analysis/summary.h"
#include "common/diag.h"

#define PROJECTION_GAPS "launch gaps and host"
#define PROJECTION_FAMILIES_MAX 24

/* One family's time per forward in each arm: in context (the measured
 * case), and in isolation (the site cases summed with their counts). */
struct projection_family {
	char name[32];                 /* results_kernel.family, or PROJECTION_GAPS */
	struct summary_share context;  /* a_ns, b_ns, saving_ns; 0 when absent */
	struct summary_share isolated;
};

/* One measured case against the projection. */
struct projection_measured {
	const struct summary_case *c;  /* in the measured run */
	struct summary_share per_forward; /* count x the case's medians */
	struct summary_share per_image;   /* x forwards_per_step x steps of the measured run; NAN
					   * without a [model] */
	double error;                  /* projected / measured saving - 1; NAN when either is unknown
					* or the measured saving is 0 */
	bool exact;                    /* its B outputs byte-equal to A1's (the md5 analogue) */
	int n_families;                /* rows, the gaps last */
	struct projection_family families[PROJECTION_FAMILIES_MAX];
	struct projection_family total; /* the rows summed: count x the medians */
	bool families_cut;             /* more families than rows: the rest are in "other" */
};

struct projection {
	const struct summary_run *sites;    /* the projecting run */
	const struct summary_run *measured; /* the measuring run */
	int n_site_cases;                   /* its cases with count > 0 */
	int n_site_unknown;                 /* of them, without both medians (projection NAN) */
	struct summary_share per_forward;   /* the projection: sum of count x (A, B, A - B) */
	struct summary_share per_image;     /* x the measured run's forwards_per_step x steps */
	int n_measured;
	struct projection_measured *m;      /* [n_measured]: the measured run's cases, in order */
};

/* The projection of sites against every case of measured (both summaries
 * must outlive out). AB_ERR_DATA when sites has no case with a count, or
 * measured has no case; AB_ERR_NOMEM. Free with projection_free. */
enum ab_rc projection_compute(const struct summary_run *measured, const struct summary_run *sites,
			      struct projection *out, struct ab_diag *d);
void projection_free(struct projection *p);

#endif
