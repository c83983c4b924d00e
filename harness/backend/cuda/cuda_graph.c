/*
 * cuda_graph.c - timing = graph (backend.h, cuda_int.h): the slot's arm is
 * captured at slot_begin into a graph of BACKEND_GRAPH_LAUNCHES x ([flush]
 * ARM), and a sample replays the flushes alone, then that graph, between
 * three events; its time is (graph - flushes) / launches: the arm without
 * launch overhead.
 */
#include "backend/cuda/cuda_int.h"

#include <string.h>

#include "common/stats.h"

void cuda_graph_drop(cudaGraphExec_t *g)
{
	if (*g)
		cudaGraphExecDestroy(*g);
	*g = NULL;
}

/* Captures BACKEND_GRAPH_LAUNCHES x ([flush] fn) (fn NULL: the flushes
 * alone) from the stream into *exec. The capture is always ended, so the
 * stream is usable whatever fn did. */
enum ab_rc cuda_graph_capture(struct backend *b, region_fn fn, const void *ctx, cudaGraphExec_t *exec,
			      struct ab_diag *d)
{
	cudaGraph_t g = NULL;
	enum ab_rc rc = CK(d, cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeThreadLocal));
	int e = 0;
	b->ext_err[0] = '\0';
	for (int i = 0; !rc && !e && i < BACKEND_GRAPH_LAUNCHES; i++) {
		if (b->l2_buf)
			e = (int)cudaMemsetAsync(b->l2_buf, 0, b->l2_bytes, b->stream);
		if (!e && fn)
			e = fn(b, ctx);
	}
	cudaError_t end = rc ? cudaSuccess : cudaStreamEndCapture(b->stream, &g);
	if (!rc && e)
		rc = cuda_launched(b, e, "capturing the launches into a graph", d);
	if (!rc)
		rc = ab_check_call((int)end, &cuda_api, "cudaStreamEndCapture(b->stream, &g)", __FILE__, __LINE__, d);
	if (!rc)
		rc = CK(d, cudaGraphInstantiate(exec, g, 0));
	if (g)
		cudaGraphDestroy(g);
	cudaGetLastError(); /* a failed capture leaves its error behind */
	return rc;
}

/* The flushes alone, once per run (nothing to capture without a flush). */
enum ab_rc cuda_graph_flushes(struct backend *b, struct ab_diag *d)
{
	return b->l2_buf ? cuda_graph_capture(b, NULL, NULL, &b->g_flush, d) : AB_OK;
}

/* This replay of the flushes alone added to the slot's latest ones (the
 * oldest dropped), and their median. */
static double flush_baseline(struct backend *b, float ms)
{
	if (b->n_flush_ms == CUDA_GRAPH_FLUSH_HISTORY)
		memmove(b->flush_ms, b->flush_ms + 1, (CUDA_GRAPH_FLUSH_HISTORY - 1) * sizeof b->flush_ms[0]);
	else
		b->n_flush_ms++;
	b->flush_ms[b->n_flush_ms - 1] = ms;
	return stats_median(b->flush_ms, b->n_flush_ms);
}

/* One sample of the slot's graph: probe, [ev_flush, the flushes], start,
 * the arm's graph, stop, probe; (arm graph - the median of the slot's
 * latest flushes-only replays) / launches. An arm that does not rise above
 * the flushes' noise fails the slot with the figures (a time of 0 or less
 * is no measurement). */
enum ab_rc cuda_graph_sample(struct backend *b, uint32_t tag, struct bk_sample *out, struct ab_diag *d)
{
	float flush_ms = 0, arm_ms = 0;
	bool push = b->cupti && tag != ATTRIB_UNTIMED;
	b->probe_host[0] = b->probe_host[4] = 0;
	enum ab_rc rc = CK(d, hk_probe_launch(b->probe_dev, CUDA_PROBE_WINDOW_NS, b->stream));
	if (!rc && b->g_flush && !(rc = CK(d, cudaEventRecord(b->ev_flush, b->stream))))
		rc = CK(d, cudaGraphLaunch(b->g_flush, b->stream));
	if (!rc && push)
		rc = cupti_push(b->cupti, tag, d);
	if (!rc && !(rc = CK(d, cudaEventRecord(b->ev_start, b->stream))) && !(rc = CK(d, cudaGraphLaunch(b->g_arm, b->stream))))
		rc = CK(d, cudaEventRecord(b->ev_stop, b->stream));
	if (push)
		rc = cuda_pop(b, rc, d);
	if (!rc)
		rc = CK(d, hk_probe_launch(b->probe_dev + 4, CUDA_PROBE_WINDOW_NS, b->stream));
	if (!rc)
		rc = CK(d, cudaStreamSynchronize(b->stream));
	if (!rc && b->g_flush)
		rc = CK(d, cudaEventElapsedTime(&flush_ms, b->ev_flush, b->ev_start));
	if (!rc)
		rc = CK(d, cudaEventElapsedTime(&arm_ms, b->ev_start, b->ev_stop));
	if (rc) {
		cudaStreamSynchronize(b->stream);
		return rc;
	}
	double base_ms = b->g_flush ? flush_baseline(b, flush_ms) : 0;
	double ns = ((double)arm_ms - base_ms) * 1e6 / BACKEND_GRAPH_LAUNCHES;
	if (!(ns > 0))
		return ab_fail(d, AB_ERR_BACKEND,
			       "timing = graph cannot resolve this arm: its replay of %d launches took %.2f us, the "
			       "flushes alone %.2f us (median of %d): the arm is within the flushes' noise; measure it "
			       "with timing = events, or without the L2 flush",
			       BACKEND_GRAPH_LAUNCHES, arm_ms * 1e3, base_ms * 1e3, b->n_flush_ms);
	out->wall_ns = ns;
	cuda_probe_verdict(b, out);
	return AB_OK;
}
