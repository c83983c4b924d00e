/*
 * hosttime.h - an arm's host time per call beside its GPU time, and the
 * launch-bound mark (issue 28).
 *
 * The CUDA backend times the arm's call on the host in every sample
 * (backend.h, bk_sample.host_ns: entered to returned), apart from the GPU
 * time the events measure. A Python arm can spend more host time in a call
 * (40 us of torch dispatch or a Triton launcher) than the GPU time it
 * queues (22 us of a fused kernel): a model calling it eagerly waits on the
 * host, whatever the kernel's speed. Such an arm is marked launch-bound
 * here, with both figures, so that no printer reads it as the kernel being
 * slower.
 *
 * An arm's GPU time per call, the figure the host time is held against:
 *   launch_gaps = hide (the default): the arm's median time, which the
 *     events measured with every launch queued before the GPU started;
 *   launch_gaps = include: its median CUPTI kernel time (the events there
 *     include the very host gaps in question); unknown without CUPTI;
 *   timing = graph: no call is timed, so neither figure is known.
 * The mark needs both: host median > GPU time. The CPU backend measures no
 * host time (its call is the work): no figure, no mark.
 *
 * Pure functions of a stored run; summary.c calls hosttime_arm for each
 * arm of each case (summary_arm.host, summary_case.launch_bound).
 */
#ifndef AB_HOSTTIME_H
#define AB_HOSTTIME_H

#include <stdbool.h>

#include "common/diag.h"
#include "common/results.h"

/* Which figure an arm's GPU time is (see above). */
enum hosttime_gpu {
	HOSTTIME_GPU_NONE,    /* unknown: no mark */
	HOSTTIME_GPU_MEDIAN,  /* the arm's median time (launch_gaps = hide) */
	HOSTTIME_GPU_KERNELS, /* its median CUPTI kernel time (launch_gaps = include) */
};

/* One arm of a case, its slots pooled. */
struct hosttime_arm {
	int n;                  /* samples with a host time, over the arm's slots */
	double median_ns;       /* their median; NAN when n == 0 */
	double p90_ns;          /* their 90th percentile (type 7); NAN when n == 0 */
	double gpu_ns;          /* the GPU time of one call; NAN when unknown */
	enum hosttime_gpu gpu_from;
	bool launch_bound;      /* median_ns > gpu_ns: its caller waits on the host */
};

/* The host time of arm ('a' or 'b') of case c in run r, pooled over its
 * slots, held against its GPU time: time_median_ns and kernel_median_ns
 * are the arm's median time and median kernel time (summary_arm's).
 * AB_ERR_NOMEM when out of memory. */
enum ab_rc hosttime_arm(const struct results_run *r, const struct results_case *c, char arm, double time_median_ns,
			double kernel_median_ns, struct hosttime_arm *out, struct ab_diag *d);

/* "median" or "kernels" (what gpu_ns is), "" for none: for printers. */
const char *hosttime_gpu_str(enum hosttime_gpu g);

#endif
