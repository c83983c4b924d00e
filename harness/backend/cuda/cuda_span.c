/*
 * cuda_span.c - one timed span of the CUDA backend (cuda_int.h), queued on
 * its one stream:
 *
 *   probe [L2 flush memset] [spin] (push) start-event ARM stop-event (pop) probe
 *
 * The flush is a cudaMemsetAsync of a buffer exactly the device's L2 size.
 * With launch_gaps = hide, the spin kernel holds the stream until every
 * launch of the sample is queued, so the arm's kernels start back to back;
 * the host releases it through host-mapped memory. With include, the
 * events see the launch gaps (the probe and flush queued ahead hide the
 * first launch's latency, as in Triton's do_bench). The two probe kernels
 * read the SM clock before and after the timed span (docs/CUDA_BACKEND.md
 * says what they can and cannot see). Only the arm's launches are inside
 * the CUPTI external-correlation push, so flush, spin and probe records
 * are never attributed to the arm. Nothing but the arm's launch calls sits
 * between the two event records, on the host or on the GPU (issue 24.3;
 * ABBENCH_SPAN=legacy queues the order before it, `[flush] probe [spin]
 * start (push) ARM (pop) stop probe`, to measure the two against each
 * other).
 */
#include "backend/cuda/cuda_int.h"

#include <math.h>
#include <time.h>

/* Effective / default SM clock from one probe, NAN without a reading. */
static double cuda_probe_ratio(const struct backend *b, const unsigned long long *p)
{
	if (p[0] == 0 || b->default_sm_khz <= 0)
		return NAN;
	double mhz = 1000.0 * (double)p[1] / (double)p[0];
	return mhz / (b->default_sm_khz / 1000.0);
}

/* The lower of the two probes' ratios decides. */
void cuda_probe_verdict(const struct backend *b, struct bk_sample *out)
{
	double before = cuda_probe_ratio(b, b->probe_host), after = cuda_probe_ratio(b, b->probe_host + 4);
	out->clock_ratio = isnan(before) ? after : isnan(after) ? before : fmin(before, after);
	out->discarded = !isnan(out->clock_ratio) && out->clock_ratio < CUDA_THROTTLE_RATIO;
}

/* The launches fn queued, or what they said when they failed. */
enum ab_rc cuda_launched(struct backend *b, int e, const char *what, struct ab_diag *d)
{
	if (e && b->ext_err[0])
		return ab_fail(d, AB_ERR_BACKEND, "%s", b->ext_err);
	return ab_check_call(e, &cuda_api, what, __FILE__, __LINE__, d);
}

/* Pops the sample's tag; its error is kept only when rc has none. */
enum ab_rc cuda_pop(struct backend *b, enum ab_rc rc, struct ab_diag *d)
{
	struct ab_diag pd;
	enum ab_rc prc = cupti_pop(b->cupti, &pd);
	if (prc && !rc) {
		*d = pd;
		return prc;
	}
	return rc;
}

/* The spin kernel's give-ups so far (launch_gaps = hide): it counts them
 * in host-mapped memory. */
static unsigned cuda_spin_gave_up(const struct backend *b)
{
	return __atomic_load_n(&b->flags_host[1], __ATOMIC_ACQUIRE);
}

static double cuda_ns_between(const struct timespec *t0, const struct timespec *t1)
{
	return (double)(t1->tv_sec - t0->tv_sec) * 1e9 + (double)(t1->tv_nsec - t0->tv_nsec);
}

/* The arm's call, timed on the host (entered to returned: its host time,
 * with nothing of abbench's inside), and whether the spin holding the
 * stream gave up before the call returned (*outlived). */
static int cuda_call_arm(struct backend *b, region_fn fn, const void *ctx, double *host_ns, bool *outlived)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int e = fn(b, ctx);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*host_ns = cuda_ns_between(&t0, &t1);
	*outlived = b->opt.launch_gaps == BACKEND_GAPS_HIDE && cuda_spin_gave_up(b) != b->spin_timeouts;
	return e;
}

/* (push) start event, the launches, stop event (pop): only the arm's
 * launch calls between the two records. ABBENCH_SPAN=legacy: start (push)
 * launches (pop) stop. The pop runs even when the launches failed, so the
 * correlation stack stays balanced. */
static enum ab_rc cuda_queue_timed(struct backend *b, region_fn fn, const void *ctx, uint32_t tag,
				   struct bk_sample *out, bool *outlived, struct ab_diag *d)
{
	enum ab_rc rc;
	bool push = b->cupti && tag != ATTRIB_UNTIMED, legacy = b->legacy_span;
	if (legacy && (rc = CK(d, cudaEventRecord(b->ev_start, b->stream))))
		return rc;
	if (push && (rc = cupti_push(b->cupti, tag, d)))
		return rc;
	rc = legacy ? AB_OK : CK(d, cudaEventRecord(b->ev_start, b->stream));
	if (!rc) {
		b->ext_err[0] = '\0';
		rc = cuda_launched(b, cuda_call_arm(b, fn, ctx, &out->host_ns, outlived), "the timed launches", d);
	}
	if (!rc && !legacy)
		rc = CK(d, cudaEventRecord(b->ev_stop, b->stream));
	if (push)
		rc = cuda_pop(b, rc, d);
	if (!rc && legacy)
		rc = CK(d, cudaEventRecord(b->ev_stop, b->stream));
	return rc;
}

static enum ab_rc cuda_queue_flush(struct backend *b, struct ab_diag *d)
{
	return b->l2_buf ? CK(d, cudaMemsetAsync(b->l2_buf, 0, b->l2_bytes, b->stream)) : AB_OK;
}

/* Everything queued before the start event: probe, flush, spin (legacy:
 * flush, probe, spin). */
static enum ab_rc cuda_queue_prologue(struct backend *b, unsigned target, struct ab_diag *d)
{
	enum ab_rc rc;
	if (b->legacy_span && (rc = cuda_queue_flush(b, d)))
		return rc;
	if ((rc = CK(d, hk_probe_launch(b->probe_dev, CUDA_PROBE_WINDOW_NS, b->stream))))
		return rc;
	if (!b->legacy_span && (rc = cuda_queue_flush(b, d)))
		return rc;
	if (b->opt.launch_gaps == BACKEND_GAPS_HIDE)
		return CK(d, hk_spin_launch(b->flags_dev, target, CUDA_SPIN_TIMEOUT_NS, b->flags_dev + 1, b->stream));
	return AB_OK;
}

/* A spin that gave up (launch_gaps = hide): the sample measured nothing.
 * When the arm's call returned only after it gave up, the call waited for
 * the GPU (which waited for the call) or outlasted the spin's hold; the
 * message names what does that and the key that measures such an arm. */
static enum ab_rc cuda_spin_failed(bool outlived, double host_ns, struct ab_diag *d)
{
	/* Messages stay short: the preflight wraps them with the case and arm
	 * within AB_DIAG_MAX. A call that waited for the GPU returns just after
	 * the spin gives up; one far past it was host work the spin cannot hold
	 * the stream for. */
	if (outlived && host_ns > 1.25 * CUDA_SPIN_TIMEOUT_NS)
		return ab_fail(d, AB_ERR_BACKEND,
			       "the arm's call took %.2f s, longer than the spin kernel holds the stream for it "
			       "(launch_gaps = hide: %.1f s), or it waits for the GPU while queueing (a synchronize, "
			       ".item(), a blocking copy); measure this arm with launch_gaps = include",
			       host_ns / 1e9, CUDA_SPIN_TIMEOUT_NS / 1e9);
	if (outlived)
		return ab_fail(d, AB_ERR_BACKEND,
			       "the arm's call returned after %.2f s, only once the spin kernel holding the stream "
			       "(launch_gaps = hide) had given up after %.1f s: the call waits for the GPU while queueing "
			       "(a synchronize, .item(), .cpu(), a blocking copy); queue without waiting, or measure "
			       "this arm with launch_gaps = include",
			       host_ns / 1e9, CUDA_SPIN_TIMEOUT_NS / 1e9);
	return ab_fail(d, AB_ERR_BACKEND,
		       "the spin kernel holding the stream (launch_gaps = hide) gave up after %.1f s although the "
		       "arm's call returned after %.3f ms: the host did not release it in time",
		       CUDA_SPIN_TIMEOUT_NS / 1e9, host_ns / 1e6);
}

/* After the queue is released: wait, read the events and the probes. */
static enum ab_rc cuda_finish_sample(struct backend *b, bool outlived, struct bk_sample *out, struct ab_diag *d)
{
	float ms = 0.0f;
	enum ab_rc rc;
	if ((rc = CK(d, cudaStreamSynchronize(b->stream))))
		return rc;
	unsigned timeouts = cuda_spin_gave_up(b);
	if (timeouts != b->spin_timeouts) {
		b->spin_timeouts = timeouts;
		return cuda_spin_failed(outlived, out->host_ns, d);
	}
	if ((rc = CK(d, cudaEventElapsedTime(&ms, b->ev_start, b->ev_stop))))
		return rc;
	out->wall_ns = (double)ms * 1e6;
	cuda_probe_verdict(b, out);
	return AB_OK;
}

/* One sample of fn, tagged with tag for CUPTI (ATTRIB_UNTIMED: no tag). The
 * spin is released whatever happened, so an error never leaves the GPU
 * waiting for the timeout. */
enum ab_rc cuda_timed_run(struct backend *b, region_fn fn, const void *ctx, uint32_t tag, struct bk_sample *out,
			  struct ab_diag *d)
{
	unsigned target = b->spin_seq + 1u;
	bool outlived = false;
	b->probe_host[0] = b->probe_host[4] = 0;
	out->host_ns = NAN;
	enum ab_rc rc = cuda_queue_prologue(b, target, d);
	if (!rc)
		rc = cuda_queue_timed(b, fn, ctx, tag, out, &outlived, d);
	if (!rc)
		rc = CK(d, hk_probe_launch(b->probe_dev + 4, CUDA_PROBE_WINDOW_NS, b->stream));
	if (b->opt.launch_gaps == BACKEND_GAPS_HIDE) {
		b->spin_seq = target;
		__atomic_store_n(&b->flags_host[0], target, __ATOMIC_RELEASE);
	}
	if (rc) {
		cudaStreamSynchronize(b->stream);
		b->spin_timeouts = cuda_spin_gave_up(b); /* a give-up behind a failed call is that call's */
		return rc;
	}
	return cuda_finish_sample(b, outlived, out, d);
}
