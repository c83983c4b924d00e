/*
 * cuda_calibrate.c - what the CUDA backend measures of itself at open
 * (cuda_int.h), in the run's own mode (flush, launch gaps): CUPTI's
 * overhead on a chain of tiny launches with the external correlation's
 * self-check, and the timed span's floor (the span around nothing and
 * around one one-warp kernel), which the run's notes carry.
 */
#include "backend/cuda/cuda_int.h"

#include <math.h>

#include "common/stats.h"

static int cuda_tiny_chain(struct backend *b, const void *ctx)
{
	(void)ctx;
	for (int i = 0; i < CUDA_OVERHEAD_LAUNCHES; i++) {
		int e = hk_tiny_launch(b->tiny_sink, b->stream);
		if (e)
			return e;
	}
	return 0;
}

/* Median wall time of the tiny chain over n samples (after 3 warm-ups),
 * tagged as samples when tagged. */
static enum ab_rc cuda_time_chain(struct backend *b, bool tagged, double *median, struct ab_diag *d)
{
	double t[CUDA_OVERHEAD_SAMPLES];
	struct bk_sample s;
	enum ab_rc rc;
	for (int i = -3; i < CUDA_OVERHEAD_SAMPLES; i++) {
		uint32_t tag = tagged && i >= 0 ? (uint32_t)i + 1u : ATTRIB_UNTIMED;
		if ((rc = cuda_timed_run(b, cuda_tiny_chain, NULL, tag, &s, d)))
			return rc;
		if (i >= 0)
			t[i] = s.wall_ns;
	}
	*median = stats_median(t, CUDA_OVERHEAD_SAMPLES);
	return AB_OK;
}

/* Median of the tagged chain, then its records: every launch of it must
 * come back tied to its sample (the self-check of the external
 * correlation). When none is, runtime API records are added and the
 * measurement repeated once. */
static enum ab_rc cuda_time_tagged(struct backend *b, double *on, struct ab_diag *d)
{
	struct cupti_counts n = {0};
	enum ab_rc rc;
	if ((rc = cuda_time_chain(b, true, on, d)) || (rc = cupti_collect(b->cupti, NULL, &n, d)))
		return rc;
	b->selfcheck_tied = n.timed;
	if (n.timed > 0 || b->runtime_fallback)
		return AB_OK;
	b->runtime_fallback = true;
	if ((rc = cupti_trace_runtime(b->cupti, d)))
		return rc;
	return cuda_time_tagged(b, on, d);
}

/* The same chain of tiny launches, in the run's own mode (flush, launch
 * gaps), timed with record collection off, then on. The records of the
 * measurement are discarded. */
enum ab_rc cuda_measure_overhead(struct backend *b, struct ab_diag *d)
{
	double off = 0, on = 0;
	enum ab_rc rc;
	if ((rc = cupti_enable(b->cupti, false, d)) || (rc = cuda_time_chain(b, false, &off, d)) ||
	    (rc = cupti_enable(b->cupti, true, d)) || (rc = cuda_time_tagged(b, &on, d)))
		return rc;
	b->cupti_overhead = off > 0 ? on / off - 1.0 : NAN;
	return AB_OK;
}

/* ---- the timed span's floor ---------------------------------------------- */

#define CUDA_SPAN_SAMPLES 30

static int cuda_nothing(struct backend *b, const void *ctx)
{
	(void)b;
	(void)ctx;
	return 0;
}

static int cuda_one_tiny(struct backend *b, const void *ctx)
{
	(void)ctx;
	return hk_tiny_launch(b->tiny_sink, b->stream);
}

/* Median wall time of fn over CUDA_SPAN_SAMPLES samples in the run's mode,
 * tagged 1..n when kernel times are wanted (then their median too, from
 * CUPTI; NAN without it). */
static enum ab_rc cuda_span_of(struct backend *b, region_fn fn, bool tagged, double *wall, double *kernel,
			       struct ab_diag *d)
{
	double t[CUDA_SPAN_SAMPLES];
	struct bk_sample s;
	struct attrib_collector k;
	enum ab_rc rc = attrib_init(&k, CUDA_SPAN_SAMPLES, d);
	*kernel = NAN;
	for (int i = -3; !rc && i < CUDA_SPAN_SAMPLES; i++) {
		uint32_t tag = tagged && i >= 0 ? (uint32_t)i + 1u : ATTRIB_UNTIMED;
		if (!(rc = cuda_timed_run(b, fn, NULL, tag, &s, d)) && i >= 0)
			t[i] = s.wall_ns;
	}
	if (!rc && b->cupti) {
		struct cupti_counts n = {0};
		rc = cupti_collect(b->cupti, tagged ? &k : NULL, &n, d);
		if (!rc && tagged && k.n_kernels > 0)
			*kernel = stats_median(k.sample_kernel_ns, CUDA_SPAN_SAMPLES);
	}
	if (!rc)
		*wall = stats_median(t, CUDA_SPAN_SAMPLES);
	attrib_free(&k);
	return rc;
}

/* What the events themselves cost, in the run's mode: the span around no
 * launch at all, and around one one-warp kernel beside that kernel's own
 * CUPTI time; wall - kernel of a one-kernel arm is at least their
 * difference (the notes carry it, docs/CUDA_BACKEND.md says how to read
 * it). */
enum ab_rc cuda_measure_span(struct backend *b, struct ab_diag *d)
{
	double unused;
	enum ab_rc rc = cuda_span_of(b, cuda_nothing, false, &b->span_empty_ns, &unused, d);
	if (!rc)
		rc = cuda_span_of(b, cuda_one_tiny, true, &b->span_tiny_ns, &b->span_tiny_kernel_ns, d);
	return rc;
}
